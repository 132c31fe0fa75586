import { postgresDialect } from "../dialects/postgres";
import type { SqlDriver } from "../driver";
import { bigintAsText } from "./values";

/** What a PGlite instance or one of its transactions offers for running a statement. */
interface PGliteQueryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
}

/** The part of a `PGlite` instance this driver uses. */
export interface PGliteLike extends PGliteQueryable {
  transaction?<T>(work: (tx: PGliteQueryable) => Promise<T>): Promise<T>;
  close?(): Promise<void>;
}

function statements(db: PGliteQueryable): Pick<SqlDriver, "query" | "execute"> {
  return {
    async query<T>(sql: string, params: unknown[]) {
      const result = await db.query<T>(sql, params.map(bigintAsText));
      return result.rows;
    },
    async execute(sql, params) {
      const result = await db.query(sql, params.map(bigintAsText));
      return { changes: result.affectedRows ?? 0 };
    },
  };
}

/**
 * Driver over an in-process PGlite database (PostgreSQL compiled to WebAssembly). `transaction()` is
 * PGlite's own, which keeps other statements out until it ends.
 *
 * @example
 * import { PGlite } from "@electric-sql/pglite"
 * const driver = pgliteDriver(new PGlite())
 */
export function pgliteDriver(db: PGliteLike): SqlDriver {
  const driver: SqlDriver = {
    dialect: postgresDialect,
    ...statements(db),
    async close() {
      await db.close?.();
    },
  };
  if (db.transaction) {
    const transaction = db.transaction.bind(db);
    driver.transaction = (work) =>
      transaction((tx) => {
        const inner: SqlDriver = {
          dialect: postgresDialect,
          ...statements(tx),
          transaction: (nested) => nested(inner),
        };
        return work(inner);
      });
  }
  return driver;
}
