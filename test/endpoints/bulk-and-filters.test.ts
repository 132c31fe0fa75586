import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { betterSqlite3Driver, mysql2Driver, pgDriver, pgliteDriver } from "../../src";
import { mariadbDialect } from "../../src/sql";
import { harnesses } from "../helpers";
import { describeBulkSuite } from "./bulk-and-filters.case";
import { connectD1ThroughWorker } from "./d1";

// Bulk create and typed filters on every engine, with each way a driver can hold a connection:
// one shared connection (better-sqlite3, a pg Client, a mysql2 Connection), a pool, PGlite, D1's batch.
const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

describeBulkSuite(
  {
    name: "sqlite (better-sqlite3)",
    family: "sqlite",
    async connect() {
      const db = new Database(":memory:");
      return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
    },
  },
  harnesses,
);
describeBulkSuite({ name: "d1 (miniflare)", family: "sqlite", connect: connectD1ThroughWorker }, harnesses);
describeBulkSuite(
  {
    name: "pglite",
    family: "postgres",
    async connect() {
      const db = new PGlite();
      return { driver: pgliteDriver(db), close: () => db.close() };
    },
  },
  harnesses,
);
describeBulkSuite(
  {
    name: "postgresql (pool)",
    family: "postgres",
    skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
    async connect() {
      const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 3 }));
      return { driver, close: () => driver.close!() };
    },
  },
  harnesses,
);
describeBulkSuite(
  {
    name: "postgresql (one client)",
    family: "postgres",
    skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
    async connect() {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      const driver = pgDriver(client);
      return { driver, close: () => driver.close!() };
    },
  },
  harnesses.slice(0, 1),
);
describeBulkSuite(
  {
    // mysqlDialect: no RETURNING, so each row is read back by its LAST_INSERT_ID inside the transaction.
    name: "mariadb (pool, mysql dialect)",
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 3 }));
      return { driver, close: () => driver.close!() };
    },
  },
  harnesses,
);
describeBulkSuite(
  {
    name: "mariadb (one connection, mariadb dialect)",
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(await mysql.createConnection({ uri: mysqlUrl }), { dialect: mariadbDialect });
      return { driver, close: () => driver.close!() };
    },
  },
  harnesses.slice(0, 1),
);
