// JSON has no Date and no bigint, so a JSON body's `z.date()` and `z.bigint()` members arrive as what the
// document says they are (a date-time string, an integer). The body is parsed as sent first: what the
// schema accepts so keeps its meaning. Where it refuses a string or a number for a date or a bigint, that
// value is converted and the body parsed again; inside a union, the first option all of whose refusals
// are such values decides, as zod's union takes its first option that passes.
import type { z } from "zod";
import { seam } from "../../schema";
import { bigintOf } from "./coerce";

/** What zod reports of a refused value, as far as a conversion reads it. */
interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly expected?: unknown;
  /** A union's: each option's own issues, their paths from the union's value. */
  readonly errors?: readonly (readonly Issue[])[];
}

// RFC 3339's date-time, what `format: date-time` names: "2026-12-04T19:00:00Z", "...T19:00:00.123+01:00".
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DIGITS = /^-?\d+$/;
// How many schemas, and how deep, the check below looks through: a lazy that builds a new schema per call
// has no end, and each level it is made to build is one zod itself then walks when it parses.
const MAX_SCHEMAS = 10_000;
const MAX_DEPTH = 64;

/**
 * Whether a JSON body of `schema` may hold a Date or a bigint, so that a refused body is worth
 * converting: looked up once, when the route compiles. A schema too large to look through counts as one.
 *
 * @example
 * holdsDatesOrBigints(z.object({ at: z.date() })) // true
 * holdsDatesOrBigints(z.object({ title: z.string() })) // false
 */
export function holdsDatesOrBigints(schema: z.ZodType): boolean {
  const seen = new Set<unknown>();
  const pending: [z.ZodType, number][] = [[schema, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (depth > MAX_DEPTH || seen.size >= MAX_SCHEMAS) return true;
    // One look per schema as its wrappers and lazies unwrap to, so a schema that holds itself ends.
    const key = seam.unwrap(next, "input");
    if (seen.has(key)) continue;
    seen.add(key);
    const parts = seam.jsonParts(next);
    let below: readonly z.ZodType[] = [];
    if (parts === null) {
      // The input side (a date, a bigint), or what a preprocess or pipe hands on: either refuses JSON's text.
      const { scalar } = seam.fieldKind(next);
      const stored = seam.columnKind(next);
      if (scalar === "date" || scalar === "bigint" || stored === "date" || stored === "bigint") return true;
    } else if (parts.kind === "object") {
      below = [...Object.values(parts.members), ...(parts.rest ? [parts.rest] : [])];
    } else if (parts.kind === "array") {
      below = [...parts.prefix, ...(parts.rest ? [parts.rest] : [])];
    } else {
      below = parts.kind === "union" ? parts.options : parts.parts;
    }
    for (const member of below) pending.push([member, depth + 1]);
  }
  return false;
}

/**
 * Converts, in place, the values of `body` that `issues` (zod's, from parsing it as sent) refuse as no
 * date or bigint and that are one as JSON writes it: a date-time string, a safe integer, decimal
 * digits. Answers whether it converted any, so the body is worth parsing again.
 *
 * @example
 * const body = { at: "2026-12-04T19:00:00Z" };
 * convertRefused(body, schema.safeParse(body).error!.issues) // true; body.at is a Date
 */
export function convertRefused(body: unknown, issues: readonly Issue[]): boolean {
  const edits: Edit[] = [];
  collect(body, issues, [], edits, false);
  for (const { container, key, value } of edits) container[key] = value;
  return edits.length > 0;
}

interface Edit {
  container: Record<PropertyKey, unknown>;
  key: PropertyKey;
  value: unknown;
}

/**
 * The conversions `issues` call for, into `edits`. With `every`, only if each issue is one (a union's
 * option is taken whole or not at all); answers whether each was.
 */
function collect(body: unknown, issues: readonly Issue[], base: readonly PropertyKey[], edits: Edit[], every: boolean) {
  let all = true;
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === "invalid_type" && (issue.expected === "date" || issue.expected === "bigint")) {
      const place = placeOf(body, path);
      const value = place && converted(issue.expected, place.container[place.key]);
      if (place && value !== undefined) {
        edits.push({ ...place, value });
        continue;
      }
    } else if (issue.code === "invalid_union" && issue.errors) {
      const taken = issue.errors.some((option) => {
        const trial: Edit[] = [];
        if (option.length === 0 || !collect(body, option, path, trial, true)) return false;
        edits.push(...trial);
        return true;
      });
      if (taken) continue;
    }
    all = false;
    if (every) return false;
  }
  return all;
}

/** The object or array holding the value at `path` of `body` (own members only), and its key there. */
function placeOf(body: unknown, path: readonly PropertyKey[]): Omit<Edit, "value"> | undefined {
  if (path.length === 0) return undefined;
  let container: unknown = body;
  for (const key of path.slice(0, -1)) {
    if (typeof container !== "object" || container === null || !Object.hasOwn(container, key)) return undefined;
    container = (container as Record<PropertyKey, unknown>)[key];
  }
  const key = path[path.length - 1]!;
  if (typeof container !== "object" || container === null || !Object.hasOwn(container, key)) return undefined;
  return { container: container as Record<PropertyKey, unknown>, key };
}

/** `value` as the date or bigint JSON writes one as, or undefined when it is none. */
function converted(expected: "date" | "bigint", value: unknown): unknown {
  if (expected === "date") return typeof value === "string" ? dateTimeOf(value) : undefined;
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  // Digits alone: the sign and spaces of a query value's reading are no JSON integer's.
  return typeof value === "string" && DIGITS.test(value) ? bigintOf(value) : undefined;
}

/**
 * An RFC 3339 date-time as a Date, or undefined for any other text: a day or time that does not exist,
 * a leap second (a Date holds none) and a moment past the year 9999 in UTC included.
 */
function dateTimeOf(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const [offsetHour, offsetMinute] = [Number(match[7] ?? 0), Number(match[8] ?? 0)];
  // Day 0 of the next month is this month's last (setUTCFullYear, since Date.UTC reads years below 100 as 19xx).
  const days = new Date(new Date(0).setUTCFullYear(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > days) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  const date = new Date(text);
  const utcYear = date.getUTCFullYear();
  return utcYear >= 0 && utcYear <= 9999 ? date : undefined;
}
