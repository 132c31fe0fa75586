import type { SqlDriver } from "../driver";
import { syncSqliteDriver } from "./sync-sqlite";

// Alike better-sqlite3.ts, bun-sqlite.ts on purpose: each types its client's few members and hands it to syncSqliteDriver, which holds the logic.
/** The part of a `node:sqlite` `DatabaseSync` this driver uses (typed here, so nothing imports `node:sqlite`). */
export interface NodeSqliteDatabase {
  prepare(sql: string): {
    all(...params: any[]): unknown[];
    setReadBigInts(enabled: boolean): void;
    run(...params: any[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  };
  close(): unknown;
}

/**
 * Driver over a `DatabaseSync` from `node:sqlite`, built into Node 22.5+ (no native module to build)
 * and into Deno 2.2+. `transaction()` runs `BEGIN IMMEDIATE … COMMIT` on the one connection; while it
 * runs, statements from other requests wait, so none lands inside it.
 *
 * @example
 * import { DatabaseSync } from "node:sqlite"
 * const driver = nodeSqliteDriver(new DatabaseSync("app.db"))
 */
export function nodeSqliteDriver(db: NodeSqliteDatabase): SqlDriver {
  return syncSqliteDriver({
    prepare(sql) {
      const statement = db.prepare(sql);
      statement.setReadBigInts(true);
      // `all()` runs any statement, answering no rows for one that returns none.
      return { rows: (values) => statement.all(...values), run: (values) => statement.run(...values) };
    },
    close: () => db.close(),
  });
}
