/**
 * What the auto endpoints ask of a model's table, whatever stores it: `SqlTable` writes it as SQL text
 * for a `SqlDriver`, `DrizzleTable` (specroute/drizzle) with Drizzle's query builder for a Drizzle
 * session. Both read the plans of `plan.ts`, so every operation means the same on each.
 */
import type { FilterCondition } from "../endpoints/types";
import { DatabaseError, IncompleteKeyError, InvalidIdentifierError } from "./errors";
import { insertedKey, keyValues, rereadFilters } from "./plan";
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
  /** A row as stored that went through JSON (a live collection's change), decoded as the model declares; where the storage records changes. */
  decodeRow?(row: Record<string, unknown>): SqlRow;
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

/** An update as KeyedTable asks a table to write it: the rows by key, the values, the row read before it. */
export interface PlannedUpdate {
  keyFilters: FilterCondition[];
  data: Record<string, unknown>;
  /** With a compare-and-swap, the row as read: the statement writes only while the stored row is still it. */
  expected: SqlRow | undefined;
}

/** An UPDATE a table wrote, and the columns it writes (the version column aside). */
export interface UpdateStatement<Write> {
  write: Write;
  written: ReadonlySet<string>;
}

/**
 * What SqlTable and DrizzleTable share: an UPDATE or DELETE scoped by the full primary key, its
 * compare-and-swap, and the row read back where the engine cannot return it, step by step. Each
 * table writes the statements in its own terms (`Write`: SQL text, a Drizzle query) through the
 * protected members.
 */
export abstract class KeyedTable<Session, Write> implements StorageTable<Session> {
  abstract readonly tableName: string;
  abstract readonly columns: readonly string[];
  abstract readonly primaryKeys: readonly string[];
  abstract readonly versionField: string | undefined;

  abstract insert(session: Session, data: Record<string, unknown>): Promise<SqlRow>;
  abstract insertMany(session: Session, rows: Record<string, unknown>[]): Promise<SqlRow[]>;
  abstract selectOne(session: Session, filters: FilterCondition[]): Promise<SqlRow | null>;
  abstract list(session: Session, query: ListQuery): Promise<ListPage>;
  abstract seek(session: Session, query: SeekQuery): Promise<SeekPage>;
  abstract count(session: Session, query: CountQuery): Promise<number>;

  /**
   * The UPDATE of the given columns of the rows `keyFilters` match (and, with `expected`, only while
   * unchanged), the version column incremented; `written` names the columns it writes. Null when
   * there is nothing to write.
   */
  protected abstract updateStatement(session: Session, update: PlannedUpdate): UpdateStatement<Write> | null;
  /** The DELETE of the rows `keyFilters` match (and, with `expected`, only while unchanged). */
  protected abstract deleteStatement(
    session: Session,
    keyFilters: FilterCondition[],
    expected: SqlRow | undefined,
  ): Write;
  /** Whether the engine hands back the row a statement of this kind wrote (RETURNING). */
  protected abstract returns(session: Session, kind: "update" | "delete"): boolean;
  /** Runs a write with RETURNING: the row it wrote, or null when it matched none. */
  protected abstract writeReturning(session: Session, write: Write): Promise<SqlRow | null>;
  /** Runs a write for its effect: how many rows it changed. */
  protected abstract writeCounting(session: Session, write: Write): Promise<number>;
  /** The first row matching the conditions, or null, within the operation `guarded` runs. */
  protected abstract selectRow(session: Session, filters: FilterCondition[]): Promise<SqlRow | null>;
  /** The row by key, and only while it is unchanged since `expected` was read. */
  protected abstract selectUnchanged(
    session: Session,
    keyFilters: FilterCondition[],
    expected: SqlRow | undefined,
  ): Promise<SqlRow | null>;
  /** Runs the steps of one operation, turning what the database throws into the errors of `errors.ts` where a table does that per operation. */
  protected abstract guarded<T>(session: Session, steps: () => Promise<T>): Promise<T>;

  /**
   * Writes only the given columns of the one row identified by the full primary key (extra
   * conditions narrow it further) in one statement, incrementing the version column when the model
   * has one; returns the row as stored, or null if none matched (or, with `ifUnchanged`, the row changed).
   *
   * @example
   * await table.update(driver, [{ field: "id", operator: "EQ", value: 7 }], { name: "Grace" })
   * await table.update(driver, key, { name: "Grace" }, { ifUnchanged: rowReadBefore }) // null if it changed since
   */
  async update(
    session: Session,
    keyFilters: FilterCondition[],
    data: Record<string, unknown>,
    options: ConditionalWrite = {},
  ): Promise<SqlRow | null> {
    const key = requireKey(this.primaryKeys, keyFilters);
    const expected = options.ifUnchanged;
    const statement = this.updateStatement(session, { keyFilters, data, expected });
    return this.guarded(session, async () => {
      if (!statement) return this.selectUnchanged(session, keyFilters, expected);
      if (this.returns(session, "update")) return this.writeReturning(session, statement.write);
      const changes = await this.writeCounting(session, statement.write);
      if (changes === 0 && expected) {
        // MySQL counts changed rows, not matched ones: a write of the values already stored changes none.
        // A version column always changes, so there nothing matched; otherwise the row may still be the one read.
        return this.versionField === undefined ? this.selectUnchanged(session, keyFilters, expected) : null;
      }
      // Re-select by the key as it is now, keeping the narrowing conditions on columns that were not rewritten.
      return this.selectRow(session, rereadFilters(this.primaryKeys, key, keyFilters, data, statement.written));
    });
  }

  /**
   * Deletes the one row identified by the full primary key and returns it, or null if none matched
   * (or, with `ifUnchanged`, the row changed since it was read: then nothing is deleted).
   *
   * @example
   * await table.delete(driver, [{ field: "id", operator: "EQ", value: 7 }])
   */
  async delete(
    session: Session,
    keyFilters: FilterCondition[],
    options: ConditionalWrite = {},
  ): Promise<SqlRow | null> {
    requireKey(this.primaryKeys, keyFilters);
    const expected = options.ifUnchanged;
    const write = this.deleteStatement(session, keyFilters, expected);
    return this.guarded(session, async () => {
      if (this.returns(session, "delete")) return this.writeReturning(session, write);
      // With `expected`, the row deleted, if any, was the one read: the statement compared it.
      const row = expected ?? (await this.selectRow(session, keyFilters));
      if (!row) return null;
      return (await this.writeCounting(session, write)) > 0 ? row : null;
    });
  }

  /**
   * Checks the model's primary key and version column against the table's columns, as the table is
   * built: `assertColumn` refuses a name that is no column, `isInteger` says whether a column holds integers.
   */
  protected checkKeys(
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

  /** The error for a name that is no column of the table; `what` says where it was used ("filter", "order by"). */
  protected unknownColumn(what: string, name: string): InvalidIdentifierError {
    return new InvalidIdentifierError(`Unknown ${what} column ${JSON.stringify(name)} for table "${this.tableName}"`);
  }

  /**
   * The columns of a violated unique index known only by its name and not found in the catalog, by
   * naming conventions: the primary key (MySQL's `PRIMARY`, PostgreSQL's `<table>_pkey`), else the
   * column named like the index (`isColumn`), else none.
   */
  protected conventionalColumns(
    index: string,
    table: string | undefined,
    primaryKeyColumns: () => string[],
    isColumn: (name: string) => boolean,
  ): string[] {
    if (index === "PRIMARY" || index === `${table}_pkey`) return primaryKeyColumns();
    return isColumn(index) ? [index] : [];
  }

  /**
   * The row an INSERT that could not return it stored, read back by its key: the key values given,
   * else the generated id the engine reported.
   */
  protected async readBack(session: Session, data: Record<string, unknown>, lastInsertId: unknown): Promise<SqlRow> {
    const key = insertedKey(this.primaryKeys, data, lastInsertId);
    const row = key && (await this.selectRow(session, key));
    if (!row)
      throw new DatabaseError(new Error(`Inserted row of "${this.tableName}" could not be read back by its key`));
    return row;
  }
}
