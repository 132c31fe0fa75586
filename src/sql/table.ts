import type { z } from "zod";
import type { FilterCondition, Model } from "../endpoints/types";
import { type ColumnKind, columnKind, decodeValue, encodeValue, mayBeNull } from "./codec";
import type { UniqueViolation } from "./dialect";
import type { SqlDriver } from "./driver";
import {
  DatabaseError,
  IncompleteKeyError,
  InvalidIdentifierError,
  InvalidValueError,
  UniqueViolationError,
} from "./errors";
import { assertIdentifier, parseTableName } from "./identifiers";
import { type SearchClause, StatementBuilder } from "./statement";

/** A row as stored, with values turned back into the kinds the model's schema declares. */
export type SqlRow = Record<string, unknown>;

/** One page of a filtered, searched, ordered listing. */
export interface ListQuery {
  /** Conditions joined with AND; operators EQ NE GT GTE LT LTE IN (and LIKE = search in one field). */
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
  readonly #tableParts: readonly string[];
  readonly #kinds: ReadonlyMap<string, ColumnKind>;
  /** Columns the schema lets hold NULL (primary keys never do). */
  readonly #nullable: ReadonlySet<string>;

  constructor(model: Pick<Model, "tableName" | "schema" | "primaryKeys">, options: SqlTableOptions = {}) {
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
  }

  /**
   * Inserts one row (columns left out take their database defaults) and returns it as stored.
   *
   * @example
   * await table.insert(driver, { name: "Ada" }) // { id: 7, name: "Ada", active: true }
   */
  async insert(driver: SqlDriver, data: Record<string, unknown>): Promise<SqlRow> {
    const sql = new StatementBuilder(driver.dialect);
    const assignments = this.#assignments(data);
    const statement =
      assignments.length > 0
        ? `INSERT INTO ${this.#from(sql)} (${assignments.map(([name]) => sql.id(name)).join(", ")}) VALUES (${assignments.map(([, value]) => sql.bind(value)).join(", ")})`
        : `INSERT INTO ${this.#from(sql)} ${driver.dialect.insertDefaults}`;
    if (driver.dialect.returning.insert) {
      const [row] = await this.#query(driver, `${statement} RETURNING ${this.#selectList(sql)}`, sql.params);
      return this.#decode(row);
    }
    const result = await this.#execute(driver, statement, sql.params);
    const key = this.#insertedKey(data, result.lastInsertId);
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
    const statement = `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${where} ORDER BY ${this.#keyOrder(sql)} ${driver.dialect.limitOffset(1, 0, sql.bind)}`;
    const [row] = await this.#query(driver, statement, sql.params);
    return row ? this.#decode(row) : null;
  }

  /**
   * Writes only the given columns of the one row identified by the full primary key (extra
   * conditions narrow it further) in one statement; returns the row as stored, or null if none matched.
   *
   * @example
   * await table.update(driver, [{ field: "id", operator: "EQ", value: 7 }], { name: "Grace" })
   */
  async update(
    driver: SqlDriver,
    keyFilters: FilterCondition[],
    data: Record<string, unknown>,
  ): Promise<SqlRow | null> {
    const key = this.#requireKey(keyFilters);
    const assignments = this.#assignments(data);
    if (assignments.length === 0) return this.selectOne(driver, keyFilters);
    const sql = new StatementBuilder(driver.dialect);
    const set = assignments.map(([name, value]) => `${sql.id(name)} = ${sql.bind(value)}`).join(", ");
    const statement = `UPDATE ${this.#from(sql)} SET ${set}${sql.where(this.#conditions(sql, keyFilters))}`;
    if (driver.dialect.returning.update) {
      const [row] = await this.#query(driver, `${statement} RETURNING ${this.#selectList(sql)}`, sql.params);
      return row ? this.#decode(row) : null;
    }
    await this.#execute(driver, statement, sql.params);
    // Re-select by the key as it is now, keeping the narrowing conditions on columns that were not rewritten.
    const written = new Set(assignments.map(([name]) => name));
    const after: FilterCondition[] = [
      ...this.primaryKeys.map((field) => ({
        field,
        operator: "EQ" as const,
        value: written.has(field) ? data[field] : key.get(field),
      })),
      ...keyFilters.filter((condition) => !this.primaryKeys.includes(condition.field) && !written.has(condition.field)),
    ];
    return this.selectOne(driver, after);
  }

  /**
   * Deletes the one row identified by the full primary key and returns it, or null if none matched.
   *
   * @example
   * await table.delete(driver, [{ field: "id", operator: "EQ", value: 7 }])
   */
  async delete(driver: SqlDriver, keyFilters: FilterCondition[]): Promise<SqlRow | null> {
    this.#requireKey(keyFilters);
    const sql = new StatementBuilder(driver.dialect);
    const statement = `DELETE FROM ${this.#from(sql)}${sql.where(this.#conditions(sql, keyFilters))}`;
    if (driver.dialect.returning.delete) {
      const [row] = await this.#query(driver, `${statement} RETURNING ${this.#selectList(sql)}`, sql.params);
      return row ? this.#decode(row) : null;
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
    const order = query.keysetOrder
      ? this.#keysetOrder(page, query.orderBy?.column, query.orderBy?.direction ?? "asc")
      : query.orderBy
        ? [
            driver.dialect.orderBy(page.id(query.orderBy.column), query.orderBy.direction),
            this.#keyOrder(page, query.orderBy.column),
          ]
            .filter(Boolean)
            .join(", ")
        : this.#keyOrder(page);
    const pageStatement = `${filtered} ORDER BY ${order} ${driver.dialect.limitOffset(query.limit, query.offset, page.bind)}`;

    const [rows, totals] = await Promise.all([
      this.#query(driver, pageStatement, page.params),
      this.#query(driver, countStatement, count.params),
    ]);
    return { rows: rows.map((row) => this.#decode(row)), totalCount: Number(totals[0]?.total ?? 0) };
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
    if (query.from) conditions.push(this.#beyond(sql, column, travel, query.from.key));
    const limit =
      driver.dialect.limit?.(query.limit + 1, sql.bind) ?? driver.dialect.limitOffset(query.limit + 1, 0, sql.bind);
    const statement = `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${sql.where(conditions)} ORDER BY ${this.#keysetOrder(sql, column, travel)} ${limit}`;
    const rows = (await this.#query(driver, statement, sql.params)).map((row) => this.#decode(row));
    const hasMore = rows.length > query.limit;
    if (hasMore) rows.pop();
    if (backwards) rows.reverse();
    return { rows, hasMore };
  }

  /** The order column (when given), then the primary key columns not already named. */
  #keysetColumns(column: string | undefined): string[] {
    const keys = this.primaryKeys.filter((name) => name !== column);
    return column === undefined ? keys : [column, ...keys];
  }

  /** ORDER BY for keyset pages: every key column in one direction, so one index on (order column, key) serves both ways. */
  #keysetOrder(sql: StatementBuilder, column: string | undefined, direction: "asc" | "desc"): string {
    return this.#keysetColumns(column)
      .map((name) => sql.dialect.orderBy(sql.id(name), direction, this.#nullable.has(name)))
      .join(", ");
  }

  /**
   * Rows strictly beyond `key` when walking the order `travel`-wards, NULL being smallest: a row-value
   * comparison `(a, id) > (?, ?)` (what an index on (a, id) serves), with NULLs of a nullable order column
   * handled beside it since they compare as unknown.
   */
  #beyond(
    sql: StatementBuilder,
    column: string | undefined,
    travel: "asc" | "desc",
    key: Record<string, unknown>,
  ): string {
    const names = this.#keysetColumns(column);
    const nullableColumn = column !== undefined && this.#nullable.has(column) ? column : undefined;
    for (const name of names) {
      if (key[name] === undefined)
        throw new InvalidValueError(`The position to page from has no ${JSON.stringify(name)}`);
      if (key[name] === null && name !== nullableColumn) {
        throw new InvalidValueError(`The position to page from has no value for ${JSON.stringify(name)}`);
      }
    }
    const comparison = travel === "asc" ? ">" : "<";
    const compare = (columns: string[]) => {
      if (columns.length === 0) return "1 = 0";
      const bound = columns.map((name) => sql.bind(encodeValue(key[name])));
      const quoted = columns.map((name) => sql.id(name));
      return columns.length === 1
        ? `${quoted[0]} ${comparison} ${bound[0]}`
        : `(${quoted.join(", ")}) ${comparison} (${bound.join(", ")})`;
    };
    if (nullableColumn === undefined) return compare(names);
    const orderColumn = sql.id(nullableColumn);
    if (key[nullableColumn] === null) {
      // Beyond a NULL: the rest of the NULLs by key, then (ascending) every non-NULL value.
      const nulls = `(${orderColumn} IS NULL AND ${compare(names.slice(1))})`;
      return travel === "asc" ? `(${nulls} OR ${orderColumn} IS NOT NULL)` : nulls;
    }
    // Beyond a value: NULLs come first, so only a descending walk reaches them.
    return travel === "asc" ? compare(names) : `(${compare(names)} OR ${orderColumn} IS NULL)`;
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

  /** Primary key columns ascending, except `skip` (already ordered on). */
  #keyOrder(sql: StatementBuilder, skip?: string): string {
    return this.primaryKeys
      .filter((name) => name !== skip)
      .map((name) => sql.dialect.orderBy(sql.id(name), "asc"))
      .join(", ");
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
    const key = new Map<string, unknown>();
    for (const condition of filters) {
      const isKeyValue = condition.operator === "EQ" && condition.value !== null && condition.value !== undefined;
      if (isKeyValue && this.primaryKeys.includes(condition.field)) key.set(condition.field, condition.value);
    }
    const missing = this.primaryKeys.filter((name) => !key.has(name));
    if (missing.length > 0) throw new IncompleteKeyError(missing);
    return key;
  }

  /** Key conditions of a row just inserted without RETURNING: given values, else the generated id. */
  #insertedKey(data: Record<string, unknown>, lastInsertId: unknown): FilterCondition[] | null {
    const key: FilterCondition[] = [];
    let generatedUsed = false;
    for (const field of this.primaryKeys) {
      let value = data[field];
      if (value === undefined || value === null) {
        if (generatedUsed || lastInsertId === undefined || lastInsertId === null) return null;
        value = lastInsertId;
        generatedUsed = true;
      }
      key.push({ field, operator: "EQ", value });
    }
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
