// Which of specroute's files one request enters, from the adapter to handle() and back: V8's precise
// coverage counts every function called while one request runs (after warm-up requests, so nothing
// compiled on first use is counted). `npm run walk` walks a POST; `--router itty` for itty-router;
// `--request patch` an auto endpoint's PATCH on PGlite through Hono (a table with no change feed),
// `--request patch-live` the same on a live collection, with a listener of its change feed open.
import { once } from "node:events";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { z } from "zod";
import {
  apiKeyAuth,
  changeFeed,
  contentJson,
  fromHono,
  fromIttyRouter,
  OpenAPIRoute,
  pgliteDriver,
  SqlChangesEndpoint,
  SqlUpdateEndpoint,
} from "../src/index";

const Note = z.object({ title: z.string().min(1), done: z.boolean().default(false) });

/** A POST as the tasks example's writes are: an API key, a JSON body, a JSON answer. */
class CreateNote extends OpenAPIRoute {
  schema = {
    auth: apiKeyAuth({ in: "header", name: "X-API-Key", verify: (key) => (key === "k" ? { client: "k" } : null) }),
    request: { body: contentJson(Note) },
    responses: { "200": { description: "The note", ...contentJson(Note) } },
  };

  async handle() {
    const { body } = await this.getValidatedData<typeof this.schema>();
    return body;
  }
}

const { values } = parseArgs({
  options: { router: { type: "string", default: "hono" }, request: { type: "string", default: "post" } },
});
const root = fileURLToPath(new URL("../src/", import.meta.url));

const Task = z.object({ id: z.number().int(), title: z.string(), done: z.boolean() });
const taskFeed = changeFeed();
const taskModel = { tableName: "tasks", schema: Task, primaryKeys: ["id"] };
const live = values.request === "patch-live";
// A PATCH alone writes a table with no change feed; with a listener, the collection's feed records it too.
const taskMeta = live ? { model: taskModel, changes: taskFeed } : { model: taskModel };

/** A PATCH as an auto endpoint serves it: the stored row read, changed and answered (and recorded in the feed's log). */
class UpdateTask extends SqlUpdateEndpoint {
  _meta = taskMeta;
}
class TaskChanges extends SqlChangesEndpoint {
  _meta = taskMeta;
}

const patching = values.request !== "post";
let flip = false;

/** The request walked: POST /notes, or PATCH /tasks/1 (its `done` flipped each time, so every one writes). */
function request(): Request {
  if (!patching) {
    return new Request("http://127.0.0.1/notes", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({ title: "walk" }),
    });
  }
  flip = !flip;
  return new Request("http://127.0.0.1/tasks/1", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ done: flip }),
  });
}

/** One request; a wrong answer stops the script, since a walk of a failing request says nothing. */
async function post(send: (request: Request) => Promise<Response>): Promise<void> {
  const sent = request();
  const response = await send(sent);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${sent.method} ${sent.url} answered ${response.status}: ${text}`);
}

async function sender(): Promise<{ send: (request: Request) => Promise<Response>; close: () => void }> {
  if (values.router === "itty") {
    const router = fromIttyRouter(AutoRouter());
    router.post("/notes", CreateNote);
    return { send: (request) => router.fetch(request), close: () => {} };
  }
  const app = new Hono();
  if (patching) {
    const db = new PGlite();
    await db.exec(`CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL);
      INSERT INTO tasks VALUES (1, 'walk', false)`);
    const api = fromHono(app, { db: pgliteDriver(db) }).patch("/tasks/:id", UpdateTask);
    if (live) api.get("/tasks/changes", TaskChanges);
  } else {
    fromHono(app).post("/notes", CreateNote);
  }
  // Over real HTTP on 127.0.0.1, as @hono/node-server serves it (the walk docs/architecture.md describes).
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    // A body of declared length, as a client sends JSON (a Request built from another streams its body).
    send: async (request) =>
      fetch(request.url.replace("127.0.0.1", `127.0.0.1:${port}`), {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" ? undefined : await request.text(),
        signal: request.signal,
      }),
    close: () => server.close(),
  };
}

const { send, close } = await sender();
// A listener of the collection, reading its events as they come, while every request below is walked.
const listening = live ? await listen(send) : undefined;
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
for (let i = 0; i < 20; i++) await post(send);
// Taking the coverage resets the counts: what the next take reports is the one request alone.
await session.post("Profiler.takePreciseCoverage");
await post(send);
const { result } = await session.post("Profiler.takePreciseCoverage");
listening?.abort();
close();

const entered = new Map<string, string[]>();
for (const script of result) {
  if (!script.url.startsWith("file://")) continue;
  const path = fileURLToPath(script.url);
  if (!path.startsWith(root)) continue;
  const called = script.functions.filter((fn) => fn.ranges[0]!.count > 0).map((fn) => fn.functionName || "(anonymous)");
  if (called.length > 0) entered.set(relative(root, path), [...new Set(called)]);
}
const walked = patching ? `PATCH /tasks/1 on PGlite${listening ? " with a live listener" : ""}` : "POST /notes";
console.log(`${walked} on ${values.router}: ${entered.size} files of src/ entered`);
for (const [file, functions] of [...entered].sort()) console.log(`  ${file}: ${functions.join(", ")}`);

/** Opens GET /tasks/changes and reads it in the background until aborted. */
async function listen(send: (request: Request) => Promise<Response>): Promise<AbortController> {
  const controller = new AbortController();
  const response = await send(new Request("http://127.0.0.1/tasks/changes", { signal: controller.signal }));
  if (response.status !== 200) throw new Error(`GET /tasks/changes answered ${response.status}`);
  const reader = response.body!.getReader();
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
  return controller;
}
