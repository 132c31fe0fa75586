import type { z } from "zod";
import type { FilterCondition, Model, ModelSchema } from "../endpoints/types";
import { membersOf } from "../schema";
import { type ColumnKind, columnKind, decodeValue, encodeValue, mayBeNull } from "./codec";
import { assertCount, type Dialect, type UniqueViolation } from "./dialect";
import type { SqlDriver, SqlStatement } from "./driver";
import { DatabaseError, InvalidValueError, UniqueViolationError } from "./errors";
import { assertIdentifier, parseTableName } from "./identifiers";
import {
  beyondCondition,
  keysetColumns,
  keysetOrder,
  type OrderTerm,
  pageOrder,
  searchCondition,
  unchangedColumns,
} from "./plan";
import { StatementBuilder } from "./statement";
import type { CountQuery, ListPage, ListQuery, SeekPage, SeekQuery, SqlRow } from "./storage";
import { KeyedTable, type PlannedUpdate, seekPage, seekTravel, type UpdateStatement } from "./storage";

export interface SqlTableOptions {
  /** Every column of the table; defaults to the model's schema. */
  fields?: ModelSchema | z.ZodType;
  /**
   * Keep the values of each row `selectOne` returns as the driver gave them (one WeakMap entry per
   * row), so `ifUnchanged` binds exactly what was read rather than values encoded again from the
   * decoded row. Conditional SQL endpoints set it.
   */
  keepReadValues?: boolean;
}

/** An UPDATE or DELETE's text and the builder holding its parameters (a RETURNING list is added to it). */
interface SqlWrite {
  text: string;
  sql: StatementBuilder;
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
export class SqlTable extends KeyedTable<SqlDriver, SqlWrite> {
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
    model: Pick<Model<ModelSchema>, "tableName" | "primaryKeys" | "versionField"> & { schema: ModelSchema | z.ZodType },
    options: SqlTableOptions = {},
  ) {
    super();
    this.#tableParts = parseTableName(model.tableName);
    this.tableName = model.tableName;
    const shape = membersOf(options.fields ?? model.schema);
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
    this.checkKeys(
      model,
      (name, what) => this.#assertColumn(name, what),
      (name) => kinds.get(name) === "number" || kinds.get(name) === "bigint",
    );
    this.primaryKeys = [...model.primaryKeys];
    this.versionField = model.versionField;
    this.#raw = options.keepReadValues ? new WeakMap() : undefined;
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
    return this.readBack(driver, data, result.lastInsertId);
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

  protected updateStatement(
    driver: SqlDriver,
    { keyFilters, data, expected }: PlannedUpdate,
  ): UpdateStatement<SqlWrite> | null {
    const version = this.versionField;
    const assignments = this.#assignments(data).filter(([name]) => name !== version);
    const sql = new StatementBuilder(driver.dialect);
    const set = assignments.map(([name, value]) => `${sql.id(name)} = ${sql.bind(value)}`);
    if (version !== undefined) set.push(`${sql.id(version)} = COALESCE(${sql.id(version)}, 0) + 1`);
    if (set.length === 0) return null;
    const where = sql.where([...this.#conditions(sql, keyFilters), ...this.#unchanged(sql, expected)]);
    const write = { text: `UPDATE ${this.#from(sql)} SET ${set.join(", ")}${where}`, sql };
    return { write, written: new Set(assignments.map(([name]) => name)) };
  }

  protected deleteStatement(driver: SqlDriver, keyFilters: FilterCondition[], expected: SqlRow | undefined): SqlWrite {
    const sql = new StatementBuilder(driver.dialect);
    const where = sql.where([...this.#conditions(sql, keyFilters), ...this.#unchanged(sql, expected)]);
    return { text: `DELETE FROM ${this.#from(sql)}${where}`, sql };
  }

  protected returns(driver: SqlDriver, kind: "update" | "delete"): boolean {
    return driver.dialect.returning[kind];
  }

  protected async writeReturning(driver: SqlDriver, write: SqlWrite): Promise<SqlRow | null> {
    const [row] = await this.#query(driver, `${write.text} RETURNING ${this.#selectList(write.sql)}`, write.sql.params);
    return row ? this.#decode(row) : null;
  }

  protected async writeCounting(driver: SqlDriver, write: SqlWrite): Promise<number> {
    return (await this.#execute(driver, write.text, write.sql.params)).changes;
  }

  protected selectRow(driver: SqlDriver, filters: FilterCondition[]): Promise<SqlRow | null> {
    return this.selectOne(driver, filters);
  }

  // Each statement turns its own driver errors into the errors of `errors.ts` (see #query).
  protected guarded<T>(_driver: SqlDriver, steps: () => Promise<T>): Promise<T> {
    return steps();
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

    const count = this.#countStatement(driver.dialect, query);
    const page = new StatementBuilder(driver.dialect);
    const filtered = `SELECT ${this.#selectList(page)} FROM ${this.#from(page)}${this.#where(page, query)}`;
    const order = this.#order(
      page,
      query.keysetOrder
        ? keysetOrder(this.primaryKeys, this.#nullable, query.orderBy?.column, query.orderBy?.direction ?? "asc")
        : pageOrder(this.primaryKeys, query.orderBy),
    );
    const pageStatement = `${filtered} ORDER BY ${order} ${driver.dialect.limitOffset(query.limit, query.offset, page.bind)}`;

    const [rows, totalCount] = await Promise.all([
      this.#query(driver, pageStatement, page.params),
      this.#count(driver, count),
    ]);
    return { rows: rows.map((row) => this.#decode(row)), totalCount };
  }

  /**
   * How many rows match the filters and search.
   *
   * @example
   * await table.count(driver, { filters: [{ field: "active", operator: "EQ", value: true }] }) // 12
   */
  async count(driver: SqlDriver, query: CountQuery): Promise<number> {
    if (query.search) for (const name of query.search.columns) this.#assertColumn(name, "search");
    return this.#count(driver, this.#countStatement(driver.dialect, query));
  }

  #countStatement(dialect: Dialect, query: CountQuery): SqlStatement {
    const sql = new StatementBuilder(dialect);
    return { sql: `SELECT COUNT(*) AS total FROM ${this.#from(sql)}${this.#where(sql, query)}`, params: sql.params };
  }

  async #count(driver: SqlDriver, statement: SqlStatement): Promise<number> {
    const [totals] = await this.#query(driver, statement.sql, statement.params);
    return Number(totals?.total ?? 0);
  }

  /** The WHERE of a listing: its filters, and its search. */
  #where(sql: StatementBuilder, query: CountQuery): string {
    return sql.where(this.#listConditions(sql, query));
  }

  /** A listing's filters, and its search planned as DrizzleTable plans it (over no column it matches nothing). */
  #listConditions(sql: StatementBuilder, query: CountQuery): string[] {
    const conditions = this.#conditions(sql, query.filters);
    if (query.search) {
      conditions.push(sql.render(searchCondition(query.search.columns, query.search.term), encodeValue));
    }
    return conditions;
  }

  protected async selectUnchanged(
    driver: SqlDriver,
    keyFilters: FilterCondition[],
    expected: SqlRow | undefined,
  ): Promise<SqlRow | null> {
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
    const { backwards, travel } = seekTravel(query);

    const sql = new StatementBuilder(driver.dialect);
    const conditions = this.#listConditions(sql, query);
    if (query.from) {
      const nullableColumn = column !== undefined && this.#nullable.has(column) ? column : undefined;
      const beyond = beyondCondition(keysetColumns(this.primaryKeys, column), nullableColumn, travel, query.from.key);
      conditions.push(sql.render(beyond, encodeValue));
    }
    const limit =
      driver.dialect.limit?.(query.limit + 1, sql.bind) ?? driver.dialect.limitOffset(query.limit + 1, 0, sql.bind);
    const statement = `SELECT ${this.#selectList(sql)} FROM ${this.#from(sql)}${sql.where(conditions)} ORDER BY ${this.#order(sql, keysetOrder(this.primaryKeys, this.#nullable, column, travel))} ${limit}`;
    const rows = (await this.#query(driver, statement, sql.params)).map((row) => this.#decode(row));
    return seekPage(rows, query.limit, backwards);
  }

  #assertColumn(name: string, what: string): void {
    if (!this.#kinds.has(name)) throw this.unknownColumn(what, name);
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

  /** A row as stored that went through JSON (a live collection's change), decoded as the model declares. */
  decodeRow(row: Record<string, unknown>): SqlRow {
    return this.#decode(row);
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
    return this.conventionalColumns(
      violation.index,
      table,
      () => [...this.primaryKeys],
      (name) => this.#kinds.has(name),
    );
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
