import { type Column, entityKind, getTableColumns, is, SQL, sql, type Table } from "drizzle-orm";
import { type MySqlDatabase, MySqlTable, getTableConfig as mysqlTableConfig } from "drizzle-orm/mysql-core";
import { type PgDatabase, PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { type BaseSQLiteDatabase, SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { type Dialect, isDataException, LIKE_ESCAPE, type UniqueViolation } from "../sql/dialect";
import { mysqlDialect as mysqlSqlDialect, mysqlUniqueViolation } from "../sql/dialects/mysql";
import { postgresUniqueViolation } from "../sql/dialects/postgres";
import { sqliteUniqueViolation } from "../sql/dialects/sqlite";

/**
 * A Drizzle database the endpoints query: any driver's (D1, better-sqlite3, libsql, node-postgres,
 * PGlite, postgres.js, mysql2, …), or a transaction of one.
 */
export type DrizzleDatabase =
  | BaseSQLiteDatabase<"sync" | "async", any, any, any>
  | PgDatabase<any, any, any>
  | MySqlDatabase<any, any, any, any>;

/** What the endpoints read from a Drizzle table's configuration, by database column name. */
export interface TableShape {
  schema: string | undefined;
  /** The columns of the table's composite primary key, when it declares one with `primaryKey()`. */
  primaryKey: string[];
  /** Each UNIQUE constraint or unique index over plain columns, with its name. */
  unique: { name: string | undefined; columns: string[] }[];
}

/**
 * What differs between Drizzle's SQL dialects, as the endpoints use it: each writes the same planned
 * conditions as its engine needs them (search, NULL order, exact comparisons) and reads its engine's errors.
 */
export interface DrizzleDialect {
  readonly name: "sqlite" | "postgres" | "mysql";
  /** Whether INSERT, UPDATE and DELETE can hand back the written row (RETURNING). */
  readonly returning: boolean;
  /** Whether `db` is a database (or transaction) of this dialect. */
  owns(db: unknown): boolean;
  shape(table: Table): TableShape;
  /** Case-insensitive LIKE of `column` against a pattern escaped with {@link LIKE_ESCAPE}. */
  contains(column: Column, pattern: string): SQL;
  /** One ORDER BY term, NULL as the smallest value. */
  orderBy(column: Column, direction: "asc" | "desc", mayBeNull: boolean): SQL;
  /** An exact comparison of a column with a value read from it before (`value`: as read, `bound`: its parameter). */
  sameValue(column: Column, bound: SQL, value: unknown, json: boolean): SQL;
  /**
   * The test beside `column = ?` (or `IN`) that makes an equality with bound strings exact where the engine's
   * collations may fold case, accents or trailing spaces (the SQL dialect's `exactText`); none elsewhere.
   */
  exactText?(column: Column, bound: SQL[]): SQL;
  uniqueViolation(error: unknown): UniqueViolation | null;
  dataException(error: unknown): boolean;
  /** The catalog query for the columns of a unique index the engine's error names alone (MySQL), as the SQL dialect writes it. */
  uniqueIndexColumns?: Dialect["uniqueIndexColumns"];
}

const likeEscape = sql.raw(`'${LIKE_ESCAPE}'`);

/** An ORDER BY term with the engine's own NULL order (smallest first on SQLite and MySQL). */
const plainOrder = (column: Column, direction: "asc" | "desc") =>
  direction === "desc" ? sql`${column} desc` : sql`${column} asc`;

function shapeOf(
  config: {
    schema?: string;
    primaryKeys: { columns: Column[] }[];
    uniqueConstraints: { name?: string; columns: Column[] }[];
    indexes: { config: { name?: string; unique?: boolean; columns: unknown[] } }[];
  },
  table: Table,
): TableShape {
  const names = (columns: Column[]) => columns.map((column) => column.name);
  const unique = config.uniqueConstraints.map(({ name, columns }) => ({ name, columns: names(columns) }));
  for (const { config: index } of config.indexes) {
    // An index over an expression says nothing about which column holds a duplicate.
    if (!index.unique || index.columns.some((column) => is(column, SQL))) continue;
    unique.push({ name: index.name, columns: index.columns.map((column) => (column as { name: string }).name) });
  }
  for (const column of Object.values(getTableColumns(table))) {
    if (column.isUnique) unique.push({ name: column.uniqueName, columns: [column.name] });
  }
  return { schema: config.schema, primaryKey: names(config.primaryKeys[0]?.columns ?? []), unique };
}

// The three dialects below are alike on purpose: each is the same DrizzleDialect members, only their values differ.
const sqliteDialect: DrizzleDialect = {
  name: "sqlite",
  returning: true,
  owns: (db) => isEntity(db, "BaseSQLiteDatabase"),
  shape: (table) => shapeOf(sqliteTableConfig(table as SQLiteTable), table),
  contains: (column, pattern) => sql`${column} LIKE ${pattern} ESCAPE ${likeEscape}`,
  orderBy: plainOrder,
  // BINARY whatever the column's collation (NOCASE would let a change of case pass as unchanged).
  sameValue: (column, bound) => sql`${column} = ${bound} COLLATE BINARY`,
  uniqueViolation: sqliteUniqueViolation,
  dataException: () => false,
};

const postgresDialect: DrizzleDialect = {
  name: "postgres",
  returning: true,
  owns: (db) => isEntity(db, "PgDatabase"),
  shape: (table) => shapeOf(pgTableConfig(table as PgTable), table),
  contains: (column, pattern) => sql`${column} ILIKE ${pattern} ESCAPE ${likeEscape}`,
  // PostgreSQL sorts NULL as the largest value; match SQLite and MySQL, where it is the smallest.
  orderBy: (column, direction, mayBeNull) => {
    if (!mayBeNull) return plainOrder(column, direction);
    return direction === "desc" ? sql`${column} desc nulls last` : sql`${column} asc nulls first`;
  },
  // `json` has no equality operator: as jsonb both sides compare by value; text compares as text.
  sameValue: (column, bound, value, json) => {
    if (json) return sql`${column}::jsonb = ${bound}::jsonb`;
    if (typeof value === "string") return sql`${column}::text = ${bound}::text`;
    return sql`${column} = ${bound}`;
  },
  uniqueViolation: postgresUniqueViolation,
  dataException: isDataException,
};

const mysqlDialect: DrizzleDialect = {
  name: "mysql",
  returning: false,
  owns: (db) => isEntity(db, "MySqlDatabase"),
  shape: (table) => shapeOf(mysqlTableConfig(table as MySqlTable), table),
  // Both sides lowercased, so `_bin`/`_cs` collations are case-insensitive too.
  contains: (column, pattern) => sql`LOWER(${column}) LIKE LOWER(${pattern}) ESCAPE ${likeEscape}`,
  orderBy: plainOrder,
  // Text byte for byte (a `_ci` collation would let 'Ada' -> 'ADA' pass as unchanged); JSON as the engine normalises it.
  sameValue: (column, bound, value, json) => {
    if (json) {
      return sql`CAST(JSON_EXTRACT(${column}, '$') AS BINARY) = CAST(JSON_EXTRACT(${bound}, '$') AS BINARY)`;
    }
    if (typeof value === "string") return sql`CAST(${column} AS BINARY) = CAST(${bound} AS BINARY)`;
    return sql`${column} = ${bound}`;
  },
  // As the SQL dialect's exactText: a text column's value as UTF-8 bytes; a number's or a date's compared by value.
  exactText: (column, bound) => {
    const bytes = (value: SQL | Column) => sql`CAST(CONVERT(${value} USING utf8mb4) AS BINARY)`;
    return sql`(CHARSET(${column}) = 'binary' OR ${bytes(column)} IN (${sql.join(bound.map(bytes), sql`, `)}))`;
  },
  uniqueViolation: mysqlUniqueViolation,
  dataException: isDataException,
  uniqueIndexColumns: mysqlSqlDialect.uniqueIndexColumns,
};

/**
 * The dialect of a Drizzle table: `sqliteTable` (SQLite, D1, libsql), `pgTable` (PostgreSQL, PGlite)
 * or `mysqlTable` (MySQL, MariaDB).
 *
 * @example
 * dialectOf(sqliteTable("users", { id: integer().primaryKey() })).name // "sqlite"
 */
export function dialectOf(table: unknown): DrizzleDialect {
  if (is(table, SQLiteTable)) return sqliteDialect;
  if (is(table, PgTable)) return postgresDialect;
  if (is(table, MySqlTable)) return mysqlDialect;
  throw new TypeError("Not a Drizzle table of SQLite, PostgreSQL or MySQL (sqliteTable, pgTable, mysqlTable)");
}

/**
 * Drizzle's `is(value, Class)` by the class's entity name: a database is recognised without importing
 * its class, whose query builders would otherwise reach the bundle of an app on another dialect.
 */
export function isEntity(value: unknown, kind: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  for (let type = value.constructor; type; type = Object.getPrototypeOf(type)) {
    if (Object.hasOwn(type, entityKind) && (type as unknown as Record<symbol, unknown>)[entityKind] === kind)
      return true;
  }
  return false;
}

/** The dialect of a Drizzle database (or transaction), as `dialectOf` answers for a table. */
export function databaseDialect(db: DrizzleDatabase): DrizzleDialect {
  const dialect = [sqliteDialect, postgresDialect, mysqlDialect].find((each) => each.owns(db));
  if (!dialect) throw new TypeError("Not a Drizzle database of SQLite, PostgreSQL or MySQL");
  return dialect;
}

/** Whether `value` is a Drizzle database (or transaction) of any dialect. */
export function isDrizzleDatabase(value: unknown): value is DrizzleDatabase {
  return sqliteDialect.owns(value) || postgresDialect.owns(value) || mysqlDialect.owns(value);
}
