// A server of the operations case: `node lib/ops-server-main.js <variant>`, one of ROUTES' names. The same
// create route (`POST /orders`, a SqlCreateEndpoint on SQLite through better-sqlite3, in memory) with
// nothing more, behind an API key, with a rate limit (memory or SQL store, a limit never reached, counted by
// the client's address or by the API key's client) or with idempotency keys (SQL store in the same
// database); served with @hono/node-server on 127.0.0.1 (a free port, reported over IPC). On request it
// reports its own CPU time around a sample, the rows created and the rate limit buckets its SQL store holds.
// Whichever specroute build the process loads (lib/builds.js) serves it: every option used here exists in
// the builds compared.
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import {
  apiKeyAuth,
  betterSqlite3Driver,
  fromHono,
  idempotency,
  memoryRateLimitStore,
  rateLimit,
  SqlCreateEndpoint,
  sqlIdempotencyStore,
  sqlRateLimitStore,
} from "specroute";
import { z } from "zod";

const fail = (err) => {
  process.send?.({ type: "error", error: String(err?.stack ?? err) });
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
process.on("disconnect", () => process.exit(0));

const sqlite = new Database(":memory:");
sqlite.exec(
  "CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL, quantity INTEGER NOT NULL)",
);
const db = betterSqlite3Driver(sqlite);

// The one key lib/cases/ops.js sends (X-API-Key: bench-key).
const clients = new Map([["bench-key", { client: "bench-client" }]]);
const apiKey = apiKeyAuth({ in: "header", name: "X-API-Key", verify: (key) => clients.get(key) ?? null });
const byClient = ({ principal }) => principal.client;

// Never reached in a run: the limit's cost is its count, not its refusals.
const limited = (store, key) => rateLimit({ name: "bench", limit: 1_000_000_000, windowSeconds: 60, store, key });

const ROUTES = {
  plain: () => ({}),
  keyed: () => ({ auth: apiKey }),
  "limited-memory": () => ({ rateLimit: limited(memoryRateLimitStore()) }),
  "limited-memory-key": () => ({ auth: apiKey, rateLimit: limited(memoryRateLimitStore(), byClient) }),
  "limited-sql": () => ({ rateLimit: limited(sqlRateLimitStore(db)) }),
  "limited-sql-key": () => ({ auth: apiKey, rateLimit: limited(sqlRateLimitStore(db), byClient) }),
  "idempotent-sql": () => ({ idempotency: idempotency({ store: sqlIdempotencyStore(db) }) }),
  "idempotent-sql-key": () => ({ auth: apiKey, idempotency: idempotency({ store: sqlIdempotencyStore(db) }) }),
};
const variant = process.argv[2];
if (!Object.hasOwn(ROUTES, variant)) throw new Error(`unknown variant ${variant}`);
const extra = ROUTES[variant]();

const Order = z.object({ id: z.number().int(), item: z.string().min(1), quantity: z.number().int().min(1) });

class CreateOrder extends SqlCreateEndpoint {
  _meta = { model: { tableName: "orders", schema: Order, primaryKeys: ["id"] }, fields: Order.omit({ id: true }) };
  schema = { ...extra };
}

const app = new Hono();
fromHono(app, { db }).post("/orders", CreateOrder);

/** The buckets sqlRateLimitStore holds (its table is made on the first hit): how the policy named them. */
function buckets() {
  const made = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'specroute_rate_limits'").get();
  return made ? sqlite.prepare("SELECT bucket FROM specroute_rate_limits ORDER BY bucket").pluck().all() : [];
}

let mark = process.cpuUsage();
process.on("message", (message) => {
  if (message.type === "cpu-start") {
    mark = process.cpuUsage();
    process.send({ type: "cpu-started" });
  } else if (message.type === "cpu-stop") {
    const { user, system } = process.cpuUsage(mark);
    const rows = sqlite.prepare("SELECT COUNT(*) AS n FROM orders").get().n;
    process.send({ type: "cpu", cpuMicros: user + system, rss: process.memoryUsage.rss(), rows, buckets: buckets() });
  }
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send({ type: "ready", port: info.port });
});
