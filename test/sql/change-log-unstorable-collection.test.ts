// Before the fix: SqlChangeLog keeps a collection as it is unless it ends in a space, is over 200
// characters or starts with sha256:, and notifies PostgreSQL listeners with the name as it is. Collections
// an app names from its input (sqlLiveStorage's own note: "collections an app names from its input")
// can hold NUL (a path parameter `%00`), which PostgreSQL's text refuses, and can be long: one over
// 8,000 bytes is stored hashed, but pg_notify refuses a payload that long. Either way the write throws
// (its transaction rolls back: a 500), though the same name records on SQLite and MariaDB.
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { betterSqlite3Driver } from "../../src";
import { mariadbDialect, mysql2Driver, pgDriver, SqlChangeLog, type SqlDriver } from "../../src/sql";

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

const engines: Array<{ name: string; skip?: string; open(): SqlDriver }> = [
  { name: "SQLite", open: () => betterSqlite3Driver(new Database(":memory:")) },
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
  describe.skipIf(engine.skip !== undefined)(`SqlChangeLog collections named from input (${engine.name})`, () => {
    const prefix = `attack-${randomUUID().slice(0, 8)}`;
    const names = {
      "holding NUL": `${prefix}-room\0`,
      "over 8,000 bytes": `${prefix}-${"r".repeat(8200)}`,
    };
    for (const [label, collection] of Object.entries(names)) {
      it(`a collection ${label} records and reads back apart from its neighbours`, async () => {
        const driver = engine.open();
        const log = new SqlChangeLog();
        await log.ready(driver);
        const row = { id: 1, name: label };
        await driver.transaction!((tx) => log.record(tx, collection, [{ kind: "created", row, before: null }]));
        const changes = await log.readAfter(driver, collection, 0, 10);
        expect(changes.map((change) => change.row)).toEqual([row]);
        expect(await log.readAfter(driver, `${prefix}-room`, 0, 10)).toEqual([]);
      });
    }
  });
}
