// Baseline ("the limit"): bare Hono, zod schemas parsed by hand in each handler. No OpenAPI document.
import { Hono } from "hono";
import { z } from "zod";
import { createdTask, findTask, listTasks, STATUSES } from "./shared/tasks.js";
import { taskCreate, taskParams, taskQuery } from "./shared/zod-schemas.js";

const dbTaskQuery = () =>
  z.strictObject({
    page: z.coerce.number().int().min(1).default(1),
    per_page: z.coerce.number().int().min(1).max(100).default(20),
    status: z.enum(STATUSES).optional(),
    search: z.string().optional(),
    order_by: z.enum(["id", "priority", "title"]).default("id"),
    order_by_direction: z.enum(["asc", "desc"]).default("asc"),
  });

function invalid(c, error) {
  const errors = error.issues.map((issue) => ({ code: 7001, message: issue.message, path: issue.path }));
  return c.json({ success: false, errors, result: {} }, 400);
}

async function readJson(c) {
  try {
    return { ok: true, value: await c.req.json() };
  } catch {
    return { ok: false };
  }
}

function getTaskHandler(schema = taskParams()) {
  return (c) => {
    const params = schema.safeParse(c.req.param());
    if (!params.success) return invalid(c, params.error);
    const task = findTask(params.data.id);
    if (!task) return c.json({ success: false, errors: [{ code: 7002, message: "Not Found" }], result: {} }, 404);
    return c.json(task);
  };
}

function createTaskHandler(schema = taskCreate()) {
  return async (c) => {
    const json = await readJson(c);
    if (!json.ok) return c.json({ success: false, errors: [{ code: 7001, message: "Invalid JSON" }], result: {} }, 400);
    const body = schema.safeParse(json.value);
    if (!body.success) return invalid(c, body.error);
    return c.json(createdTask(body.data), 201);
  };
}

function listTasksHandler(schema = taskQuery()) {
  return (c) => {
    const query = schema.safeParse(c.req.query());
    if (!query.success) return invalid(c, query.error);
    return c.json(listTasks(query.data));
  };
}

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const app = new Hono();
  app.get("/tasks/:id", getTaskHandler());
  app.post("/tasks", createTaskHandler());
  app.get("/tasks", listTasksHandler());
  return app;
}

/** The throughput app: the three endpoints plus the SQLite list with hand-written SQL. */
export function createApp({ store }) {
  const app = createWorkerApp();
  const schema = dbTaskQuery();
  app.get("/db/tasks", (c) => {
    const query = schema.safeParse(c.req.query());
    if (!query.success) return invalid(c, query.error);
    return c.json(store.listTasks(query.data));
  });
  return app;
}

/** `count` routes, each with its own schemas (a third each of get-by-id, create and list). */
export function createGeneratedApp(count) {
  const app = new Hono();
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) app.get(`/g${i}/tasks/:id`, getTaskHandler(taskParams()));
    else if (i % 3 === 1) app.post(`/g${i}/tasks`, createTaskHandler(taskCreate()));
    else app.get(`/g${i}/tasks`, listTasksHandler(taskQuery()));
  }
  return app;
}
