import { sqliteDialect } from "../dialects/sqlite";
import type { SqlDriver } from "../driver";
import { ConnectionLock, runTransaction } from "./transaction";
import { toSqliteValue } from "./values";

/** The part of a better-sqlite3 `Database` this driver uses (typed here so the package stays optional). */
export interface BetterSqlite3Database {
  prepare(sql: string): {
    readonly reader: boolean;
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
  close(): unknown;
}

const MAX_PREPARED = 256;

/**
 * Driver over a better-sqlite3 database the application opened. `transaction()` runs
 * `BEGIN IMMEDIATE … COMMIT` on the one connection; while it runs, statements from other
 * requests wait, so none lands inside it.
 *
 * @example
 * import Database from "better-sqlite3"
 * const driver = betterSqlite3Driver(new Database("app.db"))
 */
export function betterSqlite3Driver(db: BetterSqlite3Database): SqlDriver {
  // The SQL layer generates a handful of statement shapes per route, so prepared statements are
  // kept (bounded, oldest first out) instead of being compiled again on every call.
  const prepared = new Map<string, ReturnType<BetterSqlite3Database["prepare"]>>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value!);
      prepared.set(sql, statement);
    }
    return statement;
  };
  const query = <T>(sql: string, params: unknown[]): T[] => {
    const statement = prepare(sql);
    const values = params.map(toSqliteValue);
    // `all()` refuses statements that return nothing; run those and answer no rows.
    if (!statement.reader) {
      statement.run(...values);
      return [];
    }
    return statement.all(...values) as T[];
  };
  const execute = (sql: string, params: unknown[]) => {
    const result = prepare(sql).run(...params.map(toSqliteValue));
    return { changes: result.changes, lastInsertId: result.lastInsertRowid };
  };
  // better-sqlite3's own transaction() is synchronous; a request's work awaits, so the connection is held by a lock.
  const lock = new ConnectionLock();
  const connection: SqlDriver = {
    dialect: sqliteDialect,
    query: async (sql, params) => query(sql, params),
    execute: async (sql, params) => execute(sql, params),
  };
  const control = async (statement: "BEGIN" | "COMMIT" | "ROLLBACK") =>
    prepare(statement === "BEGIN" ? "BEGIN IMMEDIATE" : statement).run();
  return {
    dialect: sqliteDialect,
    query: <T>(sql: string, params: unknown[]) => lock.whenFree(async () => query<T>(sql, params)),
    execute: (sql, params) => lock.whenFree(async () => execute(sql, params)),
    transaction(work) {
      return lock.hold(() => runTransaction(connection, control, work));
    },
    async close() {
      prepared.clear();
      db.close();
    },
  };
}
