import { postgresDialect } from "../dialects/postgres";
import type { SqlDriver } from "../driver";
import { bigintAsText } from "./values";

/** The part of a `PGlite` instance this driver uses. */
export interface PGliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
  close?(): Promise<void>;
}

/**
 * Driver over an in-process PGlite database (PostgreSQL compiled to WebAssembly).
 *
 * @example
 * import { PGlite } from "@electric-sql/pglite"
 * const driver = pgliteDriver(new PGlite())
 */
export function pgliteDriver(db: PGliteLike): SqlDriver {
  return {
    dialect: postgresDialect,
    async query<T>(sql: string, params: unknown[]) {
      const result = await db.query<T>(sql, params.map(bigintAsText));
      return result.rows;
    },
    async execute(sql, params) {
      const result = await db.query(sql, params.map(bigintAsText));
      return { changes: result.affectedRows ?? 0 };
    },
    async close() {
      await db.close?.();
    },
  };
}
