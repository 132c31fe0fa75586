import { type FieldKind, type ScalarKind, seam } from "../../schema";
import type { RouteParameter } from "../schema-types";

// Decimal only, whole: hex, octal, binary, "Infinity" and "12abc" are no numbers.
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const INTEGER = /^[-+]?\d+$/;

/**
 * Converts one raw string to the declared scalar kind, as chanfana 3.4 reads query, path and header values:
 * numbers trimmed and whole decimals only, any other string `NaN` (so the 400 says "expected number,
 * received NaN", as chanfana's does); booleans trimmed, in any case; dates through `new Date()` (an
 * unreadable one an invalid Date). Bigints are trimmed whole decimal integers, else left as sent: chanfana's
 * `BigInt()` would read `"0x10"` as 16 and `" "` as 0.
 *
 * @example
 * coerceScalar(" 12 ", "number") // → 12
 * coerceScalar("12abc", "number") // → NaN
 */
export function coerceScalar(raw: string, kind: ScalarKind): unknown {
  switch (kind) {
    case "number":
      return isDigits(raw) ? Number(raw) : decimalOf(raw);
    case "boolean": {
      const word = raw.trim().toLowerCase();
      return word === "true" ? true : word === "false" ? false : raw;
    }
    case "bigint":
      return bigintOf(raw.trim()) ?? raw;
    case "date":
      return new Date(raw);
    default:
      return raw;
  }
}

// Reading digits as a bigint costs time by their count squared (a megabyte of them, a tenth of a second):
// 64 is past 2^128's 39 digits, and an int64, what the document says, has 19.
const MAX_BIGINT_DIGITS = 64;

/**
 * `text` as a bigint when it is a whole decimal integer of at most 64 digits (a sign allowed), else
 * undefined: the schema then refuses the text, naming the field.
 *
 * @example
 * bigintOf("-9007199254740993") // -9007199254740993n
 * bigintOf("0x10") // undefined
 */
export function bigintOf(text: string): bigint | undefined {
  const signed = text[0] === "-" || text[0] === "+";
  return text.length - (signed ? 1 : 0) <= MAX_BIGINT_DIGITS && INTEGER.test(text) ? BigInt(text) : undefined;
}

/** `raw` as a number when, trimmed, it is a whole decimal; otherwise `NaN`. */
function decimalOf(raw: string): number {
  const trimmed = raw.trim();
  return DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** Whether `raw` is a short run of ASCII digits (the common id or page number), without a regex. */
function isDigits(raw: string): boolean {
  if (raw.length === 0 || raw.length > 15) return false;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Key/value pairs as `coerceInputs` accepts them: URLSearchParams, Headers, a Map or a plain object. */
export type InputEntries =
  | { entries(): IterableIterator<[string, unknown]> | Iterable<[string, unknown]> }
  | Record<string, unknown>;

/**
 * Turns raw request values into what `schema` declares, chanfana's way: `""` becomes `null`, a repeated
 * key an array, and strings of number, boolean, bigint and date fields those types (chanfana
 * 3.4's rules, see `coerceScalar`).
 * Returns `null` when there is no value at all.
 *
 * @example
 * coerceInputs(new URLSearchParams("page=2&tag=a&tag=b"), z.object({ page: z.number(), tag: z.array(z.string()) }));
 * // → { page: 2, tag: ["a", "b"] }
 */
export function coerceInputs(data: InputEntries, schema?: RouteParameter): Record<string, unknown> | null {
  const grouped = new Map<string, unknown[]>();
  for (const [key, raw] of entriesOf(data)) {
    const value = raw === "" ? null : raw;
    const values = grouped.get(key);
    if (values) values.push(value);
    else grouped.set(key, [value]);
  }
  if (grouped.size === 0) return null;
  const shape = schema ? seam.objectShape(schema) : null;
  const result: Record<string, unknown> = {};
  for (const [key, values] of grouped) {
    // A schema that is not an object judges every key itself, as chanfana's does.
    const field = shape ? shape[key] : schema;
    const value = values.length === 1 ? values[0] : values;
    result[key] = field ? coerceField(value, seam.fieldKind(field)) : value;
  }
  return result;
}

function coerceField(value: unknown, kind: FieldKind): unknown {
  if (value === null) return null;
  if (kind.array) return (Array.isArray(value) ? value : [value]).map((item) => coerceString(item, kind.scalar));
  return coerceString(value, kind.scalar);
}

function coerceString(value: unknown, kind: ScalarKind): unknown {
  return typeof value === "string" ? coerceScalar(value, kind) : value;
}

function entriesOf(data: InputEntries): Iterable<[string, unknown]> {
  return typeof data.entries === "function"
    ? (data.entries as () => Iterable<[string, unknown]>)()
    : Object.entries(data);
}
