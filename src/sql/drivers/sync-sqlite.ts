import { sqliteDialect } from "../dialects/sqlite";
import type { ExecuteResult, SqlDriver } from "../driver";
import { ConnectionLock, runTransaction } from "./transaction";
import { narrowInteger, narrowIntegers, toSqliteValue } from "./values";

/** A prepared statement of a synchronous SQLite client, as the shared driver runs it: integers read as bigints. */
export interface SyncSqliteStatement {
  /** Runs the statement and returns its rows (none for a statement that returns none). */
  rows(values: unknown[]): unknown[];
  /** Runs the statement for its effect. */
  run(values: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

/** A synchronous SQLite client (better-sqlite3, node:sqlite, bun:sqlite) seen through one shape. */
export interface SyncSqliteClient {
  prepare(sql: string): SyncSqliteStatement;
  close(): unknown;
}

const MAX_PREPARED = 256;

/**
 * The driver every synchronous SQLite client shares: prepared statements kept per SQL text, values
 * converted for SQLite, and `transaction()` as `BEGIN IMMEDIATE … COMMIT` on the one connection
 * while statements from other requests wait, so none lands inside it.
 */
export function syncSqliteDriver(client: SyncSqliteClient): SqlDriver {
  // The SQL layer generates a handful of statement shapes per route, so prepared statements are
  // kept (bounded, oldest first out) instead of being compiled again on every call.
  const prepared = new Map<string, SyncSqliteStatement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = client.prepare(sql);
      if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value!);
      prepared.set(sql, statement);
    }
    return statement;
  };
  // Clients read integers as bigints (exact past 2^53); those a number holds exactly are numbers again.
  const query = <T>(sql: string, params: unknown[]): T[] =>
    narrowIntegers(prepare(sql).rows(params.map(toSqliteValue))) as T[];
  const execute = (sql: string, params: unknown[]): ExecuteResult => {
    const result = prepare(sql).run(params.map(toSqliteValue));
    return { changes: Number(result.changes), lastInsertId: narrowInteger(result.lastInsertRowid) };
  };
  // The clients' own transaction helpers are synchronous; a request's work awaits, so the connection is held by a lock.
  const lock = new ConnectionLock();
  const connection: SqlDriver = {
    dialect: sqliteDialect,
    query: async (sql, params) => query(sql, params),
    execute: async (sql, params) => execute(sql, params),
  };
  const control = async (statement: "BEGIN" | "COMMIT" | "ROLLBACK") =>
    prepare(statement === "BEGIN" ? "BEGIN IMMEDIATE" : statement).run([]);
  return {
    dialect: sqliteDialect,
    query: <T>(sql: string, params: unknown[]) => lock.whenFree(async () => query<T>(sql, params)),
    execute: (sql, params) => lock.whenFree(async () => execute(sql, params)),
    transaction(work) {
      return lock.hold(() => runTransaction(connection, control, work));
    },
    async close() {
      prepared.clear();
      client.close();
    },
  };
}
