import type { FilterCondition } from "../endpoints/types";
import { containsPattern, type Dialect } from "./dialect";
import { InvalidValueError } from "./errors";

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
    const column = this.id(condition.field);
    const { value } = condition;
    switch (condition.operator) {
      case "EQ":
        return value === null ? `${column} IS NULL` : `${column} = ${this.bind(encode(value))}`;
      case "NE":
        return value === null ? `${column} IS NOT NULL` : `${column} <> ${this.bind(encode(value))}`;
      case "GT":
        return `${column} > ${this.bind(encode(value))}`;
      case "GTE":
        return `${column} >= ${this.bind(encode(value))}`;
      case "LT":
        return `${column} < ${this.bind(encode(value))}`;
      case "LTE":
        return `${column} <= ${this.bind(encode(value))}`;
      case "IN": {
        const values = Array.isArray(value) ? value : [value];
        // `IN ()` is a syntax error everywhere: an empty list matches nothing.
        if (values.length === 0) return "1 = 0";
        return `${column} IN (${values.map((item) => this.bind(encode(item))).join(", ")})`;
      }
      case "ISNULL":
        if (typeof value !== "boolean") throw new InvalidValueError(`${condition.field}__isnull takes true or false`);
        return value ? `${column} IS NULL` : `${column} IS NOT NULL`;
      case "LIKE":
        return this.search({ columns: [condition.field], term: String(value) });
      default:
        throw new TypeError(`Unsupported filter operator ${JSON.stringify(condition.operator)}`);
    }
  }

  /** A case-insensitive "contains" test over several columns, with wildcards in the term taken literally; no columns match nothing. */
  search(search: SearchClause): string {
    if (search.columns.length === 0) return "1 = 0";
    const pattern = containsPattern(search.term);
    const tests = search.columns.map((name) => this.dialect.containsInsensitive(this.id(name), this.bind(pattern)));
    return tests.length === 1 ? tests[0] : `(${tests.join(" OR ")})`;
  }

  /** ` WHERE a AND b`, or nothing when there is no condition. */
  where(parts: string[]): string {
    return parts.length > 0 ? ` ${whereClause(parts)}` : "";
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
