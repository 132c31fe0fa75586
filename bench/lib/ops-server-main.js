// A server of the operations case: `node lib/ops-server-main.js <plain|limited-memory|limited-sql|idempotent-sql>`.
// The same create route (`POST /orders`, a SqlCreateEndpoint on SQLite through better-sqlite3, in memory)
// with nothing more, a rate limit (memory or SQL store, a limit never reached) or idempotency keys (SQL
// store in the same database); served with @hono/node-server on 127.0.0.1 (a free port, reported over
// IPC). On request it reports its own CPU time around a sample.
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import {
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

const VARIANTS = ["plain", "limited-memory", "limited-sql", "idempotent-sql"];
const variant = process.argv[2];
if (!VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}`);

const sqlite = new Database(":memory:");
sqlite.exec(
  "CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL, quantity INTEGER NOT NULL)",
);
const db = betterSqlite3Driver(sqlite);

// Never reached in a run: the limit's cost is its count, not its refusals.
const NEVER = { limit: 1_000_000_000, windowSeconds: 60 };
const extra = {
  plain: {},
  "limited-memory": { rateLimit: rateLimit({ name: "bench", ...NEVER, store: memoryRateLimitStore() }) },
  "limited-sql": { rateLimit: rateLimit({ name: "bench", ...NEVER, store: sqlRateLimitStore(db) }) },
  "idempotent-sql": { idempotency: idempotency({ store: sqlIdempotencyStore(db) }) },
}[variant];

const Order = z.object({ id: z.number().int(), item: z.string().min(1), quantity: z.number().int().min(1) });

class CreateOrder extends SqlCreateEndpoint {
  _meta = { model: { tableName: "orders", schema: Order, primaryKeys: ["id"] }, fields: Order.omit({ id: true }) };
  schema = { ...extra };
}

const app = new Hono();
fromHono(app, { db }).post("/orders", CreateOrder);

let mark = process.cpuUsage();
process.on("message", (message) => {
  if (message.type === "cpu-start") {
    mark = process.cpuUsage();
    process.send({ type: "cpu-started" });
  } else if (message.type === "cpu-stop") {
    const { user, system } = process.cpuUsage(mark);
    const rows = sqlite.prepare("SELECT COUNT(*) AS n FROM orders").get().n;
    process.send({ type: "cpu", cpuMicros: user + system, rss: process.memoryUsage.rss(), rows });
  }
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send({ type: "ready", port: info.port });
});
