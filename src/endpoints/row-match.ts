import type { FilterCondition } from "./types";

/**
 * Whether a row (as a change log keeps it: through JSON) meets every condition, as the SQL WHERE the
 * List endpoint runs would: a null column meets no comparison but `ISNULL`, dates compare as the ISO
 * text they are stored as, and a number meets its decimal text (a bigint column comes back as text).
 *
 * @example
 * rowMatcher([{ field: "done", operator: "EQ", value: false }])({ id: 1, done: false }) // true
 */
export function rowMatcher(conditions: readonly FilterCondition[]): (row: Record<string, unknown>) => boolean {
  const tests = conditions.map(conditionTest);
  return (row) => tests.every((test) => test(row));
}

function conditionTest({ field, operator, value }: FilterCondition): (row: Record<string, unknown>) => boolean {
  const wanted = comparable(value);
  const list = Array.isArray(value) ? value.map(comparable) : [];
  switch (operator) {
    case "EQ":
      return (row) => equal(comparable(row[field]), wanted);
    case "NE":
      return (row) => row[field] != null && !equal(comparable(row[field]), wanted);
    case "IN":
      return (row) => list.some((member) => equal(comparable(row[field]), member));
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

type Comparable = string | number | boolean | null;

/** A value as the log's JSON holds it: a Date as its ISO text, a bigint as its decimal text. */
function comparable(value: unknown): Comparable {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return value;
  return JSON.stringify(value);
}

function equal(a: Comparable, b: Comparable): boolean {
  if (a === null || b === null) return false;
  if (a === b) return true;
  // A bigint column comes back as text; a number parameter meets it by value.
  if (typeof a === "number" && typeof b === "string") return b.trim() !== "" && Number(b) === a;
  if (typeof a === "string" && typeof b === "number") return a.trim() !== "" && Number(a) === b;
  return false;
}

function order(stored: unknown, wanted: Comparable, holds: (comparison: number) => boolean): boolean {
  const a = comparable(stored);
  if (a === null || wanted === null) return false;
  if (typeof a === "number" || typeof wanted === "number") {
    const x = Number(a);
    const y = Number(wanted);
    return !Number.isNaN(x) && !Number.isNaN(y) && holds(x === y ? 0 : x < y ? -1 : 1);
  }
  const x = String(a);
  const y = String(wanted);
  return holds(x === y ? 0 : x < y ? -1 : 1);
}
