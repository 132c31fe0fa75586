// Serves the tasks API on Node: SQLite in data/tasks.db, docs pages from the installed packages.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { betterSqlite3Driver } from "specroute";
import { lingeringClose, nodeDocsAssets } from "specroute/node";
import { createApp } from "./app";
import { MIGRATIONS } from "./migrations";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const file = process.env.DB_FILE ?? "data/tasks.db";
const apiKey = process.env.API_KEY ?? "dev-key";

mkdirSync(dirname(file), { recursive: true });
const sqlite = new Database(file);
sqlite.pragma("journal_mode = WAL");
sqlite.pragma("foreign_keys = ON");
for (const statement of MIGRATIONS) sqlite.exec(statement);

const env = { DB: betterSqlite3Driver(sqlite), API_KEY: apiKey };
const { app } = createApp({ docsAssets: nodeDocsAssets() });

// lingeringClose: a client refused while still sending its body reads the answer, not a reset connection.
const server = lingeringClose(
  serve({ fetch: (request) => app.fetch(request, env), hostname: host, port }, (info) => {
    const base = `http://${host}:${info.port}`;
    console.log(`Tasks API on ${base}  (database: ${file}, API key for writes: ${apiKey})`);
    console.log(`  API         ${base}/projects`);
    console.log(`  Document    ${base}/openapi.json  ${base}/openapi.yaml`);
    console.log(`  Docs pages  ${base}/docs  ${base}/redocs  ${base}/scalar`);
  }),
);

let stopping = false;
function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  // Finish in-flight requests, then close SQLite so the WAL is checkpointed and nothing is lost.
  server.close(() => {
    sqlite.close();
    process.exit(0);
  });
  setTimeout(() => {
    sqlite.close();
    process.exit(0);
  }, 3000).unref();
}
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
