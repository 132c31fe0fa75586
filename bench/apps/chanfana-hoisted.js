// chanfana 3 on Hono with every schema hoisted to module level: the class fields only point at schemas
// built once, so the endpoint instance chanfana constructs per request re-creates no zod schema. The
// fastest way to write chanfana, beside apps/chanfana.js (the documented style), so the comparison is
// not only with the slowest one. The handlers are the same as there.
import {
  contentJson,
  fromHono,
  InputValidationException,
  ListEndpoint,
  NotFoundException,
  OpenAPIRoute,
} from "chanfana";
import { Hono } from "hono";
import { z } from "zod";
import { createdTask, findTask, listTasks, STATUSES } from "./shared/tasks.js";

const Task = z.object({
  id: z.number().int(),
  title: z.string(),
  assignee: z.string(),
  priority: z.number().int(),
  done: z.boolean(),
  status: z.enum(STATUSES),
  due: z.iso.date().optional(),
});

const options = { schema: { info: { title: "Benchmark", version: "1.0.0" } } };

/** The three endpoints' schemas; built once per route (at module level for the throughput app). */
function taskSchemas() {
  return {
    get: {
      tags: ["Tasks"],
      summary: "Get a task",
      request: { params: z.object({ id: z.number().int() }) },
      responses: {
        200: { description: "The task", ...contentJson(Task) },
        ...InputValidationException.schema(),
        ...NotFoundException.schema(),
      },
    },
    create: {
      tags: ["Tasks"],
      summary: "Create a task",
      request: {
        body: contentJson(
          z.object({
            title: z.string().min(1).max(120),
            assignee: z.email(),
            priority: z.number().int().min(1).max(5),
            done: z.boolean(),
            status: z.enum(STATUSES),
            due: z.iso.date().optional(),
          }),
        ),
      },
      responses: {
        201: { description: "The created task", ...contentJson(Task) },
        ...InputValidationException.schema(),
      },
    },
    list: {
      tags: ["Tasks"],
      summary: "List tasks",
      request: {
        query: z.object({
          page: z.number().int().min(1).default(1),
          per_page: z.number().int().min(1).max(100).default(20),
          status: z.enum(STATUSES).optional(),
          search: z.string().min(1).max(50).optional(),
        }),
      },
      responses: {
        200: {
          description: "A page of tasks",
          ...contentJson(z.object({ result: z.array(Task), page: z.number().int(), per_page: z.number().int() })),
        },
        ...InputValidationException.schema(),
      },
    },
  };
}

/** The three endpoint classes over `schemas`: each class field only refers to a schema built beforehand. */
function taskEndpoints(schemas) {
  class GetTask extends OpenAPIRoute {
    schema = schemas.get;

    async handle(_c) {
      const { params } = await this.getValidatedData();
      const task = findTask(params.id);
      if (!task) throw new NotFoundException();
      return task;
    }
  }

  class CreateTask extends OpenAPIRoute {
    schema = schemas.create;

    async handle(c) {
      const { body } = await this.getValidatedData();
      return c.json(createdTask(body), 201);
    }
  }

  class ListTasks extends OpenAPIRoute {
    schema = schemas.list;

    async handle(_c) {
      const { query } = await this.getValidatedData();
      return listTasks(query);
    }
  }
  return { GetTask, CreateTask, ListTasks };
}

const { GetTask, CreateTask, ListTasks } = taskEndpoints(taskSchemas());

function registerTaskRoutes(openapi) {
  openapi.get("/tasks/:id", GetTask);
  openapi.post("/tasks", CreateTask);
  openapi.get("/tasks", ListTasks);
}

const DbTask = z.object({
  id: z.number().int(),
  title: z.string(),
  assignee: z.string(),
  priority: z.number().int(),
  done: z.boolean(),
  status: z.enum(STATUSES),
});
const dbMeta = { model: { tableName: "tasks", schema: DbTask, primaryKeys: ["id"] } };
const dbFilterFields = ["status"];
const dbSearchFields = ["title"];
const dbOrderByFields = ["id", "priority", "title"];

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const app = new Hono();
  registerTaskRoutes(fromHono(app, options));
  return app;
}

/** The throughput app: the three endpoints plus a List endpoint over the SQLite store (as in apps/chanfana.js). */
export function createApp({ store }) {
  class ListDbTasks extends ListEndpoint {
    _meta = dbMeta;
    filterFields = dbFilterFields;
    searchFields = dbSearchFields;
    orderByFields = dbOrderByFields;
    defaultOrderBy = "id";

    async list({ filters, options }) {
      return store.listByFilters(filters, options, this);
    }
  }
  const app = new Hono();
  const openapi = fromHono(app, options);
  registerTaskRoutes(openapi);
  openapi.get("/db/tasks", ListDbTasks);
  return app;
}

/** `count` routes, each its own class with its own schemas (built before the class, once per route). */
export function createGeneratedApp(count) {
  const app = new Hono();
  const openapi = fromHono(app, options);
  for (let i = 0; i < count; i++) {
    const endpoints = taskEndpoints(taskSchemas());
    const [method, path, Base] = [
      ["get", "/tasks/:id", endpoints.GetTask],
      ["post", "/tasks", endpoints.CreateTask],
      ["get", "/tasks", endpoints.ListTasks],
    ][i % 3];
    const name = `${Base.name}${i}`;
    const Endpoint = { [name]: class extends Base {} }[name];
    openapi[method](`/g${i}${path}`, Endpoint);
  }
  return app;
}
