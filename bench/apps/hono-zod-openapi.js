// @hono/zod-openapi, written the way its README does: createRoute() configs and app.openapi(route, handler).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
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
const DbTask = Task.omit({ due: true });
const ErrorBody = z.object({ success: z.boolean(), errors: z.array(z.object({ message: z.string() })) });
const errors = { 400: { description: "Invalid input", content: { "application/json": { schema: ErrorBody } } } };
const json = (schema) => ({ "application/json": { schema } });

// Path and query values arrive as strings; zod-openapi validates them as they are, so numbers are coerced.
const getTaskRoute = (path = "/tasks/{id}") =>
  createRoute({
    method: "get",
    path,
    tags: ["Tasks"],
    summary: "Get a task",
    request: {
      params: z.object({
        id: z.coerce
          .number()
          .int()
          .openapi({ param: { name: "id", in: "path" } }),
      }),
    },
    responses: {
      200: { description: "The task", content: json(Task) },
      404: { description: "Not found", content: json(ErrorBody) },
      ...errors,
    },
  });

const createTaskRoute = (path = "/tasks") =>
  createRoute({
    method: "post",
    path,
    tags: ["Tasks"],
    summary: "Create a task",
    request: {
      body: {
        required: true,
        content: json(
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
    },
    responses: { 201: { description: "The created task", content: json(Task) }, ...errors },
  });

// Strict, as specroute and chanfana refuse undeclared query parameters.
const listTasksRoute = (path = "/tasks") =>
  createRoute({
    method: "get",
    path,
    tags: ["Tasks"],
    summary: "List tasks",
    request: {
      query: z.strictObject({
        page: z.coerce.number().int().min(1).default(1),
        per_page: z.coerce.number().int().min(1).max(100).default(20),
        status: z.enum(STATUSES).optional(),
        search: z.string().min(1).max(50).optional(),
      }),
    },
    responses: {
      200: {
        description: "A page of tasks",
        content: json(z.object({ result: z.array(Task), page: z.number().int(), per_page: z.number().int() })),
      },
      ...errors,
    },
  });

const listDbTasksRoute = createRoute({
  method: "get",
  path: "/db/tasks",
  tags: ["Tasks"],
  summary: "List tasks from SQLite",
  request: {
    query: z.strictObject({
      page: z.coerce.number().int().min(1).default(1),
      per_page: z.coerce.number().int().min(1).max(100).default(20),
      status: z.enum(STATUSES).optional(),
      search: z.string().optional(),
      order_by: z.enum(["id", "priority", "title"]).default("id"),
      order_by_direction: z.enum(["asc", "desc"]).default("asc"),
    }),
  },
  responses: {
    200: {
      description: "A page of tasks",
      content: json(
        z.object({
          success: z.boolean(),
          result: z.array(DbTask),
          result_info: z.object({
            count: z.number().int(),
            page: z.number().int(),
            per_page: z.number().int(),
            total_count: z.number().int(),
          }),
        }),
      ),
    },
    ...errors,
  },
});

const getTask = (c) => {
  const task = findTask(c.req.valid("param").id);
  if (!task) return c.json({ success: false, errors: [{ message: "Not Found" }] }, 404);
  return c.json(task, 200);
};
const createTask = (c) => c.json(createdTask(c.req.valid("json")), 201);
const listTaskPage = (c) => c.json(listTasks(c.req.valid("query")), 200);

function newApp() {
  const app = new OpenAPIHono();
  app.doc31("/openapi.json", { openapi: "3.1.0", info: { title: "Benchmark", version: "1.0.0" } });
  return app;
}

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const app = newApp();
  app.openapi(getTaskRoute(), getTask);
  app.openapi(createTaskRoute(), createTask);
  app.openapi(listTasksRoute(), listTaskPage);
  return app;
}

/** The throughput app: the three endpoints plus the SQLite list with hand-written SQL. */
export function createApp({ store }) {
  const app = createWorkerApp();
  app.openapi(listDbTasksRoute, (c) => c.json(store.listTasks(c.req.valid("query")), 200));
  return app;
}

/** `count` routes, each with its own route config and schemas: get, create, list in turn. */
export function createGeneratedApp(count) {
  const app = newApp();
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) app.openapi(getTaskRoute(`/g${i}/tasks/{id}`), getTask);
    else if (i % 3 === 1) app.openapi(createTaskRoute(`/g${i}/tasks`), createTask);
    else app.openapi(listTasksRoute(`/g${i}/tasks`), listTaskPage);
  }
  return app;
}
