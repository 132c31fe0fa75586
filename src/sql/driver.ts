import type { Dialect } from "./dialect";

/** Outcome of a statement that returns no rows. */
export interface ExecuteResult {
  /** Rows the statement matched or changed, as the engine counts them. */
  changes: number;
  /** Auto-generated key of the last inserted row, when the engine reports one. */
  lastInsertId?: number | bigint | string;
}

/**
 * The one thing the SQL layer needs from a database client: run a statement with bound
 * parameters. Drivers wrap a client the application created and converts JS values the
 * engine cannot bind (booleans, Dates, bigints) on the way in.
 *
 * @example
 * const driver: SqlDriver = betterSqlite3Driver(new Database("app.db"))
 * const rows = await driver.query("SELECT 1 AS one", [])
 */
export interface SqlDriver {
  readonly dialect: Dialect;
  /** Runs a statement that returns rows (SELECT, or a write with RETURNING). */
  query<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]>;
  /** Runs a statement for its effect. */
  execute(sql: string, params: unknown[]): Promise<ExecuteResult>;
  /** Closes the underlying client, when it can be closed. */
  close?(): Promise<void>;
}
