export { CHANGE_HEADS_TABLE, CHANGES_TABLE, changeLogTables, SqlChangeLog } from "./change-log";
export type { ColumnKind } from "./codec";
export { columnKind, decodeValue, encodeValue } from "./codec";
export { changeLogTriggers, D1ChangeLog, type RecordedTable } from "./d1-change-log";
export {
  buildOrderByClause,
  buildPrimaryKeyFilters,
  buildSafeFilters,
  buildWhereClause,
  freshException,
  getD1Binding,
  handleDbError,
  type SafeFilters,
  validateColumnName,
  validateOrderByColumn,
  validateOrderDirection,
  validateSqlIdentifier,
  validateTableName,
} from "./d1-helpers";
export type { Dialect, ReturningSupport, UniqueViolation } from "./dialect";
export { containsPattern, LIKE_ESCAPE } from "./dialect";
export { mariadbDialect, mysqlDialect, mysqlUniqueViolation } from "./dialects/mysql";
export { postgresDialect, postgresUniqueViolation } from "./dialects/postgres";
export { sqliteDialect, sqliteUniqueViolation } from "./dialects/sqlite";
export type { ExecuteResult, SqlDriver, SqlStatement } from "./driver";
export type { BetterSqlite3Database } from "./drivers/better-sqlite3";
export { betterSqlite3Driver } from "./drivers/better-sqlite3";
export type { BunSqliteDatabase } from "./drivers/bun-sqlite";
export { bunSqliteDriver } from "./drivers/bun-sqlite";
export type { D1DatabaseLike, D1PreparedStatementLike, D1SessionLike } from "./drivers/d1";
export { d1Driver } from "./drivers/d1";
export type { Mysql2DriverOptions, Mysql2Queryable } from "./drivers/mysql2";
export { mysql2Driver } from "./drivers/mysql2";
export type { NodeSqliteDatabase } from "./drivers/node-sqlite";
export { nodeSqliteDriver } from "./drivers/node-sqlite";
export type { PgQueryable } from "./drivers/pg";
export { pgDriver } from "./drivers/pg";
export type { PGliteLike } from "./drivers/pglite";
export { pgliteDriver } from "./drivers/pglite";
export {
  DatabaseError,
  IncompleteKeyError,
  InvalidIdentifierError,
  InvalidValueError,
  UniqueViolationError,
} from "./errors";
export {
  IDEMPOTENCY_TABLE,
  idempotencyTable,
  type SqlIdempotencyStore,
  sqlIdempotencyStore,
} from "./idempotency-store";
export {
  assertIdentifier,
  IDENTIFIER_PATTERN,
  type IdentifierProblem,
  identifierProblem,
  parseTableName,
} from "./identifiers";
export { type D1LiveOptions, sqlLiveStorage } from "./live";
export { CHANGES_CHANNEL, postgresBroker } from "./postgres-broker";
export { RATE_LIMITS_TABLE, rateLimitTable, type SqlRateLimitStore, sqlRateLimitStore } from "./rate-limit-store";
export type { SearchClause } from "./statement";
export type {
  ConditionalWrite,
  CountQuery,
  ListPage,
  ListQuery,
  SeekPage,
  SeekQuery,
  SqlRow,
  StorageTable,
} from "./storage";
export type { SqlTableOptions } from "./table";
export { SqlTable, uniqueIndexColumns } from "./table";
