// One process of the multi-process live-collection suite: the tasks API of tasks-app.ts on PostgreSQL
// (SPECROUTE_PG_URL, table LIVE_TABLE), served on an ephemeral 127.0.0.1 port it prints.
import { serve } from "@hono/node-server";
import pg from "pg";
import { pgDriver } from "../../src";
import { tasksApp } from "./tasks-app";

const pool = new pg.Pool({ connectionString: process.env.SPECROUTE_PG_URL, max: 4 });
const { app } = tasksApp(pgDriver(pool), process.env.LIVE_TABLE ?? "live_tasks");
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});

process.on("SIGTERM", () => {
  // Open streams would hold the server open: the process leaves once the pool is closed.
  server.close();
  void pool.end().finally(() => process.exit(0));
});
