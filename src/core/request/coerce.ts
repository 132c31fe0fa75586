import { type FieldKind, type ScalarKind, seam } from "../../schema";
import type { RouteParameter } from "../schema-types";

// Decimal only, whole: hex, octal, binary, "Infinity" and "12abc" stay strings and fail validation.
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const INTEGER = /^[-+]?\d+$/;

/**
 * Converts one raw string to the declared scalar kind; a string that does not fit is returned as is.
 * Numbers and bigints are read with surrounding whitespace trimmed (`String.prototype.trim`), as chanfana 3.4
 * reads them, so `" 12 "` is 12 while `"12abc"` and `"  "` stay strings for the schema to reject.
 *
 * @example
 * coerceScalar(" 12 ", "number") // → 12
 * coerceScalar("12abc", "number") // → "12abc"
 */
export function coerceScalar(raw: string, kind: ScalarKind): unknown {
  switch (kind) {
    case "number":
      return isDigits(raw) ? Number(raw) : decimalOf(raw);
    case "boolean": {
      const lower = raw.toLowerCase();
      return lower === "true" ? true : lower === "false" ? false : raw;
    }
    case "bigint": {
      const trimmed = raw.trim();
      return INTEGER.test(trimmed) ? BigInt(trimmed) : raw;
    }
    case "date": {
      const date = new Date(raw);
      return Number.isNaN(date.getTime()) ? raw : date;
    }
    default:
      return raw;
  }
}

/** `raw` as a number when, trimmed, it is a whole decimal; otherwise `raw` as sent. */
function decimalOf(raw: string): unknown {
  const trimmed = raw.trim();
  return DECIMAL.test(trimmed) ? Number(trimmed) : raw;
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
 * key an array, and strings of number, boolean, bigint and date fields those types (with specroute's
 * rules: decimal numbers only, a string that does not fit is left for the schema to reject).
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
