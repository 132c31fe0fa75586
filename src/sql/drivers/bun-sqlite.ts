import type { SqlDriver } from "../driver";
import { syncSqliteDriver } from "./sync-sqlite";

// Alike better-sqlite3.ts, node-sqlite.ts on purpose: each types its client's few members and hands it to syncSqliteDriver, which holds the logic.
/** The part of a `bun:sqlite` `Database` this driver uses (typed here, so nothing imports `bun:sqlite`). */
export interface BunSqliteDatabase {
  prepare(sql: string): {
    all(...params: any[]): unknown[];
    /** Bun 1.1.14 and later. */
    safeIntegers?(enabled: boolean): unknown;
    run(...params: any[]): { changes: number; lastInsertRowid: number | bigint };
  };
  close(): unknown;
}

/**
 * Driver over a `Database` from `bun:sqlite`, Bun's built-in SQLite. `transaction()` runs
 * `BEGIN IMMEDIATE … COMMIT` on the one connection; while it runs, statements from other requests
 * wait, so none lands inside it.
 *
 * @example
 * import { Database } from "bun:sqlite"
 * const driver = bunSqliteDriver(new Database("app.db"))
 */
export function bunSqliteDriver(db: BunSqliteDatabase): SqlDriver {
  return syncSqliteDriver({
    prepare(sql) {
      const statement = db.prepare(sql);
      statement.safeIntegers?.(true);
      // `all()` runs any statement, answering no rows for one that returns none.
      return { rows: (values) => statement.all(...values), run: (values) => statement.run(...values) };
    },
    close: () => db.close(),
  });
}
