import type { SqlDriver } from "../driver";
import { syncSqliteDriver } from "./sync-sqlite";

// Alike bun-sqlite.ts, node-sqlite.ts on purpose: each types its client's few members and hands it to syncSqliteDriver, which holds the logic.
/** The part of a better-sqlite3 `Database` this driver uses (typed here so the package stays optional). */
export interface BetterSqlite3Database {
  prepare(sql: string): {
    readonly reader: boolean;
    safeIntegers(enabled: boolean): unknown;
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
  close(): unknown;
}

/**
 * Driver over a better-sqlite3 database the application opened, on Node (the native module is
 * built for one Node version; on Node 22.5+ `nodeSqliteDriver` needs no build, on Bun use
 * `bunSqliteDriver`). `transaction()` runs `BEGIN IMMEDIATE … COMMIT` on the one connection; while
 * it runs, statements from other requests wait, so none lands inside it.
 *
 * @example
 * import Database from "better-sqlite3"
 * const driver = betterSqlite3Driver(new Database("app.db"))
 */
export function betterSqlite3Driver(db: BetterSqlite3Database): SqlDriver {
  return syncSqliteDriver({
    prepare(sql) {
      const statement = db.prepare(sql);
      statement.safeIntegers(true);
      return {
        // `all()` refuses statements that return nothing; run those and answer no rows.
        rows: (values) => {
          if (statement.reader) return statement.all(...values);
          statement.run(...values);
          return [];
        },
        run: (values) => statement.run(...values),
      };
    },
    close: () => db.close(),
  });
}
