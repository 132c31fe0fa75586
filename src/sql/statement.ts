import type { FilterCondition } from "../endpoints/types";
import { containsPattern, type Dialect } from "./dialect";
import type { ExecuteResult, SqlDriver, StatementParts } from "./driver";
import { InvalidValueError } from "./errors";
import { type Condition, filterCondition } from "./plan";

/** Text search over some columns: a row matches when any of them contains `term`, ignoring ASCII case. */
export interface SearchClause {
  columns: string[];
  term: string;
}

/**
 * Collects one statement's bound parameters and hands out placeholders in order, so SQL text
 * only ever holds placeholders and checked, quoted identifiers.
 */
export class StatementBuilder {
  readonly params: unknown[] = [];

  /** `firstPosition`: the position of the first parameter, for conditions joined to a statement that binds others first. */
  constructor(
    readonly dialect: Dialect,
    readonly firstPosition = 1,
  ) {}

  /** Adds a parameter and returns its placeholder. */
  bind = (value: unknown): string => {
    // PostgreSQL refuses NUL in text; refusing it everywhere keeps every engine answering alike.
    if (typeof value === "string" && value.includes("\0"))
      throw new InvalidValueError("Text values cannot contain NUL characters");
    this.params.push(value);
    return this.dialect.placeholder(this.firstPosition + this.params.length - 1);
  };

  /** Quotes an identifier the caller has already checked against the model. */
  id(name: string): string {
    return this.dialect.quote(name);
  }

  /** One filter condition; `encode` prepares each value for binding. */
  condition(condition: FilterCondition, encode: (value: unknown) => unknown): string {
    return this.render(filterCondition(condition), encode);
  }

  /** A planned condition as SQL text, its values bound in the order they appear; `encode` prepares each. */
  render(condition: Condition, encode: (value: unknown) => unknown): string {
    switch (condition.kind) {
      case "compare": {
        const column = this.id(condition.column);
        const { operator, value } = condition;
        const equality = operator === "=" || operator === "<>";
        if (!equality || !this.#exact([value])) return `${column} ${operator} ${this.bind(encode(value))}`;
        // `column = ?` narrows by the index whatever the collation; the dialect's test beside it keeps exact matches only.
        const equal = `${column} = ${this.bind(encode(value))}`;
        const exact = `(${equal} AND ${this.dialect.exactText!(column, [this.bind(encode(value))])})`;
        return operator === "=" ? exact : `NOT ${exact}`;
      }
      case "in": {
        const column = this.id(condition.column);
        const test = `${column} IN (${condition.values.map((item) => this.bind(encode(item))).join(", ")})`;
        if (!this.#exact(condition.values)) return test;
        const placeholders = condition.values.map((item) => this.bind(encode(item)));
        return `(${test} AND ${this.dialect.exactText!(column, placeholders)})`;
      }
      case "null":
        return `${this.id(condition.column)} ${condition.isNull ? "IS NULL" : "IS NOT NULL"}`;
      case "contains": {
        // Wildcards in the term are taken literally; one placeholder per column, as positional `?` needs.
        const pattern = containsPattern(condition.term);
        const tests = condition.columns.map((name) =>
          this.dialect.containsInsensitive(this.id(name), this.bind(pattern)),
        );
        return `(${tests.join(" OR ")})`;
      }
      case "row": {
        const bound = condition.values.map((value) => this.bind(encode(value)));
        const quoted = condition.columns.map((name) => this.id(name));
        // One form for any number of columns: `(a) > (?)` is the plain comparison `a > ?` on every engine.
        return `(${quoted.join(", ")}) ${condition.operator} (${bound.join(", ")})`;
      }
      case "and":
      case "or":
        return `(${condition.parts.map((part) => this.render(part, encode)).join(condition.kind === "and" ? " AND " : " OR ")})`;
      case "never":
        return "1 = 0";
    }
  }

  /** Whether an equality with `values` needs the dialect's exact test beside it: strings, where the dialect has one. */
  #exact(values: readonly unknown[]): boolean {
    return this.dialect.exactText !== undefined && values.every((value) => typeof value === "string");
  }

  /** ` WHERE a AND b`, or nothing when there is no condition. */
  where(parts: string[]): string {
    return parts.length > 0 ? ` WHERE ${parts.join(" AND ")}` : "";
  }
}

/**
 * `WHERE a AND b` for conditions built by a StatementBuilder, or "" when there is none.
 *
 * @example
 * whereClause(["id = ?1", "org = ?2"]) // "WHERE id = ?1 AND org = ?2"
 */
export function whereClause(conditions: string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
}

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
