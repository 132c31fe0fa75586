import type { Dialect } from "./dialect";

/** Outcome of a statement that returns no rows. */
export interface ExecuteResult {
  /** Rows the statement matched or changed, as the engine counts them. */
  changes: number;
  /** Auto-generated key of the last inserted row, when the engine reports one. */
  lastInsertId?: number | bigint | string;
}

/** One statement with its bound parameters, as `batch` takes it. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/**
 * A statement as the SQL text around its bound values, in order: `text[0]`, `params[0]`, `text[1]`,
 * …, `text[params.length]`. A driver writes its own placeholders between the texts, so none has to
 * find them in SQL text again.
 */
export interface StatementParts {
  readonly text: string[];
  readonly params: unknown[];
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
  /**
   * `query` for a statement given as parts, for a driver that writes its own placeholders (a Drizzle
   * database); without it, the parts are joined with the dialect's placeholders and sent to `query`.
   */
  queryParts?<T = Record<string, unknown>>(statement: StatementParts): Promise<T[]>;
  /** `execute` for a statement given as parts; without it, the joined text is sent to `execute`. */
  executeParts?(statement: StatementParts): Promise<ExecuteResult>;
  /**
   * Runs `work` in one transaction on one connection: committed when `work` resolves, rolled back
   * when it throws (the error is rethrown). Statements go through `tx`; other users of this driver
   * never see them half done, nor slip their own statements into the transaction. Inside `work`,
   * send nothing to the driver itself: on a single connection that statement waits for the
   * transaction to end, which waits for it. Drivers over a client that can hold a connection have
   * it (better-sqlite3, PGlite, pg, mysql2).
   *
   * @example
   * await driver.transaction!(async (tx) => {
   *   await tx.execute("UPDATE accounts SET balance = balance - 10 WHERE id = ?", [1]);
   *   await tx.execute("UPDATE accounts SET balance = balance + 10 WHERE id = ?", [2]);
   * });
   */
  transaction?<T>(work: (tx: SqlDriver) => Promise<T>): Promise<T>;
  /**
   * Runs statements in order as one atomic unit (all or none) and returns each one's rows, for
   * engines that cannot hold a transaction open across calls (D1).
   *
   * @example
   * const [[a], [b]] = await driver.batch!([
   *   { sql: "INSERT INTO tags (name) VALUES (?1) RETURNING id", params: ["a"] },
   *   { sql: "INSERT INTO tags (name) VALUES (?1) RETURNING id", params: ["b"] },
   * ]);
   */
  batch?(statements: SqlStatement[]): Promise<Record<string, unknown>[][]>;
  /**
   * Listens on a notification channel (PostgreSQL's LISTEN, on the pg driver): `onNotify` gets the
   * payload of each notification sent to `channel` (`pg_notify`, delivered when its transaction
   * commits) until the returned function is called. All listens of a driver share one connection;
   * when it is lost, each listener's `onLost` is called once and nothing more arrives on that listen.
   *
   * @example
   * const stop = await driver.listen!("specroute_changes", (collection) => console.log(collection, "changed"))
   * await stop()
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    onLost?: (error: Error) => void,
  ): Promise<() => Promise<void>>;
  /** Closes the underlying client, when it can be closed. */
  close?(): Promise<void>;
}
