// Serves the API on http://127.0.0.1:8787 (HOST, PORT) over the PostgreSQL database at DATABASE_URL, in one
// process, or in N processes sharing the port with `--workers N` (or WORKERS=N).
import cluster, { type Worker } from "node:cluster";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { pgDriver } from "specroute";
import { lingeringClose } from "specroute/node";
import { app } from "./app";
import { migrate, openPool } from "./database";

/** Says what is wrong and exits: a configuration mistake is told, not thrown. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const hostname = process.env.HOST ?? "127.0.0.1";
const port = Number(process.env.PORT ?? 8787);
const url =
  process.env.DATABASE_URL ?? fail("Set DATABASE_URL, e.g. DATABASE_URL=postgres://user:password@127.0.0.1:5432/db");

function readWorkers(): number {
  let text: string;
  try {
    text = parseArgs({ options: { workers: { type: "string" } } }).values.workers ?? process.env.WORKERS ?? "1";
  } catch (error) {
    fail(`${(error as Error).message}\nUsage: server.ts [--workers N]`);
  }
  if (!/^[1-9]\d*$/.test(text)) fail(`--workers (or WORKERS) must be a positive integer, not "${text}"`);
  return Number(text);
}

/** Serves requests in this process until SIGINT or SIGTERM, then finishes those in flight and closes the pool. */
function serveRequests() {
  const pool = openPool(url);
  const env = { DB: pgDriver(pool) };
  // lingeringClose: a client refused while still sending its body reads the answer, not a reset connection.
  const server = lingeringClose(
    serve({ fetch: (request) => app.fetch(request, env), hostname, port }, (info) => {
      if (cluster.isPrimary) console.log(`API on http://${hostname}:${info.port}  (docs at /docs)`);
    }),
  );
  const stop = () => server.close(() => void pool.end().finally(() => process.exit(0)));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** The primary of `count` worker processes: replaces one that dies, passes SIGINT and SIGTERM on to them. */
function startWorkers(count: number) {
  let stopping = false;
  const listening = new WeakSet<Worker>();
  cluster.on("listening", (worker, address) => {
    if (!listening.has(worker)) console.log(`worker ${worker.process.pid} serving http://${hostname}:${address.port}`);
    listening.add(worker);
  });
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    const how = signal ?? `code ${code}`;
    // One that dies before it listens would die again: stop instead of restarting it forever.
    if (!listening.has(worker)) {
      console.error(`worker ${worker.process.pid} exited (${how}) before it listened: stopping`);
      process.exitCode = 1;
      return stop("SIGTERM");
    }
    console.error(`worker ${worker.process.pid} exited (${how}): starting another`);
    cluster.fork();
  });
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  for (let i = 0; i < count; i++) cluster.fork();
}

if (cluster.isWorker) {
  serveRequests();
} else {
  const workers = readWorkers();
  // The tables are created once, before any process serves.
  const pool = openPool(url, { max: 1 });
  await migrate(pool).catch((error: Error) => fail(`Could not prepare the database: ${error.message}`));
  await pool.end();
  if (workers === 1) serveRequests();
  else startWorkers(workers);
}
