import type { Dialect } from "../dialect";
import { mysqlDialect } from "../dialects/mysql";
import type { SqlDriver } from "../driver";
import { ConnectionLock, runTransaction } from "./transaction";
import { bigintAsText } from "./values";

/** The part of a mysql2/promise `Pool`, `PoolConnection` or `Connection` this driver uses. */
export interface Mysql2Queryable {
  // `any`: mysql2 answers rows for SELECT/RETURNING and a ResultSetHeader for other statements.
  execute(query: string | Mysql2Query, values?: any): Promise<[any, any]>;
  /** Text-protocol statements; transactions are begun and ended with it. */
  query?(sql: string): Promise<unknown>;
  /** A Pool's: checks out one connection, for a transaction. */
  getConnection?(): Promise<Mysql2Queryable & { release(): void; destroy?(): void }>;
  end?(): Promise<void>;
}

/** A statement with its per-query options, as mysql2's `execute` takes it. */
export interface Mysql2Query {
  sql: string;
  values?: unknown[];
  /** BIGINT values a number cannot hold exactly come back as text (the others as numbers). */
  supportBigNumbers?: boolean;
}

export interface Mysql2DriverOptions {
  /** `mariadbDialect` on MariaDB 10.5+ to use INSERT/DELETE ... RETURNING; default `mysqlDialect`. */
  dialect?: Dialect;
}

function statements(client: Mysql2Queryable, dialect: Dialect): SqlDriver {
  return {
    dialect,
    async query<T>(sql: string, params: unknown[]) {
      // A BIGINT past 2^53 would otherwise be read as the nearest number: a wrong value, silently.
      const [result] = await client.execute({ sql, values: params.map(bigintAsText), supportBigNumbers: true });
      return Array.isArray(result) ? (result as T[]) : [];
    },
    async execute(sql, params) {
      const [result] = await client.execute({ sql, values: params.map(bigintAsText), supportBigNumbers: true });
      // insertId is 0 when the table has no AUTO_INCREMENT column.
      return { changes: Number(result?.affectedRows ?? 0), lastInsertId: result?.insertId || undefined };
    },
  };
}

/** BEGIN/COMMIT/ROLLBACK over the text protocol, which every server accepts them on. */
function control(client: Mysql2Queryable) {
  return (statement: "BEGIN" | "COMMIT" | "ROLLBACK") => {
    const sql = statement === "BEGIN" ? "START TRANSACTION" : statement;
    return client.query ? client.query(sql) : client.execute(sql);
  };
}

/**
 * Driver over a mysql2/promise pool or connection, using server-side prepared statements (`execute`).
 * `transaction()` checks one connection out of a Pool (each insert's LAST_INSERT_ID is that
 * connection's); over a single Connection it holds it, other statements waiting for it.
 *
 * @example
 * import mysql from "mysql2/promise"
 * const driver = mysql2Driver(mysql.createPool(process.env.MYSQL_URL!), { dialect: mariadbDialect })
 */
export function mysql2Driver(client: Mysql2Queryable, options: Mysql2DriverOptions = {}): SqlDriver {
  const dialect = options.dialect ?? mysqlDialect;
  const shared = statements(client, dialect);
  const close = async () => {
    await client.end?.();
  };
  if (typeof client.getConnection === "function") {
    return {
      ...shared,
      async transaction(work) {
        const connection = await client.getConnection!();
        const send = control(connection);
        // A connection whose ROLLBACK failed may still be inside the transaction: it is closed, not pooled.
        let broken = false;
        const guarded = (statement: "BEGIN" | "COMMIT" | "ROLLBACK") =>
          send(statement).catch((error: unknown) => {
            if (statement === "ROLLBACK") broken = true;
            throw error;
          });
        try {
          return await runTransaction(statements(connection, dialect), guarded, work);
        } finally {
          if (broken && connection.destroy) connection.destroy();
          else connection.release();
        }
      },
      close,
    };
  }
  const lock = new ConnectionLock();
  return {
    dialect,
    query: <T>(sql: string, params: unknown[]) => lock.whenFree(() => shared.query<T>(sql, params)),
    execute: (sql, params) => lock.whenFree(() => shared.execute(sql, params)),
    transaction(work) {
      return lock.hold(() => runTransaction(shared, control(client), work));
    },
    close,
  };
}
