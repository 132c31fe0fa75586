// Serves the tasks API on Bun with its own server: `bun examples/tasks/bun.ts`. SQLite through bun:sqlite in
// data/tasks.db (DB_FILE), or PostgreSQL when DATABASE_URL is set; HOST, PORT and API_KEY as for server.ts.
import { nodeDocsAssets } from "specroute/node";
import { createApp } from "./app";
import { databaseConfig, describeDatabase, migrate, openDatabase } from "./database";

// Bun's global, in the little this file uses (the repository type-checks against Node's types).
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request, server: unknown): Response | Promise<Response>;
  }): { port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

const host = process.env.HOST ?? "127.0.0.1";
const apiKey = process.env.API_KEY ?? "dev-key";
const database = databaseConfig(process.env);

await migrate(database);
const db = openDatabase(database);
const env = { DB: db, API_KEY: apiKey };
const { app } = createApp({ docsAssets: nodeDocsAssets() });

const server = Bun.serve({
  hostname: host,
  port: Number(process.env.PORT ?? 8787),
  // The server goes with the bindings: the client's address is its requestIP(request).
  fetch: (request, server) => app.fetch(request, { ...env, server }),
});
const base = `http://${host}:${server.port}`;
console.log(`Tasks API on ${base}  (Bun ${process.versions.bun}, ${describeDatabase(database)})`);
console.log(`  Docs pages  ${base}/docs  ${base}/redocs  ${base}/scalar`);

// Finishes the requests in flight, then closes the database (SQLite checkpoints its WAL).
const stop = async () => {
  await server.stop();
  await db.close!();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
