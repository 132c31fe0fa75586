import type { z } from "zod";
import type { FilterCondition, Model } from "../endpoints/types";
import { type ColumnKind, columnKind, decodeValue, encodeValue, mayBeNull } from "./codec";
import type { Dialect, UniqueViolation } from "./dialect";
import type { SqlDriver, SqlStatement } from "./driver";
import {
  DatabaseError,
  IncompleteKeyError,
  InvalidIdentifierError,
  InvalidValueError,
  UniqueViolationError,
} from "./errors";
import { assertIdentifier, parseTableName } from "./identifiers";
import {
  beyondCondition,
  insertedKey,
  keysetColumns,
  keysetOrder,
  keyValues,
  type OrderTerm,
  pageOrder,
  rereadFilters,
  unchangedColumns,
} from "./plan";
import { type SearchClause, StatementBuilder } from "./statement";

/** A row as stored, with values turned back into the kinds the model's schema declares. */
export type SqlRow = Record<string, unknown>;

/** One page of a filtered, searched, ordered listing. */
export interface ListQuery {
  /** Conditions joined with AND; operators EQ NE GT GTE LT LTE IN ISNULL (and LIKE = search in one field). */
  filters: FilterCondition[];
  search?: SearchClause;
  orderBy?: { column: string; direction: "asc" | "desc" };
  limit: number;
  offset: number;
  /**
   * Break ties on the primary key in the order's direction, as {@link SqlTable.seek} does, instead of
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
export interface SeekQuery {
  filters: FilterCondition[];
  search?: SearchClause;
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

export interface SqlTableOptions {
  /** Every column of the table; defaults to the model's schema. */
  fields?: z.ZodObject;
  /**
   * Keep the values of each row `selectOne` returns as the driver gave them (one WeakMap entry per
   * row), so `ifUnchanged` binds exactly what was read rather than values encoded again from the
   * decoded row. Conditional SQL endpoints set it.
   */
  keepReadValues?: boolean;
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

function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer`);
}

/**
 * Table-level CRUD for one model, built once (at route registration) and used with any driver:
 * identifiers are checked here, every value is bound, rows come back decoded per the schema.
 *
 * @example
 * const users = new SqlTable({ tableName: "users", schema: User, primaryKeys: ["id"] })
 * const created = await users.insert(driver, { name: "Ada" })  // { id: 1, name: "Ada", active: true }
 * const page = await users.list(driver, { filters: [], limit: 20, offset: 0 })
 */
export class SqlTable {
  readonly tableName: string;
  readonly columns: readonly string[];
  readonly primaryKeys: readonly string[];
  /** The integer column every write through this table increments, when the model names one. */
  readonly versionField: string | undefined;
  readonly #tableParts: readonly string[];
  readonly #kinds: ReadonlyMap<string, ColumnKind>;
  // Each decoded row's values as the driver returned them, so a compare-and-swap binds exactly what was read.
  readonly #raw: WeakMap<SqlRow, Record<string, unknown>> | undefined;
  /** Columns the schema lets hold NULL (primary keys never do). */
  readonly #nullable: ReadonlySet<string>;

  constructor(
    model: Pick<Model, "tableName" | "schema" | "primaryKeys" | "versionField">,
    options: SqlTableOptions = {},
  ) {
    this.#tableParts = parseTableName(model.tableName);
    this.tableName = model.tableName;
    const shape = (options.fields ?? model.schema).shape as Record<string, z.ZodType>;
    const kinds = new Map<string, ColumnKind>();
    const nullable = new Set<string>();
    for (const [name, schema] of Object.entries(shape)) {
      assertIdentifier(name, "column");
      kinds.set(name, columnKind(schema));
      if (mayBeNull(schema) && !model.primaryKeys.includes(name)) nullable.add(name);
    }
    this.#kinds = kinds;
    this.#nullable = nullable;
    this.columns = [...kinds.keys()];
    if (model.primaryKeys.length === 0) {
      throw new InvalidIdentifierError(`Model "${model.tableName}" declares no primary key`);
    }
    for (const key of model.primaryKeys) this.#assertColumn(key, "primary key");
    this.primaryKeys = [...model.primaryKeys];
    this.versionField = model.versionField;
    this.#raw = options.keepReadValues ? new WeakMap() : undefined;
    if (model.versionField !== undefined) {
      this.#assertColumn(model.versionField, "version");
      const kind = kinds.get(model.versionField);
      if (model.primaryKeys.includes(model.versionField) || (kind !== "number" && kind !== "bigint")) {
        throw new InvalidIdentifierError(
          `versionField ${JSON.stringify(model.versionField)} of "${model.tableName}" must be an integer column that is not a primary key`,
        );
      }
    }
  }

  /**
   * Inserts one row (columns left out take their database defaults) and returns it as stored.
   *
   * @example
   * await table.insert(driver, { name: "Ada" }) // { id: 7, name: "Ada", active: true }
   */
  async insert(driver: SqlDriver, data: Record<string, unknown>): Promise<SqlRow> {
    return this.#runInsert(driver, this.#insertStatement(driver.dialect, data), data);
  }

  /**
   * Inserts several rows as one unit — all or none — and returns them as stored, in order: in one
   * `transaction()` where the driver has it, else in one `batch()` with RETURNING (D1). Every row is
   * checked against the model before any statement runs; a failing row (a duplicate key) rolls the
   * others back and throws as `insert` does.
   *
   * @example
   * await table.insertMany(driver, [{ name: "Ada" }, { name: "Grace" }]) // [{ id: 7, ... }, { id: 8, ... }]
   */
  async insertMany(driver: SqlDriver, rows: Record<string, unknown>[]): Promise<SqlRow[]> {
    if (rows.length === 0) return [];
    const statements = rows.map((data) => this.#insertStatement(driver.dialect, data));
    if (driver.transaction) {
      return driver.transaction(async (tx) => {
        const stored: SqlRow[] = [];
        for (const [index, statement] of statements.entries())
          stored.push(await this.#runInsert(tx, statement, rows[index]!));
        return stored;
      });
    }
    if (driver.batch && driver.dialect.returning.insert) {
      let results: Record<string, unknown>[][];
      try {
        results = await driver.batch(statements);
      } catch (error) {
        throw await this.#wrap(driver, error);
      }
      return results.map(([row]) => {
        if (!row) throw new DatabaseError(new Error(`An inserted row of "${this.tableName}" came back empty`));
        return this.#decode(row);
      });
    }
    throw new DatabaseError(
      new Error("The driver cannot write rows all or none: it has neither transaction() nor batch() with RETURNING"),
    );
  }

  /** The INSERT of one row, with RETURNING where the dialect has it; columns checked, values bound. */
  #insertStatement(dialect: Dialect, data: Record<string, unknown>): SqlStatement {
    const version = this.versionField;
    // A new row starts at version 1, so its first ETag is "v1" whatever the column's default.
    if (version !== undefined && data[version] === undefined) data = { ...data, [version]: 1 };
    const sql = new StatementBuilder(dialect);
    const assignments = this.#assignments(data);
    const insert =
      assignments.length > 0
        ? `INSERT INTO ${this.#from(sql)} (${assignments.map(([name]) => sql.id(name)).join(", ")}) VALUES (${assignments.map(([, value]) => sql.bind(value)).join(", ")})`
        : `INSERT INTO ${this.#from(sql)} ${dialect.insertDefaults}`;
    const text = dialect.returning.insert ? `${insert} RETURNING ${this.#selectList(sql)}` : insert;
    return { sql: text, params: sql.params };
  }

  /** Runs an INSERT and returns the row as stored: from RETURNING, else re-selected by its key. */
  async #runInsert(driver: SqlDriver, statement: SqlStatement, data: Record<string, unknown>): Promise<SqlRow> {
    if (driver.dialect.returning.insert) {
      const [row] = await this.#query(driver, statement.sql, statement.params);
      return this.#decode(row!);
    }
    const result = await this.#execute(driver, statement.sql, statement.params);
    const key = insertedKey(this.primaryKeys, data, result.lastInsertId);
    const row = key && (await this.selectOne(driver, key));
    if (!row)
      throw new DatabaseError(new Error(`Inserted row of "${this.tableName}" could not be read back by its key`));
    return row;
  }

  /**
   * The first row (in primary key order) matching all conditions, or null.
   *
   * @example
   * await table.selectOne(driver, [{ field: "id", operator: "EQ", value: 7 }])
   */
  async selectOne(driver: SqlDriver, filters: FilterCondition[]): Promise<SqlRow | null> {
    const sql = new StatementBuilder(driver.dialect);
    const where = sql.where(this.#conditions(sql, filters));
    const statement = `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${where} ORDER BY ${this.#order(sql, pageOrder(this.primaryKeys))} ${driver.dialect.limitOffset(1, 0, sql.bind)}`;
    const [row] = await this.#query(driver, statement, sql.params);
    if (!row) return null;
    const decoded = this.#decode(row);
    this.#raw?.set(decoded, row);
    return decoded;
  }

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
    driver: SqlDriver,
    keyFilters: FilterCondition[],
    data: Record<string, unknown>,
    options: ConditionalWrite = {},
  ): Promise<SqlRow | null> {
    const key = this.#requireKey(keyFilters);
    const version = this.versionField;
    const assignments = this.#assignments(data).filter(([name]) => name !== version);
    const expected = options.ifUnchanged;
    const sql = new StatementBuilder(driver.dialect);
    const set = assignments.map(([name, value]) => `${sql.id(name)} = ${sql.bind(value)}`);
    if (version !== undefined) set.push(`${sql.id(version)} = COALESCE(${sql.id(version)}, 0) + 1`);
    if (set.length === 0) return this.#selectUnchanged(driver, keyFilters, expected);
    const where = sql.where([...this.#conditions(sql, keyFilters), ...this.#unchanged(sql, expected)]);
    const statement = `UPDATE ${this.#from(sql)} SET ${set.join(", ")}${where}`;
    if (driver.dialect.returning.update) {
      const [row] = await this.#query(driver, `${statement} RETURNING ${this.#selectList(sql)}`, sql.params);
      return row ? this.#decode(row) : null;
    }
    const result = await this.#execute(driver, statement, sql.params);
    if (result.changes === 0 && expected) {
      // MySQL counts changed rows, not matched ones: a write of the values already stored changes none.
      // A version column always changes, so there nothing matched; otherwise the row may still be the one read.
      return version === undefined ? this.#selectUnchanged(driver, keyFilters, expected) : null;
    }
    // Re-select by the key as it is now, keeping the narrowing conditions on columns that were not rewritten.
    const written = new Set(assignments.map(([name]) => name));
    return this.selectOne(driver, rereadFilters(this.primaryKeys, key, keyFilters, data, written));
  }

  /**
   * Deletes the one row identified by the full primary key and returns it, or null if none matched
   * (or, with `ifUnchanged`, the row changed since it was read: then nothing is deleted).
   *
   * @example
   * await table.delete(driver, [{ field: "id", operator: "EQ", value: 7 }])
   */
  async delete(
    driver: SqlDriver,
    keyFilters: FilterCondition[],
    options: ConditionalWrite = {},
  ): Promise<SqlRow | null> {
    this.#requireKey(keyFilters);
    const expected = options.ifUnchanged;
    const sql = new StatementBuilder(driver.dialect);
    const where = sql.where([...this.#conditions(sql, keyFilters), ...this.#unchanged(sql, expected)]);
    const statement = `DELETE FROM ${this.#from(sql)}${where}`;
    if (driver.dialect.returning.delete) {
      const [row] = await this.#query(driver, `${statement} RETURNING ${this.#selectList(sql)}`, sql.params);
      return row ? this.#decode(row) : null;
    }
    if (expected) {
      // The row deleted, if any, was the one read: the statement compared it.
      const result = await this.#execute(driver, statement, sql.params);
      return result.changes > 0 ? expected : null;
    }
    const row = await this.selectOne(driver, keyFilters);
    if (!row) return null;
    const result = await this.#execute(driver, statement, sql.params);
    return result.changes > 0 ? row : null;
  }

  /**
   * One page of rows plus the total matching count. Ordering always ends with the primary key,
   * so pages never overlap or skip rows when the order column has ties.
   *
   * @example
   * await table.list(driver, {
   *   filters: [{ field: "active", operator: "EQ", value: true }],
   *   search: { columns: ["name"], term: "ada" },
   *   orderBy: { column: "name", direction: "asc" },
   *   limit: 20,
   *   offset: 40,
   * })
   */
  async list(driver: SqlDriver, query: ListQuery): Promise<ListPage> {
    assertCount(query.limit, "limit");
    assertCount(query.offset, "offset");
    if (query.search) for (const name of query.search.columns) this.#assertColumn(name, "search");
    if (query.orderBy) this.#assertColumn(query.orderBy.column, "order by");

    const where = (sql: StatementBuilder) =>
      sql.where([...this.#conditions(sql, query.filters), ...(query.search ? [sql.search(query.search)] : [])]);

    const count = new StatementBuilder(driver.dialect);
    const countStatement = `SELECT COUNT(*) AS total FROM ${this.#from(count)}${where(count)}`;

    const page = new StatementBuilder(driver.dialect);
    const filtered = `SELECT ${this.#selectList(page)} FROM ${this.#from(page)}${where(page)}`;
    const order = this.#order(
      page,
      query.keysetOrder
        ? keysetOrder(this.primaryKeys, this.#nullable, query.orderBy?.column, query.orderBy?.direction ?? "asc")
        : pageOrder(this.primaryKeys, query.orderBy),
    );
    const pageStatement = `${filtered} ORDER BY ${order} ${driver.dialect.limitOffset(query.limit, query.offset, page.bind)}`;

    const [rows, totals] = await Promise.all([
      this.#query(driver, pageStatement, page.params),
      this.#query(driver, countStatement, count.params),
    ]);
    return { rows: rows.map((row) => this.#decode(row)), totalCount: Number(totals[0]?.total ?? 0) };
  }

  /** The row by key, and only while it is unchanged since `expected` was read. */
  async #selectUnchanged(driver: SqlDriver, keyFilters: FilterCondition[], expected?: SqlRow): Promise<SqlRow | null> {
    if (!expected) return this.selectOne(driver, keyFilters);
    const sql = new StatementBuilder(driver.dialect);
    const where = sql.where([...this.#conditions(sql, keyFilters), ...this.#unchanged(sql, expected)]);
    const [row] = await this.#query(
      driver,
      `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${where}`,
      sql.params,
    );
    return row ? this.#decode(row) : null;
  }

  /**
   * Conditions holding only while the stored row is still `expected`: its version when the table has
   * one, else every non-key column it holds, compared exactly (NULL as IS NULL) with the values read.
   */
  #unchanged(sql: StatementBuilder, expected: SqlRow | undefined): string[] {
    if (!expected) return [];
    const read = this.#raw?.get(expected) ?? expected;
    return unchangedColumns(read, this.columns, this.primaryKeys, this.versionField).map((name) => {
      const value = read[name];
      const column = sql.id(name);
      if (value === null) return `${column} IS NULL`;
      const encoded = encodeValue(value);
      const placeholder = sql.bind(encoded);
      return sql.dialect.sameValue?.(column, placeholder, value, encoded !== value) ?? `${column} = ${placeholder}`;
    });
  }

  /**
   * One page of rows beyond a position in the order (keyset pagination): `WHERE (order, key) > (…)`
   * with the primary key as tiebreaker in the order's direction, NULL smallest, no OFFSET and no
   * count. Rows inserted or deleted between pages never make another row repeat or go missing.
   *
   * @example
   * const first = await table.seek(driver, { filters: [], orderBy: { column: "name", direction: "asc" }, limit: 20 })
   * const last = first.rows.at(-1)!
   * await table.seek(driver, { filters: [], orderBy: { column: "name", direction: "asc" }, limit: 20,
   *   from: { direction: "next", key: { name: last.name, id: last.id } } })
   */
  async seek(driver: SqlDriver, query: SeekQuery): Promise<SeekPage> {
    assertCount(query.limit, "limit");
    if (query.search) for (const name of query.search.columns) this.#assertColumn(name, "search");
    const column = query.orderBy?.column;
    if (column !== undefined) this.#assertColumn(column, "order by");
    const direction = query.orderBy?.direction ?? "asc";
    // A `prev` page is read walking the order backwards from the position, then turned around.
    const backwards = query.from?.direction === "prev";
    const travel = backwards ? (direction === "asc" ? "desc" : "asc") : direction;

    const sql = new StatementBuilder(driver.dialect);
    const conditions = [...this.#conditions(sql, query.filters), ...(query.search ? [sql.search(query.search)] : [])];
    if (query.from) {
      const nullableColumn = column !== undefined && this.#nullable.has(column) ? column : undefined;
      const beyond = beyondCondition(keysetColumns(this.primaryKeys, column), nullableColumn, travel, query.from.key);
      conditions.push(sql.render(beyond, encodeValue));
    }
    const limit =
      driver.dialect.limit?.(query.limit + 1, sql.bind) ?? driver.dialect.limitOffset(query.limit + 1, 0, sql.bind);
    const statement = `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${sql.where(conditions)} ORDER BY ${this.#order(sql, keysetOrder(this.primaryKeys, this.#nullable, column, travel))} ${limit}`;
    const rows = (await this.#query(driver, statement, sql.params)).map((row) => this.#decode(row));
    const hasMore = rows.length > query.limit;
    if (hasMore) rows.pop();
    if (backwards) rows.reverse();
    return { rows, hasMore };
  }

  #assertColumn(name: string, what: string): void {
    if (!this.#kinds.has(name)) {
      throw new InvalidIdentifierError(`Unknown ${what} column ${JSON.stringify(name)} for table "${this.tableName}"`);
    }
  }

  #from(sql: StatementBuilder): string {
    return this.#tableParts.map((part) => sql.id(part)).join(".");
  }

  #selectList(sql: StatementBuilder): string {
    return this.columns.map((name) => sql.id(name)).join(", ");
  }

  /** An ORDER BY list in the dialect's words. */
  #order(sql: StatementBuilder, terms: OrderTerm[]): string {
    return terms.map((term) => sql.dialect.orderBy(sql.id(term.column), term.direction, term.mayBeNull)).join(", ");
  }

  #conditions(sql: StatementBuilder, filters: FilterCondition[]): string[] {
    return filters.map((condition) => {
      this.#assertColumn(condition.field, "filter");
      return sql.condition(condition, encodeValue);
    });
  }

  /** Columns and bound values to write; `undefined` means "leave out" (the default applies on insert). */
  #assignments(data: Record<string, unknown>): [string, unknown][] {
    const assignments: [string, unknown][] = [];
    for (const [name, value] of Object.entries(data)) {
      if (value === undefined) continue;
      this.#assertColumn(name, "data");
      assignments.push([name, encodeValue(value)]);
    }
    return assignments;
  }

  /** The value of every primary key column from EQ conditions; refuses to go on without all of them. */
  #requireKey(filters: FilterCondition[]): Map<string, unknown> {
    const { key, missing } = keyValues(this.primaryKeys, filters);
    if (missing.length > 0) throw new IncompleteKeyError(missing);
    return key;
  }

  #decode(row: Record<string, unknown>): SqlRow {
    const decoded: SqlRow = {};
    for (const [name, kind] of this.#kinds) decoded[name] = decodeValue(kind, row[name]);
    return decoded;
  }

  async #query(driver: SqlDriver, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    try {
      return await driver.query(sql, params);
    } catch (error) {
      throw await this.#wrap(driver, error);
    }
  }

  async #execute(driver: SqlDriver, sql: string, params: unknown[]) {
    try {
      return await driver.execute(sql, params);
    } catch (error) {
      throw await this.#wrap(driver, error);
    }
  }

  /**
   * Turns a driver error into a safe one; SQL text and engine messages stay in `cause`. A value the
   * engine refused (out of its column's range, say) is the client's: an InvalidValueError.
   */
  async #wrap(driver: SqlDriver, error: unknown): Promise<DatabaseError | InvalidValueError> {
    let violation: UniqueViolation | null = null;
    try {
      if (driver.dialect.dataException?.(error)) return new InvalidValueError("A value does not fit its column");
      violation = driver.dialect.uniqueViolation(error);
    } catch {
      // A dialect that cannot read the error leaves it a plain DatabaseError.
    }
    if (!violation) return new DatabaseError(error);
    return new UniqueViolationError(await this.#uniqueColumns(driver, violation), error, violation.constraint);
  }

  /** Columns of a violated index: from the message, else the catalog, else naming conventions. */
  async #uniqueColumns(driver: SqlDriver, violation: UniqueViolation): Promise<string[]> {
    if (violation.columns.length > 0 || !violation.index) return violation.columns;
    try {
      const columns = await uniqueIndexColumns(driver, this.tableName, violation.index);
      if (columns.length > 0) return columns;
    } catch {
      // The catalog may be unreadable for this role; fall through to conventions.
    }
    const table = this.#tableParts[this.#tableParts.length - 1];
    if (violation.index === "PRIMARY" || violation.index === `${table}_pkey`) return [...this.primaryKeys];
    return this.#kinds.has(violation.index) ? [violation.index] : [];
  }
}

/**
 * Looks up the columns of a unique index by name through the driver's dialect (what
 * `SqlTable` does when an engine's error names only the index). Empty if unknown.
 *
 * @example
 * await uniqueIndexColumns(driver, "users", "users_email_key") // ["email"]
 */
export async function uniqueIndexColumns(driver: SqlDriver, tableName: string, index: string): Promise<string[]> {
  const lookup = driver.dialect.uniqueIndexColumns?.(parseTableName(tableName), index);
  if (!lookup) return [];
  const rows = await driver.query<{ column_name: unknown }>(lookup.sql, lookup.params);
  return rows.map((row) => String(row.column_name));
}
