import type { z } from "zod";

/**
 * What a model field holds once stored, read from its zod schema once per table. Engines return
 * the same value in different shapes (0/1, "12.50", 12n, a Date, JSON text); the kind says what
 * to turn it back into so every engine yields identical rows.
 */
export type ColumnKind = "boolean" | "number" | "bigint" | "date" | "string" | "json" | "unknown";

type Def = { type: string; [key: string]: any };

// Wrappers whose output has the inner schema's type.
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);
const JSON_TYPES = new Set(["object", "array", "record", "tuple"]);
const STRING_TYPES = new Set(["string", "template_literal"]);

function defOf(schema: z.ZodType): Def {
  // zod v4 keeps the definition on `_zod.def`; reading it avoids importing zod's classes.
  return (schema as any)._zod.def as Def;
}

function kindOfValues(values: unknown[]): ColumnKind {
  const types = new Set(values.filter((value) => value !== null).map((value) => typeof value));
  if (types.size !== 1) return "unknown";
  const [type] = types;
  return type === "boolean" || type === "number" || type === "bigint" || type === "string" ? type : "unknown";
}

/**
 * The stored kind of a field schema (its output side: the value that was validated and written).
 *
 * @example
 * columnKind(z.boolean().default(true)) // "boolean"
 */
export function columnKind(schema: z.ZodType): ColumnKind {
  let def = defOf(schema);
  for (let depth = 0; depth < 32; depth++) {
    if (WRAPPERS.has(def.type)) def = defOf(def.innerType);
    else if (def.type === "lazy") def = defOf(def.getter());
    else if (def.type === "pipe") def = defOf(def.out);
    else break;
  }
  if (def.type === "number" || def.type === "int") return "number";
  if (def.type === "boolean" || def.type === "bigint" || def.type === "date") return def.type;
  if (STRING_TYPES.has(def.type)) return "string";
  if (JSON_TYPES.has(def.type)) return "json";
  if (def.type === "literal") return kindOfValues(def.values as unknown[]);
  if (def.type === "enum") return kindOfValues(Object.values(def.entries as Record<string, unknown>));
  if (def.type === "union") {
    // A union decodes only when its non-null members agree on one kind.
    const kinds = new Set(
      (def.options as z.ZodType[])
        .filter((option) => defOf(option).type !== "null")
        .map((option) => columnKind(option)),
    );
    return kinds.size === 1 ? [...kinds][0] : "unknown";
  }
  return "unknown";
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
