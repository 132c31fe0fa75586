import { postgresDialect } from "../dialects/postgres";
import type { SqlDriver } from "../driver";
import { bigintAsText } from "./values";

/** The part of a node-postgres `Pool`, `PoolClient` or `Client` this driver uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  end?(): Promise<void>;
}

/**
 * Driver over a node-postgres pool or client. Note: pg returns BIGINT and NUMERIC as strings;
 * `SqlTable` turns them back into numbers for `z.number()` fields.
 *
 * @example
 * import pg from "pg"
 * const driver = pgDriver(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 */
export function pgDriver(client: PgQueryable): SqlDriver {
  return {
    dialect: postgresDialect,
    async query<T>(sql: string, params: unknown[]) {
      const result = await client.query(sql, params.map(bigintAsText));
      return result.rows as T[];
    },
    async execute(sql, params) {
      const result = await client.query(sql, params.map(bigintAsText));
      return { changes: result.rowCount ?? 0 };
    },
    async close() {
      await client.end?.();
    },
  };
}
