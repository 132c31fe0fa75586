import type { FilterCondition } from "./types";

/**
 * Whether a row (as a change log keeps it: through JSON) meets every condition, as the SQL WHERE the
 * List endpoint runs would: a null column meets no comparison but `ISNULL`, dates compare as the ISO
 * text they are stored as, a number meets its decimal text (a bigint column comes back as text), and
 * numbers and bigints order by value (10 after 9), text by its characters.
 *
 * @example
 * rowMatcher([{ field: "done", operator: "EQ", value: false }])({ id: 1, done: false }) // true
 */
export function rowMatcher(conditions: readonly FilterCondition[]): (row: Record<string, unknown>) => boolean {
  const tests = conditions.map(conditionTest);
  return (row) => tests.every((test) => test(row));
}

function conditionTest({ field, operator, value }: FilterCondition): (row: Record<string, unknown>) => boolean {
  // Each member of an IN is compared alone: the list is no one value (a bigint in it has no JSON text).
  if (operator === "IN") {
    const members = (value as unknown[]).map(comparable);
    return (row) => members.some((member) => equal(comparable(row[field]), member));
  }
  const wanted = comparable(value);
  switch (operator) {
    case "EQ":
      return (row) => equal(comparable(row[field]), wanted);
    case "NE":
      return (row) => row[field] != null && !equal(comparable(row[field]), wanted);
    case "ISNULL":
      return (row) => (row[field] == null) === (value === true);
    case "GT":
      return (row) => order(row[field], wanted, (c) => c > 0);
    case "GTE":
      return (row) => order(row[field], wanted, (c) => c >= 0);
    case "LT":
      return (row) => order(row[field], wanted, (c) => c < 0);
    case "LTE":
      return (row) => order(row[field], wanted, (c) => c <= 0);
    case "LIKE":
      // Search is a List feature: a changes feed has no search parameter.
      throw new Error(`A live collection cannot filter changes with ${operator}`);
  }
}

type Comparable = string | number | bigint | boolean | null;

/** A value as the log's JSON holds it (a Date as its ISO text), a bigint kept to compare by value. */
function comparable(value: unknown): Comparable {
  if (value == null) return null;
  if (value instanceof Date) return value.toISOString();
  // An object or an array (a JSON column) as its JSON text.
  return typeof value === "object" ? JSON.stringify(value) : (value as Comparable);
}

function equal(a: Comparable, b: Comparable): boolean {
  return a !== null && b !== null && compare(a, b) === 0;
}

function order(stored: unknown, wanted: Comparable, holds: (comparison: number) => boolean): boolean {
  const a = comparable(stored);
  return a !== null && wanted !== null && holds(compare(a, wanted));
}

/**
 * -1, 0 or 1 as `a` is below, at or above `b`, or NaN, which holds no bound, when they have no order
 * (text that is no number against a number). Text against text by its characters, as stored; anything
 * else by value, so that a bigint column's text (or a bigint) meets a number, and 10 comes after 9.
 */
function compare(a: NonNullable<Comparable>, b: NonNullable<Comparable>): number {
  // JavaScript's own order does both: a bigint, a number and numeric text meet exactly, by value.
  const [x, y] = [a as number, b as number];
  return x < y ? -1 : x > y ? 1 : x >= y ? 0 : Number.NaN;
}
