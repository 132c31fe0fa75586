// A server of the live case: `node lib/live-server-main.js <specroute|baseline>`, its app
// (apps/live-<id>.js) on PostgreSQL (SPECROUTE_PG_URL, table LIVE_TABLE, channel LIVE_CHANNEL), served
// by @hono/node-server on 127.0.0.1 (a free port, reported over IPC with the app's listener bounds, if it
// has any); reports its own CPU time.
import { serve } from "@hono/node-server";
import pg from "pg";

const fail = (err) => {
  process.send?.({ type: "error", error: String(err?.stack ?? err) });
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
// The runner is gone (even killed): nothing left to serve.
process.on("disconnect", () => process.exit(0));

const id = process.argv[2];
if (id !== "specroute" && id !== "baseline") throw new Error(`unknown live server ${id}`);
const { createLiveApp } = await import(`../apps/live-${id}.js`);
const connectionString = process.env.SPECROUTE_PG_URL;
const pool = new pg.Pool({ connectionString, max: 10 });
const { app, close, listenerBounds } = await createLiveApp({
  pool,
  connectionString,
  table: process.env.LIVE_TABLE,
  channel: process.env.LIVE_CHANNEL,
});

let mark = process.cpuUsage();
process.on("message", (message) => {
  if (message.type === "cpu-start") {
    mark = process.cpuUsage();
    process.send({ type: "cpu-started" });
  } else if (message.type === "cpu-stop") {
    const { user, system } = process.cpuUsage(mark);
    process.send({ type: "cpu", cpuMicros: user + system, rss: process.memoryUsage.rss() });
  } else if (message.type === "stop") {
    // Open streams would hold the server open: leave once the database connections are closed.
    server.close();
    Promise.allSettled([close(), pool.end()]).finally(() => process.exit(0));
  }
});

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send({ type: "ready", port: info.port, listenerBounds });
});
