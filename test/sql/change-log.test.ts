import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { betterSqlite3Driver, mariadbDialect, mysql2Driver, mysqlDialect, pgDriver } from "../../src/sql";
import { describeChangeLogSuite } from "./change-log.case";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

describeChangeLogSuite({
  name: "better-sqlite3 (memory)",
  family: "sqlite",
  async connect() {
    const db = new Database(":memory:");
    return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
  },
});

describeChangeLogSuite({
  name: "better-sqlite3 (file)",
  family: "sqlite",
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "specroute-changes-"));
    const db = new Database(join(dir, "test.db"));
    db.pragma("journal_mode = WAL");
    return {
      driver: betterSqlite3Driver(db),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describeChangeLogSuite({
  name: "postgresql (pg)",
  family: "postgres",
  skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
  async connect() {
    // Writers and the reader each on their own connection, so they really run side by side.
    const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 10 }));
    return { driver, close: () => driver.close!() };
  },
});

for (const dialect of [mysqlDialect, mariadbDialect]) {
  describeChangeLogSuite({
    name: `mysql2 (${dialect.name} dialect)`,
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 10 }), { dialect });
      return { driver, close: () => driver.close!() };
    },
  });
}
