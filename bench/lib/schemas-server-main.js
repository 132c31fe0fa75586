// A server of the schema-library case: `node lib/schemas-server-main.js <zod|valibot|arktype>`. Imports
// apps/schemas-<id>.js, builds the app, and serves it with @hono/node-server on 127.0.0.1 (a free port,
// reported over IPC with the time from process start to the built app). On request it times the first
// `GET /openapi.json` in-process (before any other request: specroute builds the document, and compiles
// the routes, on first use) and reports its own CPU time around a sample.
import { serve } from "@hono/node-server";

const fail = (err) => {
  process.send?.({ type: "error", error: String(err?.stack ?? err) });
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
// The runner is gone (even killed): nothing left to serve.
process.on("disconnect", () => process.exit(0));

const id = process.argv[2];
if (!["zod", "valibot", "arktype"].includes(id)) throw new Error(`unknown schema app ${id}`);
const { createApp } = await import(`../apps/schemas-${id}.js`);
const app = createApp();
const builtMs = performance.now();

let mark = process.cpuUsage();
process.on("message", async (message) => {
  if (message.type === "document") {
    // Node loads its fetch classes on their first use: load them before the timer, as the document case does.
    await new Response(new Request("http://localhost/", { method: "POST", body: "{}" }).body).text();
    const start = performance.now();
    const response = await app.request("/openapi.json");
    const text = await response.text();
    const ms = performance.now() - start;
    // The repeat: the median of 21 more (the document is kept once built).
    const repeats = [];
    for (let i = 0; i < 21; i++) {
      const repeatStart = performance.now();
      await (await app.request("/openapi.json")).text();
      repeats.push(performance.now() - repeatStart);
    }
    const repeatMs = repeats.sort((a, b) => a - b)[10];
    const operations = Object.values(JSON.parse(text).paths ?? {}).reduce((n, ops) => n + Object.keys(ops).length, 0);
    process.send({ type: "document", status: response.status, ms, repeatMs, bytes: text.length, operations });
  } else if (message.type === "cpu-start") {
    mark = process.cpuUsage();
    process.send({ type: "cpu-started" });
  } else if (message.type === "cpu-stop") {
    const { user, system } = process.cpuUsage(mark);
    process.send({ type: "cpu", cpuMicros: user + system, rss: process.memoryUsage.rss() });
  }
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send({ type: "ready", port: info.port, builtMs });
});
