// chanfana 3 on Hono, written the way its docs write endpoints: the schema is a class field.
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

class GetTask extends OpenAPIRoute {
  schema = {
    tags: ["Tasks"],
    summary: "Get a task",
    request: { params: z.object({ id: z.number().int() }) },
    responses: {
      200: { description: "The task", ...contentJson(Task) },
      ...InputValidationException.schema(),
      ...NotFoundException.schema(),
    },
  };

  async handle(_c) {
    const { params } = await this.getValidatedData();
    const task = findTask(params.id);
    if (!task) throw new NotFoundException();
    return task;
  }
}

class CreateTask extends OpenAPIRoute {
  schema = {
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
  };

  async handle(c) {
    const { body } = await this.getValidatedData();
    return c.json(createdTask(body), 201);
  }
}

class ListTasks extends OpenAPIRoute {
  schema = {
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
  };

  async handle(_c) {
    const { query } = await this.getValidatedData();
    return listTasks(query);
  }
}

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

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const app = new Hono();
  registerTaskRoutes(fromHono(app, options));
  return app;
}

/** The throughput app: the three endpoints plus a List endpoint over the SQLite store. */
export function createApp({ store }) {
  // chanfana's own SQL list (D1ListEndpoint) needs a D1 binding; its ListEndpoint with list() over the
  // same hand-written statements keeps the comparison on framework overhead.
  class ListDbTasks extends ListEndpoint {
    _meta = { model: { tableName: "tasks", schema: DbTask, primaryKeys: ["id"] } };
    filterFields = ["status"];
    searchFields = ["title"];
    orderByFields = ["id", "priority", "title"];
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

/** `count` routes, each its own class (so its own schemas and operationId): get, create, list in turn. */
export function createGeneratedApp(count) {
  const app = new Hono();
  const openapi = fromHono(app, options);
  const kinds = [
    ["get", "/tasks/:id", GetTask],
    ["post", "/tasks", CreateTask],
    ["get", "/tasks", ListTasks],
  ];
  for (let i = 0; i < count; i++) {
    const [method, path, Base] = kinds[i % 3];
    const name = `${Base.name}${i}`;
    const Endpoint = { [name]: class extends Base {} }[name];
    openapi[method](`/g${i}${path}`, Endpoint);
  }
  return app;
}
