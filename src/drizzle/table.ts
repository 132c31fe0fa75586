import {
  and,
  type Column,
  count,
  getTableColumns,
  getTableName,
  isNotNull,
  isNull,
  or,
  type SQL,
  sql,
  type Table,
} from "drizzle-orm";
import { toCamelCase, toSnakeCase } from "drizzle-orm/casing";
import type { z } from "zod";
import type { FilterCondition, Model, ModelSchema } from "../endpoints/types";
import { membersOf } from "../schema";
import { type ColumnKind, columnKind, decodeValue, encodeValue, mayBeNull } from "../sql/codec";
import { assertCount, containsPattern } from "../sql/dialect";
import {
  DatabaseError,
  IncompleteKeyError,
  InvalidIdentifierError,
  InvalidValueError,
  UniqueViolationError,
} from "../sql/errors";
import {
  beyondCondition,
  type Condition,
  filterCondition,
  keysetColumns,
  keysetOrder,
  type OrderTerm,
  pageOrder,
  searchCondition,
  unchangedColumns,
} from "../sql/plan";
import type { CountQuery, ListPage, ListQuery, SeekPage, SeekQuery, SqlRow } from "../sql/storage";
import { KeyedTable, type PlannedUpdate, seekPage, seekTravel, type UpdateStatement } from "../sql/storage";
import { type DrizzleDatabase, type DrizzleDialect, dialectOf, type TableShape } from "./dialects";

/** A Drizzle database and, when the endpoint has a logger, where each statement goes before it runs. */
export interface DrizzleSession {
  db: DrizzleDatabase;
  onQuery?: (sql: string, params: unknown[]) => void;
}

// `any`: the query builders of the three dialects share their method names but no declared type.
type AnyDatabase = any;
type Query = PromiseLike<any> & { toSQL(): { sql: string; params: unknown[] } };
/** An UPDATE or DELETE, built when it runs (a RETURNING list may be added to it). */
type DrizzleWrite = () => any;

/** The kinds a Drizzle column's `dataType` already hands back, so rows of those need no decoding. */
const DRIZZLE_KINDS: Record<string, ColumnKind> = {
  boolean: "boolean",
  number: "number",
  bigint: "bigint",
  date: "date",
  string: "string",
  json: "json",
};

/**
 * Table-level CRUD for one model over a Drizzle table, built once (at route registration): the same
 * plans as SqlTable (src/sql/plan.ts), written with Drizzle's query builder on the app's own Drizzle
 * database, so they run on its driver with its logger and its transactions. Columns come from the
 * Drizzle table (a model field that is no column is refused here); Drizzle binds every value through
 * its column.
 */
export class DrizzleTable extends KeyedTable<DrizzleSession, DrizzleWrite> {
  readonly tableName: string;
  readonly columns: readonly string[];
  readonly primaryKeys: readonly string[];
  readonly versionField: string | undefined;
  readonly dialect: DrizzleDialect;
  readonly #table: Table;
  readonly #columns: ReadonlyMap<string, Column>;
  readonly #selection: Record<string, Column>;
  readonly #nullable: ReadonlySet<string>;
  /** Fields whose declared kind Drizzle's column does not hand back (a hand-written model over a plain column). */
  readonly #decoders: readonly [string, ColumnKind][];
  /** Each field's declared kind, to decode a row that went through JSON (a live collection's change). */
  readonly #kinds: ReadonlyMap<string, ColumnKind>;
  /** JSON fields over a column that does not store JSON itself: written as JSON text, as SqlTable writes them. */
  readonly #jsonText: ReadonlySet<string>;
  /** Model field of each database column name, to name the fields of a unique violation. */
  readonly #fieldOfColumn: ReadonlyMap<string, string>;
  readonly #shape: TableShape;
  /** ORDER BY lists already written, by their terms: one per order field, direction and kind of page. */
  readonly #orders = new Map<string, SQL[]>();

  constructor(
    table: Table,
    model: Pick<Model<ModelSchema>, "tableName" | "primaryKeys" | "versionField"> & { schema: ModelSchema | z.ZodType },
    options: { fields?: ModelSchema | z.ZodType } = {},
  ) {
    super();
    this.dialect = dialectOf(table);
    this.#table = table;
    this.tableName = model.tableName;
    const tableColumns = getTableColumns(table);
    const shape = membersOf(options.fields ?? model.schema);
    const columns = new Map<string, Column>();
    const nullable = new Set<string>();
    const decoders: [string, ColumnKind][] = [];
    const kinds = new Map<string, ColumnKind>();
    const jsonText = new Set<string>();
    for (const [name, schema] of Object.entries(shape)) {
      const column = Object.hasOwn(tableColumns, name) ? tableColumns[name] : undefined;
      if (!column) {
        throw new InvalidIdentifierError(
          `Field ${JSON.stringify(name)} of "${model.tableName}" is not a column of the Drizzle table ${getTableName(table)}`,
        );
      }
      columns.set(name, column);
      if (mayBeNull(schema) && !model.primaryKeys.includes(name)) nullable.add(name);
      const kind = columnKind(schema);
      kinds.set(name, kind);
      if (kind !== "unknown" && DRIZZLE_KINDS[column.dataType] !== kind) decoders.push([name, kind]);
      if (kind === "json" && column.dataType !== "json") jsonText.add(name);
    }
    this.#columns = columns;
    this.#nullable = nullable;
    this.#decoders = decoders;
    this.#kinds = kinds;
    this.#jsonText = jsonText;
    this.columns = [...columns.keys()];
    this.#selection = Object.fromEntries(columns);
    // A column named after its key is stored under the key as the database's `casing` option spells it.
    this.#fieldOfColumn = new Map(
      Object.entries(tableColumns).flatMap(([key, column]) =>
        column.keyAsName
          ? [toSnakeCase(column.name), toCamelCase(column.name), column.name].map((name) => [name, key] as const)
          : [[column.name, key] as const],
      ),
    );
    this.#shape = this.dialect.shape(table);
    this.checkKeys(
      model,
      (name, what) => this.#column(name, what),
      (name) => columns.get(name)!.dataType === "number",
    );
    this.primaryKeys = [...model.primaryKeys];
    this.versionField = model.versionField;
  }

  /** Inserts one row (columns left out take their Drizzle or database defaults) and returns it as stored. */
  async insert(session: DrizzleSession, data: Record<string, unknown>): Promise<SqlRow> {
    const values = this.#insertValues(data);
    try {
      return await this.#insertOne(session, values);
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  /**
   * Inserts several rows all or none and returns them as stored, in order: in one `batch()` where the
   * database has it (D1, libsql), else in one `transaction()` (synchronous on better-sqlite3 and other
   * synchronous SQLite drivers, whose transactions cannot await).
   */
  async insertMany(session: DrizzleSession, rows: Record<string, unknown>[]): Promise<SqlRow[]> {
    if (rows.length === 0) return [];
    const values = rows.map((data) => this.#insertValues(data));
    const db: AnyDatabase = session.db;
    try {
      if (typeof db.batch === "function" && this.dialect.returning) {
        const queries = values.map((value) => this.#logged(session, this.#insertReturning(db, value)));
        const results: Record<string, unknown>[][] = await db.batch(queries);
        return results.map(([row]) => this.#stored(row));
      }
      if (typeof db.transaction !== "function") {
        throw new DatabaseError(
          new Error("The Drizzle database can write rows all or none by neither batch() nor transaction()"),
        );
      }
      if (this.dialect.name === "sqlite") {
        // The callback stays synchronous where the driver is (better-sqlite3 refuses a promise) and awaits where it is not.
        return await db.transaction((tx: AnyDatabase) => {
          const stored: SqlRow[] = [];
          const step = (index: number): SqlRow[] | Promise<SqlRow[]> => {
            if (index === values.length) return stored;
            const query = this.#logged(session, this.#insertReturning(tx, values[index]!));
            return then((query as unknown as { all(): unknown }).all(), (returned) => {
              stored.push(this.#stored((returned as Record<string, unknown>[])[0]));
              return step(index + 1);
            });
          };
          return step(0);
        });
      }
      return await db.transaction(async (tx: AnyDatabase) => {
        const stored: SqlRow[] = [];
        const inTransaction = { ...session, db: tx };
        for (const value of values) stored.push(await this.#insertOne(inTransaction, value));
        return stored;
      });
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  /** A row as stored that went through JSON (a live collection's change), decoded as the model declares. */
  decodeRow(row: Record<string, unknown>): SqlRow {
    const decoded: SqlRow = {};
    for (const [name, kind] of this.#kinds) decoded[name] = decodeValue(kind, row[name]);
    return decoded;
  }

  /** The first row (in primary key order) matching all conditions, or null. */
  async selectOne(session: DrizzleSession, filters: FilterCondition[]): Promise<SqlRow | null> {
    try {
      return await this.#selectOne(session, filters);
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  protected updateStatement(session: DrizzleSession, update: PlannedUpdate): UpdateStatement<DrizzleWrite> | null {
    const { keyFilters, data, expected } = update;
    const version = this.versionField;
    const set = this.#assignments(data, version);
    const written = new Set(Object.keys(set));
    if (version !== undefined) {
      const column = this.#columns.get(version)!;
      set[version] = sql`COALESCE(${column}, 0) + 1`;
    }
    // Planned before anything runs: a planning error is the caller's, not the database's.
    const where = this.#where(keyFilters.map(filterCondition), this.#unchanged(expected));
    if (Object.keys(set).length === 0) return null;
    const db: AnyDatabase = session.db;
    return { write: () => db.update(this.#table).set(set).where(where), written };
  }

  protected deleteStatement(
    session: DrizzleSession,
    keyFilters: FilterCondition[],
    expected: SqlRow | undefined,
  ): DrizzleWrite {
    const where = this.#where(keyFilters.map(filterCondition), this.#unchanged(expected));
    const db: AnyDatabase = session.db;
    return () => db.delete(this.#table).where(where);
  }

  protected returns(): boolean {
    return this.dialect.returning;
  }

  protected async writeReturning(session: DrizzleSession, write: DrizzleWrite): Promise<SqlRow | null> {
    const [row] = await this.#run(session, write().returning(this.#selection));
    return row ? this.#stored(row) : null;
  }

  protected async writeCounting(session: DrizzleSession, write: DrizzleWrite): Promise<number> {
    return affectedRows(await this.#run(session, write()));
  }

  protected selectRow(session: DrizzleSession, filters: FilterCondition[]): Promise<SqlRow | null> {
    return this.#selectOne(session, filters);
  }

  protected async guarded<T>(session: DrizzleSession, steps: () => Promise<T>): Promise<T> {
    try {
      return await steps();
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  /** One page of rows plus the total matching count, ordered as SqlTable orders it. */
  async list(session: DrizzleSession, query: ListQuery): Promise<ListPage> {
    assertCount(query.limit, "limit");
    assertCount(query.offset, "offset");
    const where = this.#listWhere(query);
    const order = query.keysetOrder
      ? keysetOrder(this.primaryKeys, this.#nullable, query.orderBy?.column, query.orderBy?.direction ?? "asc")
      : pageOrder(this.primaryKeys, query.orderBy);
    const db: AnyDatabase = session.db;
    try {
      const page = db
        .select(this.#selection)
        .from(this.#table)
        .where(where)
        .orderBy(...this.#order(order))
        .limit(query.limit)
        .offset(query.offset);
      const [rows, totalCount] = await Promise.all([this.#run(session, page), this.#count(session, where)]);
      return { rows: rows.map((row: Record<string, unknown>) => this.#stored(row)), totalCount };
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  /** How many rows match the filters and search. */
  async count(session: DrizzleSession, query: CountQuery): Promise<number> {
    const where = this.#listWhere(query);
    try {
      return await this.#count(session, where);
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  async #count(session: DrizzleSession, where: SQL | undefined): Promise<number> {
    const db: AnyDatabase = session.db;
    const [totals] = await this.#run(session, db.select({ total: count() }).from(this.#table).where(where));
    return Number(totals?.total ?? 0);
  }

  /** One keyset page beyond a position in the order, without OFFSET or a count (see SqlTable.seek). */
  async seek(session: DrizzleSession, query: SeekQuery): Promise<SeekPage> {
    assertCount(query.limit, "limit");
    const column = query.orderBy?.column;
    const { backwards, travel } = seekTravel(query);
    const conditions: SQL[] = [];
    if (query.from) {
      if (column !== undefined) this.#column(column, "order by");
      const nullableColumn = column !== undefined && this.#nullable.has(column) ? column : undefined;
      const beyond = beyondCondition(keysetColumns(this.primaryKeys, column), nullableColumn, travel, query.from.key);
      conditions.push(this.#render(beyond));
    }
    const db: AnyDatabase = session.db;
    try {
      const statement = db
        .select(this.#selection)
        .from(this.#table)
        .where(this.#listWhere(query, conditions))
        .orderBy(...this.#order(keysetOrder(this.primaryKeys, this.#nullable, column, travel)))
        .limit(query.limit + 1);
      const rows = (await this.#run(session, statement)).map((row: Record<string, unknown>) => this.#stored(row));
      return seekPage(rows, query.limit, backwards);
    } catch (error) {
      throw await this.#wrap(session, error);
    }
  }

  /** The WHERE of a listing: its filters and search, and any further conditions. */
  #listWhere(query: CountQuery & { orderBy?: ListQuery["orderBy"] }, more: SQL[] = []) {
    if (query.search) for (const name of query.search.columns) this.#column(name, "search");
    if (query.orderBy) this.#column(query.orderBy.column, "order by");
    const planned = query.filters.map(filterCondition);
    if (query.search) planned.push(searchCondition(query.search.columns, query.search.term));
    return this.#where(planned, more);
  }

  async #insertOne(session: DrizzleSession, values: Record<string, unknown>): Promise<SqlRow> {
    const db: AnyDatabase = session.db;
    if (this.dialect.returning) {
      const [row] = await this.#run(session, this.#insertReturning(db, values));
      return this.#stored(row);
    }
    const result = await this.#run(session, db.insert(this.#table).values(values));
    return this.readBack(session, values, insertId(result));
  }

  #insertReturning(db: AnyDatabase, values: Record<string, unknown>): Query {
    return db.insert(this.#table).values(values).returning(this.#selection);
  }

  /** A row's values to insert: checked, the version at 1, and (without RETURNING) key values Drizzle would generate made now, so the row can be read back. */
  #insertValues(data: Record<string, unknown>): Record<string, unknown> {
    const version = this.versionField;
    const values = this.#assignments(
      version !== undefined && data[version] === undefined ? { ...data, [version]: 1 } : data,
    );
    if (!this.dialect.returning) {
      for (const name of this.primaryKeys) {
        const column = this.#columns.get(name)!;
        if (values[name] === undefined && column.defaultFn) values[name] = column.defaultFn();
      }
    }
    return values;
  }

  async #selectOne(session: DrizzleSession, filters: FilterCondition[]): Promise<SqlRow | null> {
    const db: AnyDatabase = session.db;
    const statement = db
      .select(this.#selection)
      .from(this.#table)
      .where(this.#where(filters.map(filterCondition)))
      .orderBy(...this.#order(pageOrder(this.primaryKeys)))
      .limit(1);
    const [row] = await this.#run(session, statement);
    return row ? this.#stored(row) : null;
  }

  protected async selectUnchanged(
    session: DrizzleSession,
    keyFilters: FilterCondition[],
    expected: SqlRow | undefined,
  ): Promise<SqlRow | null> {
    const db: AnyDatabase = session.db;
    if (!expected) return this.#selectOne(session, keyFilters);
    const statement = db
      .select(this.#selection)
      .from(this.#table)
      .where(this.#where(keyFilters.map(filterCondition), this.#unchanged(expected)));
    const [row] = await this.#run(session, statement);
    return row ? this.#stored(row) : null;
  }

  /** Conditions holding only while the stored row is still `expected` (see unchangedColumns), compared exactly. */
  #unchanged(expected: SqlRow | undefined): SQL[] {
    if (!expected) return [];
    return unchangedColumns(expected, this.columns, this.primaryKeys, this.versionField).map((name) => {
      const value = expected[name];
      const column = this.#columns.get(name)!;
      if (value === null) return isNull(column);
      const json = column.dataType === "json" || this.#jsonText.has(name);
      return this.dialect.sameValue(column, this.#bound(name, value), value, json);
    });
  }

  #where(planned: Condition[], more: SQL[] = []): SQL | undefined {
    return and(...planned.map((condition) => this.#render(condition)), ...more);
  }

  /** A planned condition with Drizzle: columns from the table, each value bound through its column. */
  #render(condition: Condition): SQL {
    switch (condition.kind) {
      case "compare": {
        const column = this.#column(condition.column, "filter");
        const { operator, value } = condition;
        const test = sql`${column} ${sql.raw(operator)} ${this.#bound(condition.column, value)}`;
        const exactText = this.dialect.exactText;
        if ((operator !== "=" && operator !== "<>") || exactText === undefined || typeof value !== "string")
          return test;
        // `column = ?` narrows by the index whatever the collation; the dialect's test beside it keeps exact matches only.
        const bound = this.#bound(condition.column, value);
        const exact = sql`(${column} = ${bound} and ${exactText(column, [this.#bound(condition.column, value)])})`;
        return operator === "=" ? exact : sql`not ${exact}`;
      }
      case "in": {
        const column = this.#column(condition.column, "filter");
        const values = condition.values.map((value) => this.#bound(condition.column, value));
        const test = sql`${column} in (${sql.join(values, sql`, `)})`;
        const exactText = this.dialect.exactText;
        if (exactText === undefined || !condition.values.every((value) => typeof value === "string")) return test;
        const again = condition.values.map((value) => this.#bound(condition.column, value));
        return sql`(${test} and ${exactText(column, again)})`;
      }
      case "null": {
        const column = this.#column(condition.column, "filter");
        return condition.isNull ? isNull(column) : isNotNull(column);
      }
      case "contains": {
        const pattern = containsPattern(assertText(condition.term));
        const tests = condition.columns.map((name) => this.dialect.contains(this.#column(name, "search"), pattern));
        return tests.length === 1 ? tests[0]! : or(...tests)!;
      }
      case "row": {
        const columns = condition.columns.map((name) => this.#column(name, "order by"));
        const values = condition.columns.map((name, index) => this.#bound(name, condition.values[index]));
        const operator = sql.raw(condition.operator);
        if (columns.length === 1) return sql`${columns[0]} ${operator} ${values[0]}`;
        return sql`(${sql.join(columns, sql`, `)}) ${operator} (${sql.join(values, sql`, `)})`;
      }
      case "and":
        return and(...condition.parts.map((part) => this.#render(part)))!;
      case "or":
        return or(...condition.parts.map((part) => this.#render(part)))!;
      case "never":
        return sql`1 = 0`;
    }
  }

  /** An ORDER BY in the dialect's words; each of the few orders a table is listed in is written once. */
  #order(terms: OrderTerm[]): SQL[] {
    const key = terms.map((term) => `${term.column} ${term.direction} ${term.mayBeNull}`).join(",");
    let order = this.#orders.get(key);
    if (!order) {
      order = terms.map((term) =>
        this.dialect.orderBy(this.#column(term.column, "order by"), term.direction, term.mayBeNull),
      );
      this.#orders.set(key, order);
    }
    return order;
  }

  /** A value bound through its column (Drizzle maps it to the driver's value: 0/1, epoch seconds, JSON text). */
  #bound(field: string, value: unknown): SQL {
    const encoded = this.#jsonText.has(field) ? encodeValue(value) : value;
    return sql`${sql.param(assertText(encoded), this.#columns.get(field))}`;
  }

  /** Columns and values to write; `undefined` means "leave out"; the version column (written by the table) is skipped when named. */
  #assignments(data: Record<string, unknown>, skip?: string): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(data)) {
      if (value === undefined || name === skip) continue;
      this.#column(name, "data");
      values[name] = assertText(this.#jsonText.has(name) ? encodeValue(value) : value);
    }
    return values;
  }

  #column(name: string, what: string): Column {
    const column = this.#columns.get(name);
    if (!column) throw this.unknownColumn(what, name);
    return column;
  }

  /** A row as Drizzle returned it, each field turned into the kind the model declares where Drizzle's column differs. */
  #stored(row: Record<string, unknown> | undefined): SqlRow {
    if (!row) throw new DatabaseError(new Error(`A written row of "${this.tableName}" came back empty`));
    for (const [name, kind] of this.#decoders) row[name] = decodeValue(kind, row[name]);
    return row;
  }

  /** Runs one statement, sending its SQL to the session's `onQuery` first. */
  #run(session: DrizzleSession, query: Query): Promise<any> {
    return this.#logged(session, query) as PromiseLike<any> as Promise<any>;
  }

  #logged<T extends Query>(session: DrizzleSession, query: T): T {
    if (session.onQuery) {
      const { sql: text, params } = query.toSQL();
      session.onQuery(text, params);
    }
    return query;
  }

  /**
   * Turns a Drizzle or driver error into a safe one; the engine's own error (not Drizzle's, whose
   * message carries the statement and its values) stays in `cause`.
   */
  async #wrap(session: DrizzleSession, error: unknown): Promise<unknown> {
    if (
      error instanceof InvalidValueError ||
      error instanceof DatabaseError ||
      error instanceof IncompleteKeyError ||
      error instanceof InvalidIdentifierError
    ) {
      return error;
    }
    const engine = engineError(error);
    if (this.dialect.dataException(error)) return new InvalidValueError("A value does not fit its column");
    const violation = this.dialect.uniqueViolation(error);
    if (!violation) return new DatabaseError(engine);
    const columns =
      violation.columns.length > 0 ? violation.columns : await this.#indexColumns(session, violation.index);
    const fields = columns.map((name) => this.#fieldOfColumn.get(name) ?? name);
    return new UniqueViolationError(fields, engine, violation.constraint);
  }

  /**
   * The database columns of a violated index the engine named only (MySQL): from the Drizzle table's
   * own UNIQUE constraints and indexes, else the catalog, else naming conventions.
   */
  async #indexColumns(session: DrizzleSession, index: string | undefined): Promise<string[]> {
    if (!index) return [];
    const declared = this.#shape.unique.find((unique) => unique.name === index);
    if (declared) return declared.columns;
    const table = getTableName(this.#table);
    const lookup = this.dialect.uniqueIndexColumns?.(this.#shape.schema ? [this.#shape.schema, table] : [table], index);
    if (lookup) {
      try {
        const db: AnyDatabase = session.db;
        const result = await db.execute(boundStatement(lookup));
        // mysql2 answers [rows, fields]; other MySQL drivers { rows }.
        const rows: { column_name: unknown }[] = (Array.isArray(result) ? result[0] : result?.rows) ?? [];
        if (rows.length > 0) return rows.map((row) => String(row.column_name));
      } catch {
        // The catalog may be unreadable for this role; fall through to conventions.
      }
    }
    return this.conventionalColumns(
      index,
      table,
      () => this.primaryKeys.map((name) => this.#columns.get(name)!.name),
      (name) => this.#fieldOfColumn.has(name),
    );
  }
}

/** `next(value)` now when `value` is not a promise (a synchronous driver), else once it resolves. */
function then<T, R>(value: T | PromiseLike<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return isPromiseLike(value) ? Promise.resolve(value).then(next) : next(value);
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** A statement written with `?` placeholders (as the SQL dialects write it) as Drizzle SQL, each value bound in its place. */
function boundStatement(statement: { sql: string; params: unknown[] }): SQL {
  const texts = statement.sql.split("?");
  return sql.join(
    texts.flatMap((text, index) =>
      index < statement.params.length ? [sql.raw(text), sql`${statement.params[index]}`] : [sql.raw(text)],
    ),
  );
}

/** PostgreSQL refuses NUL in text; refusing it everywhere keeps every engine answering alike (as SqlTable does). */
function assertText<T>(value: T): T {
  if (typeof value === "string" && value.includes("\0")) {
    throw new InvalidValueError("Text values cannot contain NUL characters");
  }
  return value;
}

/** The error the engine threw, under Drizzle's DrizzleQueryError (`query`, `params`, `cause`) when Drizzle wrapped it. */
function engineError(error: unknown): unknown {
  if (typeof error !== "object" || error === null || !("query" in error && "params" in error)) return error;
  return (error as { cause?: unknown }).cause ?? error;
}

/** Rows a MySQL statement changed, from mysql2's `[ResultSetHeader]` or a driver's `{ rowsAffected }`. */
function affectedRows(result: unknown): number {
  const header = (Array.isArray(result) ? result[0] : result) as Record<string, unknown> | undefined;
  return Number(header?.affectedRows ?? header?.rowsAffected ?? 0);
}

/** The generated key of a MySQL insert; 0 (no AUTO_INCREMENT column) is none. */
function insertId(result: unknown): unknown {
  const header = (Array.isArray(result) ? result[0] : result) as Record<string, unknown> | undefined;
  const id = header?.insertId;
  return id === 0 || id === "0" || id === undefined ? undefined : id;
}
