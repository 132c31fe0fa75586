// Serves the tasks API on Node: SQLite in data/tasks.db, or PostgreSQL when DATABASE_URL is set; in one
// process, or in N worker processes sharing one port (`--workers N` or WORKERS=N, PostgreSQL only).
import cluster, { type Worker } from "node:cluster";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { lingeringClose, nodeDocsAssets } from "specroute/node";
import { createApp } from "./app";
import { type DatabaseConfig, databaseConfig, describeDatabase, migrate, openDatabase } from "./database";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const apiKey = process.env.API_KEY ?? "dev-key";

/** How long a stopping process waits for requests in flight before it exits anyway. */
const STOP_GRACE_MS = 3000;

/** Prints `message` and exits with status 1: configuration mistakes are told, not thrown. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function readWorkers(): number {
  let flag: string | undefined;
  try {
    flag = parseArgs({ options: { workers: { type: "string" } } }).values.workers;
  } catch (error) {
    fail(`${(error as Error).message}\nUsage: server.ts [--workers N]`);
  }
  const text = flag ?? process.env.WORKERS ?? "1";
  const workers = Number(text);
  if (!/^\d+$/.test(text) || workers < 1) fail(`--workers (or WORKERS) must be a positive integer, not "${text}"`);
  return workers;
}

function readDatabase(): DatabaseConfig {
  try {
    return databaseConfig(process.env);
  } catch (error) {
    fail((error as Error).message);
  }
}

function printBanner(listeningPort: number, database: DatabaseConfig, workers: number) {
  const base = `http://${host}:${listeningPort}`;
  const processes = workers > 1 ? `, ${workers} worker processes` : "";
  console.log(`Tasks API on ${base}  (${describeDatabase(database)}${processes}, API key for writes: ${apiKey})`);
  console.log(`  API         ${base}/projects`);
  console.log(`  Document    ${base}/openapi.json  ${base}/openapi.yaml`);
  console.log(`  Docs pages  ${base}/docs  ${base}/redocs  ${base}/scalar`);
  console.log(`  MCP         ${base}/mcp`);
}

/** Serves requests in this process until SIGINT or SIGTERM, then finishes what is in flight and closes the database. */
function serveRequests(database: DatabaseConfig, onListening: (port: number) => void) {
  const db = openDatabase(database);
  const env = { DB: db, API_KEY: apiKey };
  const { app } = createApp({ docsAssets: nodeDocsAssets() });

  // lingeringClose: a client refused while still sending its body reads the answer, not a reset connection.
  // The Node request (`incoming`) goes with the bindings: the client's address is its socket's.
  const server = lingeringClose(
    serve(
      { fetch: (request, { incoming }) => app.fetch(request, { ...env, incoming }), hostname: host, port },
      (info) => onListening(info.port),
    ),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (cluster.isPrimary) console.log(`${signal}: stopping`);
    // Closing the database checkpoints SQLite's WAL, or ends the PostgreSQL pool's connections.
    let closing = false;
    const exit = () => {
      if (closing) return;
      closing = true;
      void db.close!().finally(() => process.exit(0));
    };
    server.close(exit);
    setTimeout(exit, STOP_GRACE_MS).unref();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/**
 * The cluster's primary: starts `count` workers that share the port, replaces one that dies while
 * serving, and on SIGINT/SIGTERM passes the signal on and replaces none.
 */
function startWorkers(count: number, database: DatabaseConfig) {
  let stopping = false;
  let exitStatus = 0;
  let bannerShown = false;
  const listened = new WeakSet<Worker>();

  cluster.on("listening", (worker, address) => {
    listened.add(worker);
    if (!bannerShown) printBanner(address.port, database, count);
    bannerShown = true;
    console.log(`  worker ${worker.process.pid} listening`);
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitStatus);
      return;
    }
    const how = signal ?? `code ${code}`;
    // A worker that dies before it listens would die again: stop rather than restart it in a loop.
    if (!listened.has(worker)) {
      console.error(`worker ${worker.process.pid} exited (${how}) before it listened: stopping`);
      stop("SIGTERM", 1);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${how}): starting another`);
    cluster.fork();
  });

  const stop = (signal: NodeJS.Signals, status = 0) => {
    if (stopping) return;
    stopping = true;
    exitStatus = status;
    const running = Object.values(cluster.workers ?? {});
    console.log(`${signal}: stopping ${running.length} workers`);
    for (const worker of running) worker?.process.kill(signal);
    if (running.length === 0) process.exit(status);
    setTimeout(() => process.exit(status), STOP_GRACE_MS + 1000).unref();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  for (let i = 0; i < count; i++) cluster.fork();
}

const workers = readWorkers();
const database = readDatabase();

if (cluster.isWorker) {
  // Workers read the same settings; the primary has already migrated the database.
  serveRequests(database, () => {});
} else {
  if (workers > 1 && database.kind === "sqlite") {
    fail(
      `--workers ${workers} needs PostgreSQL: set DATABASE_URL=postgres://… (SQLite is served by one process; see docs/scaling.md)`,
    );
  }
  try {
    await migrate(database);
  } catch (error) {
    fail(`Could not prepare the database (${describeDatabase(database)}): ${(error as Error).message}`);
  }
  if (workers === 1) serveRequests(database, (listeningPort) => printBanner(listeningPort, database, 1));
  else startWorkers(workers, database);
}
