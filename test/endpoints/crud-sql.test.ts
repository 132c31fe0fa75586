import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe } from "vitest";
import { betterSqlite3Driver, mysql2Driver, pgDriver, pgliteDriver } from "../../src";
import { harnesses } from "../helpers";
import { runCrudSuite } from "./crud.case";
import { connectD1ThroughWorker } from "./d1";
import { sqlBackend } from "./sql-backend";

// The same CRUD suite as the in-memory store, unchanged, on each real engine and both adapters.
const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

for (const harness of harnesses) {
  runCrudSuite(
    harness,
    sqlBackend("sqlite", "sqlite", async () => {
      const db = new Database(":memory:");
      return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
    }),
  );
  runCrudSuite(harness, sqlBackend("d1 (miniflare)", "sqlite", connectD1ThroughWorker));
  runCrudSuite(
    harness,
    sqlBackend("pglite", "postgres", async () => {
      const db = new PGlite();
      return { driver: pgliteDriver(db), close: () => db.close() };
    }),
  );
  describe.skipIf(!pgUrl)(`postgresql (${pgUrl ? "SPECROUTE_PG_URL" : "SPECROUTE_PG_URL unset: skipped"})`, () => {
    runCrudSuite(
      harness,
      sqlBackend("postgresql", "postgres", async () => {
        const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 4 }));
        return { driver, close: () => driver.close!() };
      }),
    );
  });
  describe.skipIf(!mysqlUrl)(
    `mariadb (${mysqlUrl ? "SPECROUTE_MYSQL_URL" : "SPECROUTE_MYSQL_URL unset: skipped"})`,
    () => {
      runCrudSuite(
        harness,
        sqlBackend("mariadb", "mysql", async () => {
          const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 }));
          return { driver, close: () => driver.close!() };
        }),
      );
    },
  );
}
