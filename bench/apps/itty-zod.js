// Bare itty-router with zod schemas parsed by hand in each handler, as apps/hono-zod.js does on Hono: what
// itty-router's own routing costs, for reading specroute-on-itty-router's figures (Workers cases only).
import { Router } from "itty-router";
import { createdTask, findTask, listTasks } from "./shared/tasks.js";
import { taskCreate, taskParams, taskQuery } from "./shared/zod-schemas.js";

const json = (data, status = 200) =>
  new Response(JSON.stringify(data), { status, headers: { "content-type": "application/json" } });

function invalid(error) {
  const errors = error.issues.map((issue) => ({ code: 7001, message: issue.message, path: issue.path }));
  return json({ success: false, errors, result: {} }, 400);
}

function register(router, i = "") {
  const params = taskParams();
  const create = taskCreate();
  const query = taskQuery();
  const prefix = i === "" ? "" : `/g${i}`;
  router.get(`${prefix}/tasks/:id`, (request) => {
    const parsed = params.safeParse(request.params);
    if (!parsed.success) return invalid(parsed.error);
    const task = findTask(parsed.data.id);
    return task
      ? json(task)
      : json({ success: false, errors: [{ code: 7002, message: "Not Found" }], result: {} }, 404);
  });
  router.post(`${prefix}/tasks`, async (request) => {
    let body;
    try {
      body = await request.json();
    } catch {
      return json({ success: false, errors: [{ code: 7001, message: "Invalid JSON" }], result: {} }, 400);
    }
    const parsed = create.safeParse(body);
    return parsed.success ? json(createdTask(parsed.data), 201) : invalid(parsed.error);
  });
  router.get(`${prefix}/tasks`, (request) => {
    const parsed = query.safeParse(request.query);
    return parsed.success ? json(listTasks(parsed.data)) : invalid(parsed.error);
  });
}

const notFound = (response) => response ?? new Response("Not Found", { status: 404 });

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const router = Router();
  register(router);
  return { fetch: (request, env, ctx) => router.fetch(request, env, ctx).then(notFound) };
}
