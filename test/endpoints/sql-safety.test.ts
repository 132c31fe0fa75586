import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { describe } from "vitest";
import { betterSqlite3Driver, mysql2Driver, pgDriver, pgliteDriver, type SqlDriver } from "../../src";
import type { Connection, Family } from "../sql/fixtures";
import { connectD1ThroughWorker } from "./d1";
import { sqlBackend } from "./sql-backend";
import { runSqlSafetySuite } from "./sql-safety.case";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

function engine(name: string, family: Family, connect: () => Promise<Connection>) {
  let driver: SqlDriver | undefined;
  const backend = sqlBackend(name, family, async () => {
    const connection = await connect();
    driver = connection.driver;
    return connection;
  });
  runSqlSafetySuite(backend, () => driver!);
}

engine("sqlite", "sqlite", async () => {
  const db = new Database(":memory:");
  return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
});
engine("d1 (miniflare)", "sqlite", connectD1ThroughWorker);
engine("pglite", "postgres", async () => {
  const db = new PGlite();
  return { driver: pgliteDriver(db), close: () => db.close() };
});
describe.skipIf(!pgUrl)("postgresql", () => {
  engine("postgresql", "postgres", async () => {
    const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 2 }));
    return { driver, close: () => driver.close!() };
  });
});
describe.skipIf(!mysqlUrl)("mariadb", () => {
  engine("mariadb", "mysql", async () => {
    const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 2 }));
    return { driver, close: () => driver.close!() };
  });
});
