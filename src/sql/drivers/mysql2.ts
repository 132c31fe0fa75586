import type { Dialect } from "../dialect";
import { mysqlDialect } from "../dialects/mysql";
import type { SqlDriver } from "../driver";
import { bigintAsText } from "./values";

/** The part of a mysql2/promise `Pool`, `PoolConnection` or `Connection` this driver uses. */
export interface Mysql2Queryable {
  // `any`: mysql2 answers rows for SELECT/RETURNING and a ResultSetHeader for other statements.
  execute(sql: string, values?: any): Promise<[any, any]>;
  end?(): Promise<void>;
}

export interface Mysql2DriverOptions {
  /** `mariadbDialect` on MariaDB 10.5+ to use INSERT/DELETE ... RETURNING; default `mysqlDialect`. */
  dialect?: Dialect;
}

/**
 * Driver over a mysql2/promise pool or connection, using server-side prepared statements (`execute`).
 *
 * @example
 * import mysql from "mysql2/promise"
 * const driver = mysql2Driver(mysql.createPool(process.env.MYSQL_URL!), { dialect: mariadbDialect })
 */
export function mysql2Driver(client: Mysql2Queryable, options: Mysql2DriverOptions = {}): SqlDriver {
  return {
    dialect: options.dialect ?? mysqlDialect,
    async query<T>(sql: string, params: unknown[]) {
      const [result] = await client.execute(sql, params.map(bigintAsText));
      return Array.isArray(result) ? (result as T[]) : [];
    },
    async execute(sql, params) {
      const [result] = await client.execute(sql, params.map(bigintAsText));
      // insertId is 0 when the table has no AUTO_INCREMENT column.
      return { changes: Number(result?.affectedRows ?? 0), lastInsertId: result?.insertId || undefined };
    },
    async close() {
      await client.end?.();
    },
  };
}
