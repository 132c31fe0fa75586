import type { z } from "zod";
import { type ColumnKind, seam } from "../schema";

/**
 * What a model field holds once stored, read from its zod schema once per table (through the schema
 * seam). Engines return the same value in different shapes (0/1, "12.50", 12n, a Date, JSON text); the
 * kind says what to turn it back into so every engine yields identical rows.
 */
export type { ColumnKind } from "../schema";

/**
 * The stored kind of a field schema (its output side: the value that was validated and written).
 *
 * @example
 * columnKind(z.boolean().default(true)) // "boolean"
 */
export function columnKind(schema: z.ZodType): ColumnKind {
  return seam.columnKind(schema);
}

/**
 * Whether a stored field may hold NULL: nullable or optional at some wrapper level, or of no fixed type
 * (what keyset pages and cursors treat as a nullable order column).
 *
 * @example
 * mayBeNull(z.string().nullable()) // true
 */
export function mayBeNull(schema: z.ZodType): boolean {
  return seam.mayBeNull(schema);
}

function isPlainJson(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A value as bound for any engine: arrays and plain objects become JSON text (stored in a
 * TEXT/JSON/JSONB column); drivers convert booleans, Dates and bigints per engine.
 */
export function encodeValue(value: unknown): unknown {
  return isPlainJson(value) ? JSON.stringify(value) : value;
}

/**
 * A stored value turned back into the field's kind; values that do not convert cleanly are returned unchanged.
 *
 * @example
 * decodeValue("boolean", 1)     // true
 * decodeValue("number", "12.50") // 12.5
 */
export function decodeValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return value ?? null;
  switch (kind) {
    case "boolean":
      if (typeof value === "number") return value !== 0;
      if (typeof value === "bigint") return value !== 0n;
      if (value === "1" || value === "t" || value === "true") return true;
      if (value === "0" || value === "f" || value === "false") return false;
      return value;
    case "number":
      if (typeof value === "bigint") return Number(value);
      if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
      return value;
    case "bigint":
      if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
      if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
      return value;
    case "date":
      if (typeof value === "string" || typeof value === "number") {
        const date = new Date(value);
        return Number.isNaN(date.getTime()) ? value : date;
      }
      return value;
    case "string":
      if (value instanceof Date) return value.toISOString();
      if (typeof value === "number" || typeof value === "bigint") return String(value);
      return value;
    case "json":
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}
