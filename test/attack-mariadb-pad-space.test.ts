import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { basicAuth, fromHono, OpenAPIRoute, rateLimit, SqlChangeLog, sqlRateLimitStore } from "../src";
import { mariadbDialect, mysql2Driver, type SqlDriver } from "../src/sql";
import { listenOnLoopback } from "./helpers";

// TableSyntax.keyText (src/sql/dialect.ts, issue #45) promises "Text in a primary key, compared exactly:
// case, accents and trailing spaces count". On MySQL/MariaDB it is `VARCHAR(255) ... COLLATE utf8mb4_bin`,
// a PAD SPACE collation: 'ada' = 'ada ' there. The rate limit store and the change log key their rows by it.

const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;
const run = mysqlUrl ? describe : describe.skip;

run("MariaDB: keys that differ only by trailing spaces (PAD SPACE in utf8mb4_bin)", () => {
  let pool: mysql.Pool;
  let driver: SqlDriver;
  beforeAll(() => {
    pool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 });
    driver = mysql2Driver(pool, { dialect: mariadbDialect });
  });
  afterAll(() => pool?.end());

  it("a user named 'ada ' spends the rate limit of the user 'ada' (over HTTP, keyed by principal as docs/operations.md shows)", async () => {
    const ada = `ada${process.pid}`;
    // Two distinct accounts: the attacker signed up with a name that ends in a space.
    const users = new Map([
      [ada, { id: ada, password: "ada-secret" }],
      [`${ada} `, { id: `${ada} `, password: "attacker-secret" }],
    ]);
    const auth = basicAuth({
      verify: ({ username, password }) => {
        const user = users.get(username);
        return user && user.password === password ? { id: user.id } : null;
      },
    });
    const perUser = rateLimit({
      name: `pad${process.pid}`,
      limit: 3,
      windowSeconds: 3600,
      key: ({ principal }) => (principal as { id: string }).id,
      store: sqlRateLimitStore(driver),
    });
    class Me extends OpenAPIRoute {
      schema = { auth, rateLimit: perUser, responses: { "200": { description: "me" } } };
      handle() {
        return { ok: true };
      }
    }
    const app = new Hono();
    fromHono(app).get("/me", Me);
    const server = await listenOnLoopback(app.fetch);
    const basic = (user: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
    });
    try {
      // The attacker spends their own three requests...
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${server.origin}/me`, { headers: basic(`${ada} `, "attacker-secret") });
        expect(answer.status).toBe(200);
      }
      // ...and ada, who has sent nothing, must still have her own three.
      const first = await fetch(`${server.origin}/me`, { headers: basic(ada, "ada-secret") });
      expect(first.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("a change recorded in collection 'room ' is read back by a reader of collection 'room' (SqlChangeLog)", async () => {
    const room = `room${process.pid}`;
    const log = new SqlChangeLog();
    await log.ready(driver);
    await driver.execute("DELETE FROM specroute_changes WHERE collection LIKE ?", [`${room}%`]);
    await driver.execute("DELETE FROM specroute_change_heads WHERE collection LIKE ?", [`${room}%`]);
    await driver.transaction!((tx) =>
      log.record(tx, `${room} `, [{ kind: "created", row: { secret: "written to the other room" }, before: null }]),
    );
    // Nothing was ever recorded in `room` itself.
    expect(await log.readAfter(driver, room, 0, 10)).toEqual([]);
    expect(await log.bounds(driver, room)).toEqual({ oldest: 0, newest: 0 });
  });
});
