/** What a dialect reports about a UNIQUE / PRIMARY KEY violation it recognised in a driver error. */
export interface UniqueViolation {
  /** Columns named by the engine's message; empty when it named only an index. */
  columns: string[];
  /** Index or constraint name, when the engine gave one; used to look the columns up. */
  index?: string;
  /** What the engine's message says was violated, as written (SQLite: `users.email`); `constraintsMessages` keys. */
  constraint?: string;
}

/** Which statements can hand back the written row themselves (`RETURNING`); the others are re-selected. */
export interface ReturningSupport {
  insert: boolean;
  update: boolean;
  delete: boolean;
}

/**
 * How an engine declares the tables specroute keeps itself (the change log, idempotency keys, rate
 * limits): a column's type by what it holds, and what follows a table's column list.
 */
export interface TableSyntax {
  /**
   * Text in a primary key, compared by code point: case and accents count; on MySQL/MariaDB (`utf8mb4_bin`, PAD
   * SPACE) trailing spaces do not, so the rate limits and the change log keep a key ending in one as its
   * SHA-256 (`storableKey`), and idempotency keys are hashes already.
   */
  readonly keyText: string;
  /** Text of at most 16 characters. */
  readonly shortText: string;
  /** Text of any length. */
  readonly longText: string;
  /** A 64-bit integer. */
  readonly bigInteger: string;
  /** After a table's column list (an engine, a storage option); empty for none. */
  readonly options: string;
  /** After the column list of a table keyed by several columns and read only by that key. */
  readonly keyedOptions: string;
}

/**
 * How an engine writes an INSERT of one row that updates, or keeps, the row already holding its key
 * instead of failing on it. A value the update needs is bound again in its assignments: no name for
 * the inserted row works on every engine (MariaDB has no alias for it, and MySQL deprecated VALUES()).
 * Assignments must not read a column an earlier one sets: MySQL assigns left to right.
 */
export interface UpsertSyntax {
  /** After the INSERT's VALUES list: the assignments that follow update the row holding the (quoted) `key`. */
  update(key: string): string;
  /** A column's stored value inside those assignments (`table` and `column` quoted). */
  stored(table: string, column: string): string;
  /** Whether such an INSERT may end in RETURNING; where not, the row is read again in the same transaction. */
  readonly returning: boolean;
  /** The INSERT of `values` (`(columns) VALUES (...)`) into `table` that writes nothing, without failing, where a row holds its `key`. */
  insertIfAbsent(table: string, key: string, values: string): string;
}

/**
 * Everything that differs between SQL engines, as data and small pure functions.
 * Identifiers given to it are already checked against the model, so quoting is a formality.
 *
 * @example
 * const sql = `SELECT ${dialect.quote("id")} FROM t WHERE x = ${dialect.placeholder(1)}`
 */
export interface Dialect {
  /** Engine family, for logs and for drivers that must know it. */
  readonly name: string;
  readonly returning: ReturningSupport;
  /** Tail of an INSERT that writes no column (every column takes its default). */
  readonly insertDefaults: string;
  /** Quotes one checked identifier. */
  quote(identifier: string): string;
  /** Placeholder for the `position`-th (1-based) bound parameter. */
  placeholder(position: number): string;
  /** Case-insensitive LIKE test of `column` against a bound pattern escaped with {@link LIKE_ESCAPE}. */
  containsInsensitive(column: string, pattern: string): string;
  /**
   * One ORDER BY term; NULLs sort as the smallest value on every engine. `mayBeNull: false` (a column
   * that holds no NULL) lets an engine leave out a NULLS clause a plain index could not serve.
   */
  orderBy(column: string, direction: "asc" | "desc", mayBeNull?: boolean): string;
  /** LIMIT/OFFSET clause for checked non-negative integers; `bind` adds a parameter and returns its placeholder. */
  limitOffset(limit: number, offset: number, bind: (value: unknown) => string): string;
  /** LIMIT clause without an offset (keyset pages); when absent, `limitOffset(limit, 0)` is used. */
  limit?(limit: number, bind: (value: unknown) => string): string;
  /** Recognises a unique violation in any error the engine's drivers throw. */
  uniqueViolation(error: unknown): UniqueViolation | null;
  /**
   * An exact comparison of a stored column with a non-null value read from it before, bound at
   * `placeholder` (`json`: the driver had parsed it as JSON; it is bound as JSON text). Compare-and-swap
   * writes (`If-Match` without a version column) use it; without it, `column = placeholder`.
   */
  sameValue?(column: string, placeholder: string, value: unknown, json: boolean): string;
  /**
   * The test that makes an equality of a column with bound strings exact, code point for code point
   * (case, accents and trailing spaces count), beside the `column = ?` or `column IN (...)` an index
   * serves: for an engine whose collations may ignore them (MySQL's and MariaDB's `_ci`, PAD SPACE). It
   * holds for a column of another type (a number, a date), which the plain test compares by value.
   * Without it, equality is the engine's own, exact on PostgreSQL and SQLite.
   */
  exactText?(column: string, placeholders: readonly string[]): string;
  /**
   * Whether the engine refused a bound value itself (SQLSTATE class 22, "data exception": out of
   * range, too long, not a number): bad input, answered 400 rather than 500.
   */
  dataException?(error: unknown): boolean;
  /** Query listing the columns of a named unique index, as rows `{ column_name }`, in index order. */
  uniqueIndexColumns?(table: readonly string[], index: string): { sql: string; params: unknown[] };
  /** How specroute's own tables are declared; the change log and the SQL idempotency and rate limit stores refuse a dialect without it. */
  readonly tables?: TableSyntax;
  /** How an INSERT updates or keeps the row holding its key; the same stores refuse a dialect without it. */
  readonly upsert?: UpsertSyntax;
}

/** A dialect that can write specroute's own tables and their upserts. */
export type StoreDialect = Dialect & Required<Pick<Dialect, "tables" | "upsert">>;

/**
 * Refuses a dialect without `tables` and `upsert`, which specroute's own stores are written in:
 * a TypeError `<refusal> for the <name> dialect`.
 *
 * @example
 * assertStoreDialect(driver.dialect, "sqlRateLimitStore has no table") // then driver.dialect.tables is there
 */
export function assertStoreDialect(dialect: Dialect, refusal: string): asserts dialect is StoreDialect {
  if (!dialect.tables || !dialect.upsert) throw new TypeError(`${refusal} for the ${dialect.name} dialect`);
}

/** Escape character of every LIKE pattern; `!` needs no escaping inside a string literal on any engine (unlike `\` on MySQL). */
export const LIKE_ESCAPE = "!";

/**
 * LIKE pattern matching `term` anywhere, with `%`, `_` and the escape character taken literally.
 *
 * @example
 * containsPattern("100%") // "%100!%%"
 */
export function containsPattern(term: string): string {
  return `%${term.replace(/[!%_]/g, (char) => LIKE_ESCAPE + char)}%`;
}

/**
 * Whether an error (or one in its `cause` chain) carries a SQLSTATE of class 22, "data exception",
 * under `code` (node-postgres, PGlite) or `sqlState` (mysql2).
 *
 * @example
 * isDataException({ code: "22003", message: "value out of range for type integer" }) // true
 */
export function isDataException(error: unknown): boolean {
  for (const link of errorChain(error)) {
    const state = typeof link.sqlState === "string" ? link.sqlState : link.code;
    if (typeof state === "string" && /^22[0-9A-Z]{3}$/.test(state)) return true;
  }
  return false;
}

/** The error and its `cause` chain, for drivers that wrap the engine's error (D1, Miniflare). */
export function* errorChain(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * A count written into SQL text (a limit, an offset, a sequence number): refused unless it is a
 * non-negative safe integer, so nothing but digits reaches the statement.
 *
 * @example
 * assertCount(-1, "offset") // throws RangeError("offset must be a non-negative integer")
 */
export function assertCount(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer`);
  return value;
}
