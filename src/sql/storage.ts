/**
 * What the auto endpoints ask of a model's table, whatever stores it: `SqlTable` writes it as SQL text
 * for a `SqlDriver`, `DrizzleTable` (specroute/drizzle) with Drizzle's query builder for a Drizzle
 * session. Both read the plans of `plan.ts`, so every operation means the same on each.
 */
import type { FilterCondition } from "../endpoints/types";
import { IncompleteKeyError, InvalidIdentifierError } from "./errors";
import { keyValues } from "./plan";
import type { SearchClause } from "./statement";

/** A row as stored, with values turned back into the kinds the model's schema declares. */
export type SqlRow = Record<string, unknown>;

/** The rows a listing covers: its filters and search. */
export interface CountQuery {
  /** Conditions joined with AND; operators EQ NE GT GTE LT LTE IN ISNULL (and LIKE = search in one field). */
  filters: FilterCondition[];
  search?: SearchClause;
}

/** One page of a filtered, searched, ordered listing. */
export interface ListQuery extends CountQuery {
  orderBy?: { column: string; direction: "asc" | "desc" };
  limit: number;
  offset: number;
  /**
   * Break ties on the primary key in the order's direction, as {@link StorageTable.seek} does, instead of
   * always ascending (chanfana's order, the default): a numbered page then hands out cursors that go on from it.
   */
  keysetOrder?: boolean;
}

export interface ListPage {
  rows: SqlRow[];
  /** Rows matching the filters and search, ignoring limit and offset. */
  totalCount: number;
}

/** One keyset page: the rows beyond a position in the order, without OFFSET or a count. */
export interface SeekQuery extends CountQuery {
  orderBy?: { column: string; direction: "asc" | "desc" };
  limit: number;
  /**
   * The position the page starts beyond: the order column's and primary keys' values of a row, and
   * whether the page holds the rows after it (`next`) or before it (`prev`). Absent: the first page.
   */
  from?: { direction: "next" | "prev"; key: Record<string, unknown> };
}

export interface SeekPage {
  /** In the listing's order, whichever way the page went. */
  rows: SqlRow[];
  /** Whether more rows lie beyond the page in the direction it went. */
  hasMore: boolean;
}

/** A write that happens only if the stored row has not changed since it was read (compare-and-swap). */
export interface ConditionalWrite {
  /**
   * The row as a read through this table returned it: the write happens only while the stored row
   * still has its version (the model's `versionField`), else still equals it in every column, checked
   * in the same statement as the write. No row written or deleted answers null.
   */
  ifUnchanged?: SqlRow;
}

/**
 * Table-level CRUD for one model, built once (at route registration) and run on a `Session` per call:
 * a `SqlDriver` for `SqlTable`, a Drizzle database for `DrizzleTable`. Columns are checked against the
 * model, every value is bound, rows come back decoded per the schema; database errors come out as the
 * errors of `errors.ts`.
 *
 * @example
 * const created = await table.insert(session, { name: "Ada" })  // { id: 1, name: "Ada", active: true }
 * const page = await table.list(session, { filters: [], limit: 20, offset: 0 })
 */
export interface StorageTable<Session> {
  readonly tableName: string;
  readonly columns: readonly string[];
  readonly primaryKeys: readonly string[];
  /** The integer column every write through this table increments, when the model names one. */
  readonly versionField: string | undefined;
  /** Inserts one row (columns left out take their defaults) and returns it as stored. */
  insert(session: Session, data: Record<string, unknown>): Promise<SqlRow>;
  /** Inserts several rows all or none and returns them as stored, in order. */
  insertMany(session: Session, rows: Record<string, unknown>[]): Promise<SqlRow[]>;
  /** The first row (in primary key order) matching all conditions, or null. */
  selectOne(session: Session, filters: FilterCondition[]): Promise<SqlRow | null>;
  /**
   * Writes only the given columns of the one row identified by the full primary key, incrementing the
   * version column when the model has one; the row as stored, or null if none matched (or, with
   * `ifUnchanged`, the row changed since it was read).
   */
  update(
    session: Session,
    keyFilters: FilterCondition[],
    data: Record<string, unknown>,
    options?: ConditionalWrite,
  ): Promise<SqlRow | null>;
  /** Deletes the one row identified by the full primary key and returns it, or null if none matched (or it changed). */
  delete(session: Session, keyFilters: FilterCondition[], options?: ConditionalWrite): Promise<SqlRow | null>;
  /** One page of rows plus the total matching count; the order always ends with the primary key. */
  list(session: Session, query: ListQuery): Promise<ListPage>;
  /** One keyset page beyond a position in the order, without OFFSET or a count. */
  seek(session: Session, query: SeekQuery): Promise<SeekPage>;
  /** How many rows match the filters and search. */
  count(session: Session, query: CountQuery): Promise<number>;
}

/**
 * Refuses a limit or offset that is not a non-negative safe integer.
 *
 * @example
 * assertCount(-1, "offset") // throws RangeError("offset must be a non-negative integer")
 */
export function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer`);
}

/**
 * The value of every primary key column from EQ conditions; refuses (IncompleteKeyError) to go on
 * without all of them, since an update or delete would then touch more than one row.
 *
 * @example
 * requireKey(["id"], [{ field: "id", operator: "EQ", value: 7 }]) // Map { "id" => 7 }
 */
export function requireKey(primaryKeys: readonly string[], filters: FilterCondition[]): Map<string, unknown> {
  const { key, missing } = keyValues(primaryKeys, filters);
  if (missing.length > 0) throw new IncompleteKeyError(missing);
  return key;
}

/**
 * How a keyset page walks the order: a `prev` page is read walking it backwards from the position
 * (`travel`), then turned around by {@link seekPage}.
 */
export function seekTravel(query: SeekQuery): { backwards: boolean; travel: "asc" | "desc" } {
  const direction = query.orderBy?.direction ?? "asc";
  const backwards = query.from?.direction === "prev";
  return { backwards, travel: backwards ? (direction === "asc" ? "desc" : "asc") : direction };
}

/** A keyset page from the `limit + 1` rows read: whether there were more, in the listing's order. */
export function seekPage(rows: SqlRow[], limit: number, backwards: boolean): SeekPage {
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  if (backwards) rows.reverse();
  return { rows, hasMore };
}

/**
 * Checks a model's primary key and version column against its table's columns, as both tables do
 * when they are built: `assertColumn` refuses a name that is no column, `isInteger` says whether a
 * column holds integers.
 */
export function checkModelKeys(
  model: { tableName: string; primaryKeys: readonly string[]; versionField?: string },
  assertColumn: (name: string, what: string) => void,
  isInteger: (name: string) => boolean,
): void {
  if (model.primaryKeys.length === 0) {
    throw new InvalidIdentifierError(`Model "${model.tableName}" declares no primary key`);
  }
  for (const key of model.primaryKeys) assertColumn(key, "primary key");
  const version = model.versionField;
  if (version === undefined) return;
  assertColumn(version, "version");
  if (model.primaryKeys.includes(version) || !isInteger(version)) {
    throw new InvalidIdentifierError(
      `versionField ${JSON.stringify(version)} of "${model.tableName}" must be an integer column that is not a primary key`,
    );
  }
}

/**
 * The error for a name that is no column of the table; `what` says where it was used ("filter", "order by").
 *
 * @example
 * throw unknownColumn("filter", "nmae", "users") // Unknown filter column "nmae" for table "users"
 */
export function unknownColumn(what: string, name: string, tableName: string): InvalidIdentifierError {
  return new InvalidIdentifierError(`Unknown ${what} column ${JSON.stringify(name)} for table "${tableName}"`);
}

/**
 * The columns of a violated unique index known only by its name and not found in the catalog, by
 * naming conventions: the primary key (MySQL's `PRIMARY`, PostgreSQL's `<table>_pkey`), else the
 * column named like the index (`isColumn`), else none.
 */
export function conventionalIndexColumns(
  index: string,
  table: string | undefined,
  primaryKeyColumns: () => string[],
  isColumn: (name: string) => boolean,
): string[] {
  if (index === "PRIMARY" || index === `${table}_pkey`) return primaryKeyColumns();
  return isColumn(index) ? [index] : [];
}
