// Before the fix: sqlRateLimitStore keeps a bucket as it is unless it is long or ends in a space. A key
// holding NUL (`?account=a%00`, a query parameter an app keys its limit by) is stored as it is, and
// PostgreSQL's text cannot hold NUL: every such request is a 500 instead of being counted (a client
// turns the limit into an error page at will; a limited route becomes unreachable for that key).
import Database from "better-sqlite3";
import { Hono } from "hono";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { betterSqlite3Driver, fromHono, OpenAPIRoute, rateLimit } from "../../src";
import { mariadbDialect, mysql2Driver, pgDriver, type SqlDriver, sqlRateLimitStore } from "../../src/sql";

class Ping extends OpenAPIRoute {
  schema = { responses: { "200": { description: "pong" } } };
  handle() {
    return { pong: true };
  }
}

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

const engines: Array<{ name: string; skip?: string; open(): SqlDriver }> = [
  {
    name: "SQLite",
    open: () => betterSqlite3Driver(new Database(":memory:")),
  },
  {
    name: "PostgreSQL",
    skip: process.env.SPECROUTE_PG_URL ? undefined : "SPECROUTE_PG_URL is not set",
    open() {
      const pool = new pg.Pool({ connectionString: process.env.SPECROUTE_PG_URL, max: 2 });
      closers.push(() => pool.end());
      return pgDriver(pool);
    },
  },
  {
    name: "MariaDB",
    skip: process.env.SPECROUTE_MYSQL_URL ? undefined : "SPECROUTE_MYSQL_URL is not set",
    open() {
      const pool = mysql.createPool({ uri: process.env.SPECROUTE_MYSQL_URL, connectionLimit: 2 });
      const driver = mysql2Driver(pool, { dialect: mariadbDialect });
      closers.push(async () => driver.close!());
      return driver;
    },
  },
];

for (const engine of engines) {
  describe.skipIf(engine.skip !== undefined)(`a rate limit key holding NUL (${engine.name})`, () => {
    it("is counted like any other key, apart from the key without it: never a 500", async () => {
      const store = sqlRateLimitStore(engine.open());
      const name = `nul${Date.now()}${Math.floor(Math.random() * 1e6)}`;
      const policy = rateLimit({
        name,
        limit: 1,
        windowSeconds: 60,
        key: ({ request }) => new URL(request.url).searchParams.get("account") ?? undefined,
        store,
      });
      const router = fromHono(new Hono(), { rateLimit: policy });
      router.get("/ping", Ping);
      const send = (account: string) => router.fetch(new Request(`http://localhost/ping?account=${account}`));

      expect((await send("a%00")).status).toBe(200);
      expect((await send("a%00")).status).toBe(429);
      // The account without the NUL has a bucket of its own.
      expect((await send("a")).status).toBe(200);
    });
  });
}
