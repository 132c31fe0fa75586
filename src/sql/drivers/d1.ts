import { ApiException } from "../../errors/exceptions";
import { sqliteDialect } from "../dialects/sqlite";
import type { SqlDriver } from "../driver";
import { toSqliteValue } from "./values";

/** A D1 prepared statement, as far as this driver uses it. */
export interface D1PreparedStatementLike {
  bind(...values: unknown[]): D1PreparedStatementLike;
  all<T = Record<string, unknown>>(): Promise<{ results?: T[]; meta?: { changes?: number; last_row_id?: number } }>;
  run(): Promise<{ meta?: { changes?: number; last_row_id?: number } }>;
}

/** The part of a Cloudflare D1 binding (`env.DB`) this driver uses. */
export interface D1DatabaseLike {
  prepare(sql: string): D1PreparedStatementLike;
  /** Runs prepared statements as one implicit transaction: all or none. */
  batch?<T = Record<string, unknown>>(statements: D1PreparedStatementLike[]): Promise<Array<{ results?: T[] }>>;
  /**
   * D1's Sessions API (read replication): a session whose first query goes to the primary
   * (`"first-primary"`), anywhere (`"first-unconstrained"`), or to a copy at least as new as a bookmark.
   */
  withSession?(constraintOrBookmark: string): D1SessionLike;
}

/** A D1 session (`env.DB.withSession(...)`): its statements read at least as new as each other. */
export interface D1SessionLike extends D1DatabaseLike {
  /** The newest bookmark of the session's queries so far; null before the first. */
  getBookmark(): string | null;
}

// D1 binds null, numbers, strings and ArrayBuffers; a bigint outside the double range is sent as text.
function toD1Value(value: unknown): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return toSqliteValue(value);
}

/**
 * Driver over a Cloudflare D1 binding; create it per request from `env`. D1 caps a statement at
 * 100 bound parameters, which bounds the length of an `IN` list. D1 cannot hold a transaction open
 * across calls, so the driver has no `transaction()`; `batch()` is D1's own batch (all or none).
 *
 * @example
 * const driver = d1Driver(env.DB)
 * const row = await table.selectOne(driver, [{ field: "id", operator: "EQ", value: 1 }])
 */
export function d1Driver(db: D1DatabaseLike): SqlDriver {
  const prepare = (sql: string, params: unknown[]) => {
    const statement = db.prepare(sql);
    return params.length > 0 ? statement.bind(...params.map(toD1Value)) : statement;
  };
  const driver: SqlDriver = {
    dialect: sqliteDialect,
    async query<T>(sql: string, params: unknown[]) {
      const result = await prepare(sql, params).all<T>();
      return result.results ?? [];
    },
    async execute(sql, params) {
      const result = await prepare(sql, params).run();
      return { changes: result.meta?.changes ?? 0, lastInsertId: result.meta?.last_row_id };
    },
  };
  if (typeof db.batch === "function") {
    const batch = db.batch.bind(db);
    driver.batch = async (statements) => {
      const results = await batch(statements.map((statement) => prepare(statement.sql, statement.params)));
      return results.map((result) => result.results ?? []);
    };
  }
  return driver;
}

/**
 * The D1 binding `dbName` from the environment `getBindings(args)` returns; ApiException when it
 * is missing or has no `prepare`.
 *
 * @example
 * const db = d1Binding((args) => this.params.router.getBindings(args), this.args, "DB");
 */
export function d1Binding(
  getBindings: (args: any[]) => Record<string, any>,
  args: any[],
  dbName: string,
): D1DatabaseLike {
  const binding = getBindings(args)?.[dbName];
  if (binding === undefined) throw new ApiException(`Binding "${dbName}" is not defined in worker`);
  if (typeof binding?.prepare !== "function") throw new ApiException(`Binding "${dbName}" is not a D1 binding`);
  return binding;
}
