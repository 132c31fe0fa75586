// Serves the API on http://127.0.0.1:8787 (HOST, PORT), with its data in data/app.db (DB_FILE).
import { serve } from "@hono/node-server";
import { lingeringClose } from "specroute/node";
import { app } from "./app";
import { openDatabase } from "./database";

const hostname = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const db = openDatabase(process.env.DB_FILE ?? "data/app.db");

// lingeringClose: a client refused while still sending its body reads the answer, not a reset connection.
const server = lingeringClose(
  serve({ fetch: (request) => app.fetch(request, { DB: db }), hostname, port }, (info) => {
    console.log(`API on http://${hostname}:${info.port}  (docs at /docs, document at /openapi.json)`);
  }),
);

/** Finishes the requests in flight, then closes the database. */
function stop() {
  server.close(() => void db.close?.().finally(() => process.exit(0)));
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
