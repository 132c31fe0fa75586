import type { z } from "zod";

/** The zod definition of a schema, read without importing zod's classes. */
type Def = { type: string; [key: string]: any };

function defOf(schema: z.ZodType): Def {
  return (schema as any)._zod.def as Def;
}

/**
 * Whether a value is a zod v4 schema (by shape, so any loaded copy of zod counts). A schema slot that
 * holds anything else holds a plain JSON Schema object, which is documented as written and validates nothing.
 */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** Strips optional/default/nullable/readonly/catch wrappers and the input side of pipes. */
function unwrapInput(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType;
    else if (def.type === "pipe") current = def.in;
    else if (def.type === "lazy") current = def.getter();
    else return current;
  }
  return current;
}

/** The members of an object schema (looking through wrappers, pipes and refinements), or null. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
  const inner = unwrapInput(schema);
  const def = defOf(inner);
  return def.type === "object" ? (def.shape as Record<string, z.ZodType>) : null;
}

/** How a string from a URL, header or cookie is turned into the value a field declares. */
export type ScalarKind = "string" | "number" | "boolean" | "bigint" | "date";

export interface FieldKind {
  scalar: ScalarKind;
  /** The field is an array: repeated keys (or one value) become its elements. */
  array: boolean;
}

/** Classifies a field schema for coercion; unknown shapes are left as strings for zod to judge. */
export function fieldKind(schema: z.ZodType): FieldKind {
  const inner = unwrapInput(schema);
  const def = defOf(inner);
  if (def.type === "array") return { scalar: scalarKind(def.element), array: true };
  if (def.type === "set") return { scalar: scalarKind(def.valueType), array: true };
  return { scalar: scalarKind(inner), array: false };
}

function scalarKind(schema: z.ZodType): ScalarKind {
  const def = defOf(unwrapInput(schema));
  switch (def.type) {
    case "number":
    case "int":
      return "number";
    case "boolean":
      return "boolean";
    case "bigint":
      return "bigint";
    case "date":
      return "date";
    case "literal":
      return literalKind(def.values as unknown[]);
    case "union": {
      // A union coerces only when every non-null member agrees on one kind.
      const kinds = new Set(
        (def.options as z.ZodType[])
          .filter((option) => defOf(unwrapInput(option)).type !== "null")
          .map((option) => scalarKind(option)),
      );
      return kinds.size === 1 ? [...kinds][0]! : "string";
    }
    default:
      return "string";
  }
}

function literalKind(values: unknown[]): ScalarKind {
  if (values.every((value) => typeof value === "number")) return "number";
  if (values.every((value) => typeof value === "boolean")) return "boolean";
  if (values.every((value) => typeof value === "bigint")) return "bigint";
  return "string";
}

/**
 * Whether a field may hold NULL: nullable or optional at some wrapper level, or of no fixed type (what
 * SQL keyset pages and cursors both treat as a nullable order column).
 *
 * @example
 * mayBeNull(z.string().nullable()) // true
 */
export function mayBeNull(schema: z.ZodType): boolean {
  let def = defOf(schema);
  for (let depth = 0; depth < 32; depth++) {
    if (def.type === "nullable" || def.type === "optional" || def.type === "null") return true;
    if (def.type === "any" || def.type === "unknown") return true;
    if (WRAPPERS.has(def.type)) def = defOf(def.innerType);
    else if (def.type === "lazy") def = defOf(def.getter());
    else if (def.type === "pipe") def = defOf(def.in);
    else break;
  }
  if (def.type === "union") return (def.options as z.ZodType[]).some((option) => mayBeNull(option));
  return false;
}

/** Whether the schema accepts `undefined`: zod marks optional members "optional" and defaulted ones "defaulted". */
export function acceptsUndefined(schema: z.ZodType): boolean {
  return (schema as any)._zod.optin !== undefined;
}

/** What a file field declares: its largest size in bytes and its accepted media types. */
export interface FileConstraints {
  maxSize?: number;
  types?: readonly string[];
}

/** The constraints of a file field (or an array of files), or null when the field holds no files. */
export function fileConstraints(schema: z.ZodType): FileConstraints | null {
  let def = defOf(unwrapInput(schema));
  if (def.type === "array") def = defOf(unwrapInput(def.element));
  if (def.type !== "file") return null;
  const constraints: FileConstraints = {};
  for (const check of (def.checks ?? []) as Array<{ _zod: { def: Def } }>) {
    const checkDef = check._zod.def;
    if (checkDef.check === "max_size") {
      constraints.maxSize = Math.min(constraints.maxSize ?? Number.POSITIVE_INFINITY, checkDef.maximum as number);
    } else if (checkDef.check === "mime_type") {
      constraints.types = checkDef.mime as string[];
    }
  }
  return constraints;
}
