// Serves the API on http://127.0.0.1:8787 (HOST, PORT), with its data in data/app.db (DB_FILE).
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { app } from "./app";
import { openDatabase } from "./database";

const file = process.env.DB_FILE ?? "data/app.db";
mkdirSync(dirname(file), { recursive: true });
const db = openDatabase(file);

const server = Bun.serve({
  hostname: process.env.HOST ?? "127.0.0.1",
  port: Number(process.env.PORT ?? 8787),
  fetch: (request) => app.fetch(request, { DB: db }),
});
console.log(`API on ${server.url}  (docs at /docs, document at /openapi.json)`);
