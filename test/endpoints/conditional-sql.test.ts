import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, mysql2Driver, pgDriver, pgliteDriver, SqlTable } from "../../src";
import { InvalidIdentifierError, mariadbDialect } from "../../src/sql";
import { harnesses, honoHarness } from "../helpers";
import type { EngineUnderTest } from "../sql/fixtures";
import { runConditionalSuite } from "./conditional.case";
import { connectD1ThroughWorker } from "./d1";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

const engines: EngineUnderTest[] = [
  {
    name: "sqlite",
    family: "sqlite",
    async connect() {
      const db = new Database(":memory:");
      return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
    },
  },
  { name: "d1 (miniflare)", family: "sqlite", connect: connectD1ThroughWorker },
  {
    name: "pglite",
    family: "postgres",
    async connect() {
      const db = new PGlite();
      return { driver: pgliteDriver(db), close: () => db.close() };
    },
  },
  {
    name: "postgresql",
    family: "postgres",
    skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
    async connect() {
      // Several connections, so the concurrent writers really run side by side.
      const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 8 }));
      return { driver, close: () => driver.close!() };
    },
  },
  {
    name: "mariadb",
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 8 }));
      return { driver, close: () => driver.close!() };
    },
  },
  {
    name: "mariadb (returning)",
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 8 }), { dialect: mariadbDialect });
      return { driver, close: () => driver.close!() };
    },
  },
];

for (const engine of engines) {
  for (const versioned of [true, false]) runConditionalSuite(honoHarness, engine, versioned);
}
// The other adapter reads the same headers and answers the same statuses.
for (const harness of harnesses.filter((one) => one !== honoHarness)) runConditionalSuite(harness, engines[0]!, false);

describe("versionField is checked when the table is built", () => {
  const Row = z.object({ id: z.number().int(), title: z.string(), version: z.number().int() });
  it("refuses a column that is missing, not an integer, or a primary key", () => {
    for (const versionField of ["missing", "title", "id"]) {
      expect(
        () => new SqlTable({ tableName: "t", schema: Row, primaryKeys: ["id"], versionField }),
        versionField,
      ).toThrow(InvalidIdentifierError);
    }
    expect(
      new SqlTable({ tableName: "t", schema: Row, primaryKeys: ["id"], versionField: "version" }).versionField,
    ).toBe("version");
  });
});
