// The server under test: `node lib/server-main.js <framework>`. Serves the framework's app with
// @hono/node-server on 127.0.0.1 (a free port, reported over IPC) and reports its own CPU time.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { TaskStore } from "../apps/shared/db.js";
import { BENCH_DIR, framework } from "./frameworks.js";

const fail = (err) => {
  process.send?.({ type: "error", error: String(err?.stack ?? err) });
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
// The runner is gone (even killed): nothing left to serve.
process.on("disconnect", () => process.exit(0));

const { module } = framework(process.argv[2]);
const { createApp } = await import(pathToFileURL(join(BENCH_DIR, module)).href);
const app = createApp({ store: new TaskStore() });

let mark = process.cpuUsage();
process.on("message", (message) => {
  if (message.type === "cpu-start") {
    mark = process.cpuUsage();
    process.send({ type: "cpu-started" });
  } else if (message.type === "cpu-stop") {
    const { user, system } = process.cpuUsage(mark);
    process.send({ type: "cpu", cpuMicros: user + system, rss: process.memoryUsage.rss() });
  }
});

// Both Hono apps and the itty-router wrapper expose `fetch` as a bound function.
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send({ type: "ready", port: info.port });
});
