/**
 * What a table query asks for, before any SQL text is written: conditions and orderings as data.
 * SqlTable writes them as SQL text with bound placeholders; the Drizzle endpoints write them with
 * Drizzle's query builder. Both read the same plan, so a filter, a keyset page or a compare-and-swap
 * means the same thing on every storage.
 */
import type { FilterCondition } from "../endpoints/types";
import { InvalidValueError } from "./errors";

/** A comparison operator of one column (or a row of columns) with a bound value. */
export type Comparison = "=" | "<>" | ">" | ">=" | "<" | "<=";

/**
 * One condition on a row. Columns are model field names the table has already checked; values are
 * the (decoded) values a storage binds.
 */
export type Condition =
  | { kind: "compare"; column: string; operator: Comparison; value: unknown }
  | { kind: "in"; column: string; values: unknown[] }
  | { kind: "null"; column: string; isNull: boolean }
  /** Case-insensitive "contains" over several columns (any of them), wildcards in the term taken literally. */
  | { kind: "contains"; columns: string[]; term: string }
  /** Row-value comparison `(a, b) > (?, ?)`, what an index on (a, b) serves; a single column compares alone. */
  | { kind: "row"; columns: string[]; operator: ">" | "<"; values: unknown[] }
  | { kind: "and" | "or"; parts: Condition[] }
  /** Matches nothing (`IN ()`, a search over no column). */
  | { kind: "never" };

/** One term of an ORDER BY; `mayBeNull: false` lets an engine leave out a NULLS clause. */
export interface OrderTerm {
  column: string;
  direction: "asc" | "desc";
  mayBeNull: boolean;
}

const COMPARISONS: Partial<Record<FilterCondition["operator"], Comparison>> = {
  GT: ">",
  GTE: ">=",
  LT: "<",
  LTE: "<=",
};

/**
 * The condition a list filter stands for: a null EQ/NE value is IS NULL / IS NOT NULL, an empty IN
 * matches nothing, ISNULL takes a boolean, LIKE searches the field itself.
 *
 * @example
 * filterCondition({ field: "note", operator: "EQ", value: null }) // { kind: "null", column: "note", isNull: true }
 */
export function filterCondition(condition: FilterCondition): Condition {
  const { field: column, value } = condition;
  switch (condition.operator) {
    case "EQ":
      return value === null
        ? { kind: "null", column, isNull: true }
        : { kind: "compare", column, operator: "=", value };
    case "NE":
      return value === null
        ? { kind: "null", column, isNull: false }
        : { kind: "compare", column, operator: "<>", value };
    case "GT":
    case "GTE":
    case "LT":
    case "LTE":
      return { kind: "compare", column, operator: COMPARISONS[condition.operator]!, value };
    case "IN": {
      const values = Array.isArray(value) ? value : [value];
      return values.length === 0 ? { kind: "never" } : { kind: "in", column, values };
    }
    case "ISNULL":
      if (typeof value !== "boolean") throw new InvalidValueError(`${column}__isnull takes true or false`);
      return { kind: "null", column, isNull: value };
    case "LIKE":
      return { kind: "contains", columns: [column], term: String(value) };
    default:
      throw new TypeError(`Unsupported filter operator ${JSON.stringify(condition.operator)}`);
  }
}

/** A search over some columns; no columns match nothing. */
export function searchCondition(columns: string[], term: string): Condition {
  return columns.length === 0 ? { kind: "never" } : { kind: "contains", columns, term };
}

/** The order column (when given), then the primary key columns not already named: a keyset position's columns. */
export function keysetColumns(primaryKeys: readonly string[], column: string | undefined): string[] {
  // Stryker disable next-line MethodExpression,ConditionalExpression: a key column named again after itself as the order column orders and compares the same rows
  const keys = primaryKeys.filter((name) => name !== column);
  return column === undefined ? keys : [column, ...keys];
}

/**
 * ORDER BY for keyset pages: every keyset column in one direction, so one index on (order column,
 * key) serves both ways. `nullable` names the columns that may hold NULL.
 */
export function keysetOrder(
  primaryKeys: readonly string[],
  nullable: ReadonlySet<string>,
  column: string | undefined,
  direction: "asc" | "desc",
): OrderTerm[] {
  return keysetColumns(primaryKeys, column).map((name) => ({ column: name, direction, mayBeNull: nullable.has(name) }));
}

/**
 * chanfana's page order: the order column in its direction (when given), then the primary key
 * ascending; the key makes every position unique, so ties never repeat or skip a row. A key column
 * never holds NULL, so it takes no NULLS clause, which would keep PostgreSQL from reading it off an index.
 */
export function pageOrder(
  primaryKeys: readonly string[],
  orderBy?: { column: string; direction: "asc" | "desc" },
): OrderTerm[] {
  // Stryker disable next-line MethodExpression,ConditionalExpression: a key column ordered again after itself as the order column changes no order
  const keys = primaryKeys.filter((name) => name !== orderBy?.column);
  // Stryker disable next-line StringLiteral: every dialect orders by any direction but "desc" ascending
  const byKey = keys.map((name): OrderTerm => ({ column: name, direction: "asc", mayBeNull: false }));
  return orderBy ? [{ column: orderBy.column, direction: orderBy.direction, mayBeNull: true }, ...byKey] : byKey;
}

/**
 * Rows strictly beyond `key` when walking the order `travel`-wards, NULL being smallest: a row-value
 * comparison over the keyset columns (keysetColumns: the primary key at least), with NULLs of a
 * nullable order column handled beside it since they compare as unknown. `nullableColumn` is the
 * order column when it may hold NULL.
 */
export function beyondCondition(
  columns: string[],
  nullableColumn: string | undefined,
  travel: "asc" | "desc",
  key: Record<string, unknown>,
): Condition {
  for (const name of columns) {
    if (key[name] === undefined)
      throw new InvalidValueError(`The position to page from has no ${JSON.stringify(name)}`);
    if (key[name] === null && name !== nullableColumn) {
      throw new InvalidValueError(`The position to page from has no value for ${JSON.stringify(name)}`);
    }
  }
  const operator = travel === "asc" ? ">" : "<";
  const compare = (names: string[]): Condition => ({
    kind: "row",
    columns: names,
    operator,
    values: names.map((n) => key[n]),
  });
  if (nullableColumn === undefined) return compare(columns);
  if (key[nullableColumn] === null) {
    // Beyond a NULL: the rest of the NULLs by key (the columns after the order column), then (ascending) every non-NULL value.
    const nulls: Condition = {
      kind: "and",
      parts: [{ kind: "null", column: nullableColumn, isNull: true }, compare(columns.slice(1))],
    };
    return travel === "asc"
      ? { kind: "or", parts: [nulls, { kind: "null", column: nullableColumn, isNull: false }] }
      : nulls;
  }
  // Beyond a value: NULLs come first, so only a descending walk reaches them.
  return travel === "asc"
    ? compare(columns)
    : { kind: "or", parts: [compare(columns), { kind: "null", column: nullableColumn, isNull: true }] };
}

/**
 * The columns a compare-and-swap checks to know a row is still the one `read`: its version column
 * when the table has one (and the row holds it), else every non-key column the row holds.
 */
export function unchangedColumns(
  read: Record<string, unknown>,
  columns: readonly string[],
  primaryKeys: readonly string[],
  versionField: string | undefined,
): string[] {
  if (versionField !== undefined && read[versionField] !== undefined) return [versionField];
  return columns.filter((name) => !primaryKeys.includes(name) && read[name] !== undefined);
}

/**
 * The key conditions of a row just inserted by a statement that could not return it: the key values
 * given, else the generated id (for one key column at most); null when that does not identify it.
 */
export function insertedKey(
  primaryKeys: readonly string[],
  data: Record<string, unknown>,
  lastInsertId: unknown,
): FilterCondition[] | null {
  const key: FilterCondition[] = [];
  let generatedUsed = false;
  for (const field of primaryKeys) {
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

/**
 * The value of every primary key column from EQ conditions; an update or delete refuses to go on
 * without all of them. Returns the key values and the names missing.
 */
export function keyValues(
  primaryKeys: readonly string[],
  filters: FilterCondition[],
): { key: Map<string, unknown>; missing: string[] } {
  const key = new Map<string, unknown>();
  for (const condition of filters) {
    const isKeyValue = condition.operator === "EQ" && condition.value !== null && condition.value !== undefined;
    if (isKeyValue && primaryKeys.includes(condition.field)) key.set(condition.field, condition.value);
  }
  return { key, missing: primaryKeys.filter((name) => !key.has(name)) };
}

/**
 * The conditions to read a row back by after an update that could not return it: the key as it is
 * now (a written key column takes its new value), and the narrowing conditions on columns not rewritten.
 */
// Five parameters: five separate values the two tables' update already holds, each read once; a pure function a bag would only hide.
export function rereadFilters(
  primaryKeys: readonly string[],
  key: Map<string, unknown>,
  keyFilters: FilterCondition[],
  data: Record<string, unknown>,
  written: ReadonlySet<string>,
): FilterCondition[] {
  return [
    ...primaryKeys.map((field) => ({
      field,
      operator: "EQ" as const,
      value: written.has(field) ? data[field] : key.get(field),
    })),
    ...keyFilters.filter((condition) => !primaryKeys.includes(condition.field) && !written.has(condition.field)),
  ];
}
