import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { betterSqlite3Driver } from "../../src";
import { mariadbDialect, mysql2Driver, pgDriver, type SqlDriver } from "../../src/sql";

/** One SQL engine a store is tested on: skipped (with why) when its URL is unset. */
export interface StoreEngine {
  name: string;
  skip?: string;
  open(): Promise<{ driver: SqlDriver; close(): Promise<void> }>;
}

/**
 * SQLite in memory, and PostgreSQL and MariaDB at SPECROUTE_PG_URL / SPECROUTE_MYSQL_URL, each opened with
 * the store's `table` dropped so a run starts from none (the store creates it).
 */
export function storeEngines(table: string, connections: number): StoreEngine[] {
  const pgUrl = process.env.SPECROUTE_PG_URL;
  const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;
  return [
    {
      name: "SQLite",
      async open() {
        const db = new Database(":memory:");
        return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
      },
    },
    {
      name: "PostgreSQL",
      skip: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
      async open() {
        const pool = new pg.Pool({ connectionString: pgUrl, max: connections });
        const driver = pgDriver(pool);
        await driver.execute(`DROP TABLE IF EXISTS ${table}`, []);
        return { driver, close: () => pool.end() };
      },
    },
    {
      name: "MariaDB",
      skip: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
      async open() {
        const pool = mysql.createPool({ uri: mysqlUrl, connectionLimit: connections });
        const driver = mysql2Driver(pool, { dialect: mariadbDialect });
        await driver.execute(`DROP TABLE IF EXISTS ${table}`, []);
        return { driver, close: () => driver.close!() };
      },
    },
  ];
}
