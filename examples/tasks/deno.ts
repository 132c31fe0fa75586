// Serves the tasks API on Deno with its own server, from the repository root:
//   deno run --config examples/tasks/deno.json --allow-net --allow-env --allow-read --allow-write --allow-ffi examples/tasks/deno.ts
// SQLite through node:sqlite in data/tasks.db (DB_FILE), or PostgreSQL when DATABASE_URL is set; HOST, PORT
// and API_KEY as for server.ts.
import { nodeDocsAssets } from "specroute/node";
import { createApp } from "./app";
import { databaseConfig, describeDatabase, migrate, openDatabase } from "./database";

// Deno's global, in the little this file uses (the repository type-checks against Node's types).
declare const Deno: {
  version: { deno: string };
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request, info: { remoteAddr: unknown }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};

const host = process.env.HOST ?? "127.0.0.1";
const apiKey = process.env.API_KEY ?? "dev-key";
const database = databaseConfig(process.env);

await migrate(database);
const db = openDatabase(database);
const env = { DB: db, API_KEY: apiKey };
const { app } = createApp({ docsAssets: nodeDocsAssets() });

const server = Deno.serve(
  {
    hostname: host,
    port: Number(process.env.PORT ?? 8787),
    onListen({ port }) {
      const base = `http://${host}:${port}`;
      console.log(`Tasks API on ${base}  (Deno ${Deno.version.deno}, ${describeDatabase(database)})`);
      console.log(`  Docs pages  ${base}/docs  ${base}/redocs  ${base}/scalar`);
    },
  },
  // The connection's remoteAddr goes with the bindings: it is the client's address.
  (request, { remoteAddr }) => app.fetch(request, { ...env, remoteAddr }),
);

// Finishes the requests in flight, then closes the database (SQLite checkpoints its WAL).
const stop = async () => {
  await server.shutdown();
  await db.close!();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
