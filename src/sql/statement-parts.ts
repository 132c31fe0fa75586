import type { Dialect } from "./dialect";
import type { ExecuteResult, SqlDriver, StatementParts } from "./driver";

/**
 * The text of `statement` with `dialect`'s placeholders between its parts.
 *
 * @example
 * statementText({ text: ["SELECT * FROM t WHERE a = ", " AND b = ", ""], params: [1, 2] }, postgresDialect)
 * // "SELECT * FROM t WHERE a = $1 AND b = $2"
 */
export function statementText(statement: StatementParts, dialect: Dialect): string {
  const { text } = statement;
  let sql = text[0];
  for (let index = 1; index < text.length; index++) sql += dialect.placeholder(index) + text[index];
  return sql;
}

/** Runs `statement` for its rows on `driver`: as parts where the driver takes them, else as its text. */
export function queryStatement<T = Record<string, unknown>>(
  driver: SqlDriver,
  statement: StatementParts,
): Promise<T[]> {
  if (driver.queryParts) return driver.queryParts<T>(statement);
  return driver.query<T>(statementText(statement, driver.dialect), statement.params);
}

/** Runs `statement` for its effect on `driver`: as parts where the driver takes them, else as its text. */
export function executeStatement(driver: SqlDriver, statement: StatementParts): Promise<ExecuteResult> {
  if (driver.executeParts) return driver.executeParts(statement);
  return driver.execute(statementText(statement, driver.dialect), statement.params);
}
