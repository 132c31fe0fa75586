// Which of specroute's files one POST enters, from the adapter to handle() and back: V8's precise
// coverage counts every function called while one request runs (after warm-up requests, so nothing
// compiled on first use is counted). `npm run walk`; `--router itty` for itty-router.
import { once } from "node:events";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { z } from "zod";
import { apiKeyAuth, contentJson, fromHono, fromIttyRouter, OpenAPIRoute } from "../src/index";

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

const { values } = parseArgs({ options: { router: { type: "string", default: "hono" } } });
const root = fileURLToPath(new URL("../src/", import.meta.url));

/** One POST /notes; a wrong answer stops the script, since a walk of a failing request says nothing. */
async function post(send: (request: Request) => Promise<Response>): Promise<void> {
  const response = await send(
    new Request("http://127.0.0.1/notes", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({ title: "walk" }),
    }),
  );
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /notes answered ${response.status}: ${text}`);
}

async function sender(): Promise<{ send: (request: Request) => Promise<Response>; close: () => void }> {
  if (values.router === "itty") {
    const router = fromIttyRouter(AutoRouter());
    router.post("/notes", CreateNote);
    return { send: (request) => router.fetch(request), close: () => {} };
  }
  const app = new Hono();
  fromHono(app).post("/notes", CreateNote);
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
        body: await request.text(),
      }),
    close: () => server.close(),
  };
}

const { send, close } = await sender();
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
for (let i = 0; i < 20; i++) await post(send);
// Taking the coverage resets the counts: what the next take reports is the one request alone.
await session.post("Profiler.takePreciseCoverage");
await post(send);
const { result } = await session.post("Profiler.takePreciseCoverage");
close();

const entered = new Map<string, string[]>();
for (const script of result) {
  if (!script.url.startsWith("file://")) continue;
  const path = fileURLToPath(script.url);
  if (!path.startsWith(root)) continue;
  const called = script.functions.filter((fn) => fn.ranges[0]!.count > 0).map((fn) => fn.functionName || "(anonymous)");
  if (called.length > 0) entered.set(relative(root, path), [...new Set(called)]);
}
console.log(`POST /notes on ${values.router}: ${entered.size} files of src/ entered`);
for (const [file, functions] of [...entered].sort()) console.log(`  ${file}: ${functions.join(", ")}`);
