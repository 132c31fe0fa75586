// specroute's endpoints, written as its README does (schema as a class field). Shared by the Hono and
// itty-router apps so the two rows differ only by the router adapter.
import {
  betterSqlite3Driver,
  contentJson,
  InputValidationException,
  jsonResp,
  NotFoundException,
  OpenAPIRoute,
  SqlListEndpoint,
} from "specroute";
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

export class GetTask extends OpenAPIRoute {
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

  async handle() {
    const { params } = await this.getValidatedData();
    const task = findTask(params.id);
    if (!task) throw new NotFoundException();
    return task;
  }
}

export class CreateTask extends OpenAPIRoute {
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

  // A status other than 200 is answered as Hono's README writes it (chanfana's and the baseline's apps too).
  async handle(c) {
    const { body } = await this.getValidatedData();
    return c.json(createdTask(body), 201);
  }
}

/**
 * The same endpoint on itty-router, whose handlers get the Request (no context): specroute's `jsonResp`
 * (chanfana's helper for a JSON answer with a status). The web's `Response.json` would do too, but on
 * @hono/node-server it builds a full web Response that node-server then streams (about 3× slower).
 */
export class IttyCreateTask extends CreateTask {
  async handle() {
    const { body } = await this.getValidatedData();
    return jsonResp(createdTask(body), { status: 201 });
  }
}

export class ListTasks extends OpenAPIRoute {
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

  async handle() {
    const { query } = await this.getValidatedData();
    return listTasks(query);
  }
}

/** The three task endpoints; `create` is the POST endpoint written for the router (Hono's by default). */
export function registerTaskRoutes(router, create = CreateTask) {
  router.get("/tasks/:id", GetTask);
  router.post("/tasks", create);
  router.get("/tasks", ListTasks);
}

const DbTask = z.object({
  id: z.number().int(),
  title: z.string(),
  assignee: z.string(),
  priority: z.number().int(),
  done: z.boolean(),
  status: z.enum(STATUSES),
});

/** The SQLite List case: `GET /db/tasks` over `store` (a TaskStore). */
export function registerDbRoutes(router, store) {
  const driver = betterSqlite3Driver(store.db);
  // ── THE SQL ENDPOINT ──────────────────────────────────────────────────────────────────────────────
  // specroute's SqlListEndpoint over a better-sqlite3 driver: its own SQL (page + COUNT(*)) against the
  // hand-written statements of the baseline. To measure only the ListEndpoint layer instead, extend
  // ListEndpoint and give it `async list({ filters, options }) { return store.listByFilters(filters, options, this); }`.
  class ListDbTasks extends SqlListEndpoint {
    _meta = { model: { tableName: "tasks", schema: DbTask, primaryKeys: ["id"] } };
    filterFields = ["status"];
    searchFields = ["title"];
    orderByFields = ["id", "priority", "title"];
    defaultOrderBy = "id";
    db = driver;
  }
  // ─────────────────────────────────────────────────────────────────────────────────────────────────
  router.get("/db/tasks", ListDbTasks);
}

/** `count` routes, each its own class (so its own schemas and operationId): get, create, list in turn. */
export function registerGeneratedRoutes(router, count, create = CreateTask) {
  const kinds = [
    ["get", "/tasks/:id", GetTask],
    ["post", "/tasks", create],
    ["get", "/tasks", ListTasks],
  ];
  for (let i = 0; i < count; i++) {
    const [method, path, Base] = kinds[i % 3];
    const name = `${Base.name}${i}`;
    const Endpoint = { [name]: class extends Base {} }[name];
    router[method](`/g${i}${path}`, Endpoint);
  }
}
