/**
 * chanfana's D1 SQL helpers, for hand-written statements in a user's own D1 endpoints. They sit on
 * the SQL core: identifiers are checked by `identifierProblem`, conditions are built by the
 * StatementBuilder over the SQLite dialect, and UNIQUE violations are read by the SQLite dialect.
 * Only the text format is chanfana's: bare identifiers and numbered `?N` placeholders.
 */

import { orderDirectionOf } from "../endpoints/list";
import type { FilterCondition, Filters, Logger, OrderByDirection } from "../endpoints/types";
import { ApiException, freshException, InputValidationException, isApiException } from "../errors/exceptions";
import type { Dialect } from "./dialect";
import { sqliteDialect, sqliteUniqueViolation } from "./dialects/sqlite";
import { InvalidValueError } from "./errors";
import { identifierProblem } from "./identifiers";
import { StatementBuilder, whereClause } from "./statement";

/** chanfana accepts identifiers up to 128 characters (SQLite has no limit of its own). */
const MAX_IDENTIFIER_LENGTH = 128;

/** Operators the helpers turn into conditions; LIKE needs the search columns, so it is the list endpoint's. */
const HELPER_OPERATORS = new Set(["EQ", "NE", "GT", "GTE", "LT", "LTE", "IN", "ISNULL"]);

/** SQLite written as chanfana's helpers write it: bare identifiers (already validated) and `?N` placeholders. */
function d1Text(): Dialect {
  return { ...sqliteDialect, quote: (identifier) => identifier, placeholder: (n) => `?${n}` };
}

// Built by a pure call so an app that never uses the helpers leaves the SQL layer out of its bundle.
const d1TextDialect = /* @__PURE__ */ d1Text();

/** Conditions and their bound values, as the D1 helpers build them. */
export interface SafeFilters {
  /** One SQL condition per filter, e.g. `"id = ?1"`. */
  conditions: string[];
  /** Values to bind, in placeholder order. */
  conditionsParams: (string | number | boolean | null)[];
}

/**
 * Returns `identifier` if it is a plain SQL identifier (letters, digits, underscore, not starting
 * with a digit, at most 128 characters); throws ApiException otherwise. `type` names it in the error.
 *
 * @example
 * validateSqlIdentifier("user_name", "column") // "user_name"
 * validateSqlIdentifier("users; DROP TABLE", "table") // throws ApiException
 */
export function validateSqlIdentifier(identifier: string, type: string): string {
  switch (identifierProblem(identifier, MAX_IDENTIFIER_LENGTH)) {
    case "empty":
      throw new ApiException(`Invalid ${type} name: must be a non-empty string`);
    case "characters":
      throw new ApiException(
        `Invalid ${type} name "${identifier}": must start with a letter or underscore and contain only alphanumeric characters and underscores`,
      );
    case "length":
      throw new ApiException(
        `Invalid ${type} name "${identifier}": exceeds maximum length of ${MAX_IDENTIFIER_LENGTH} characters`,
      );
    default:
      return identifier;
  }
}

/**
 * {@link validateSqlIdentifier} for a table name.
 *
 * @example
 * validateTableName("users") // "users"
 */
export function validateTableName(tableName: string): string {
  return validateSqlIdentifier(tableName, "table");
}

/**
 * {@link validateSqlIdentifier} for a column name, which must also be one of `validColumns` when given (non-empty).
 *
 * @example
 * validateColumnName("email", ["id", "email"]) // "email"
 * validateColumnName("password", ["id", "email"]) // throws ApiException
 */
export function validateColumnName(columnName: string, validColumns?: string[]): string {
  const column = validateSqlIdentifier(columnName, "column");
  if (validColumns && validColumns.length > 0 && !validColumns.includes(column)) {
    throw new ApiException(`Invalid column name "${columnName}": not found in schema`);
  }
  return column;
}

/**
 * `column` if it is one of `allowedColumns`, else `fallbackColumn`; the result is a validated identifier.
 *
 * @example
 * validateOrderByColumn("password", ["id", "name"], "id") // "id"
 */
export function validateOrderByColumn(
  column: string | undefined,
  allowedColumns: string[],
  fallbackColumn: string,
): string {
  const chosen = typeof column === "string" && allowedColumns.includes(column) ? column : fallbackColumn;
  return validateColumnName(chosen);
}

/**
 * One condition per filter, each column checked against `validColumns`, values bound as `?N` from
 * `startParamIndex`. EQ as chanfana; NE GT GTE LT LTE IN ISNULL as specroute's list filters; a null EQ/NE
 * value is `IS NULL` / `IS NOT NULL`, as is ISNULL true / false. Other operators throw ApiException.
 *
 * @example
 * buildSafeFilters([{ field: "status", operator: "EQ", value: "active" }], ["id", "status"])
 * // { conditions: ["status = ?1"], conditionsParams: ["active"] }
 */
export function buildSafeFilters(
  filters: Array<{ field: string; operator: string; value: unknown }>,
  validColumns: string[],
  startParamIndex = 1,
): SafeFilters {
  const sql = new StatementBuilder(d1TextDialect, startParamIndex);
  const conditions = filters.map((filter) => {
    validateColumnName(filter.field, validColumns);
    if (!HELPER_OPERATORS.has(filter.operator)) {
      throw new ApiException(`Operator "${filter.operator}" is not implemented`);
    }
    try {
      return sql.condition(filter as FilterCondition, (value) => value);
    } catch (error) {
      if (error instanceof InvalidValueError) throw new InputValidationException(error.message);
      throw error;
    }
  });
  return { conditions, conditionsParams: sql.params as SafeFilters["conditionsParams"] };
}

/**
 * {@link buildSafeFilters} over the filters on primary key columns only; refuses (ApiException)
 * when there is none, so a statement is never left unscoped.
 *
 * @example
 * buildPrimaryKeyFilters({ filters }, ["id"], ["id", "name"]) // { conditions: ["id = ?1"], ... }
 */
export function buildPrimaryKeyFilters(
  filters: Filters | { filters: Array<{ field: string; operator: string; value: unknown }> },
  primaryKeys: string[],
  validColumns: string[],
  startParamIndex = 1,
): SafeFilters {
  // An ISNULL test on a key narrows nothing (keys are never null), so it does not count as scoping.
  const onKeys = filters.filters.filter((filter) => primaryKeys.includes(filter.field) && filter.operator !== "ISNULL");
  if (onKeys.length === 0) {
    throw new ApiException("No primary key filters provided — refusing to execute unscoped query");
  }
  return buildSafeFilters(onKeys, validColumns, startParamIndex);
}

/**
 * `WHERE a AND b` from conditions, or "" when there is none.
 *
 * @example
 * buildWhereClause(["id = ?1"]) // "WHERE id = ?1"
 */
export function buildWhereClause(conditions: string[]): string {
  return whereClause(conditions);
}

/**
 * `ORDER BY column direction`; the column must be a plain identifier (ApiException otherwise).
 *
 * @example
 * buildOrderByClause("name", "desc") // "ORDER BY name desc"
 */
export function buildOrderByClause(column: string, direction: OrderByDirection): string {
  return `ORDER BY ${d1TextDialect.orderBy(validateColumnName(column), orderDirectionOf(direction))}`;
}

/**
 * Rethrows a D1 error: a UNIQUE violation whose constraint (`"users.email"`) is a key of
 * `constraintsMessages` as a fresh copy of that exception, anything else as ApiException
 * "Database operation failed" (the engine's message never reaches the client). Logs to
 * `logger.error` when both `logger` and `operation` are given.
 *
 * @example
 * try { await db.prepare(sql).bind(...params).run(); }
 * catch (e) { handleDbError(e as Error, this.constraintsMessages, this.logger, "create users"); }
 */
export function handleDbError(
  error: Error,
  constraintsMessages: Record<string, ApiException>,
  logger?: Logger,
  operation?: string,
): never {
  if (logger && operation) logger.error(`Database error during ${operation}: ${error?.message}`);
  const constraint = sqliteUniqueViolation(error)?.constraint;
  const template = constraint === undefined ? undefined : constraintsMessages[constraint];
  if (template && isApiException(template)) throw freshException(template);
  throw new ApiException("Database operation failed");
}

// chanfana's names for what the SQL endpoints use themselves, kept where they live.
export { orderDirectionOf as validateOrderDirection } from "../endpoints/list";
export { freshException } from "../errors/exceptions";
export { d1Binding as getD1Binding } from "./drivers/d1";
