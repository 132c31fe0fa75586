import { z } from "zod";
import type { ColumnKind, FieldKind, FileConstraints, JsonParts, ScalarKind, UnwrapSide } from "../seam";

/*
 * What specroute reads of a zod v4 schema's internals (`_zod.def`, `_zod.optin`/`optout`), in one file.
 * Checked on zod 4.1.0 (the lowest `^4.1.0` accepts) and the latest installed; the corpus test
 * (test/schema/corpus.test.ts) runs on both.
 */

/** A zod definition, read without importing zod's classes: `type` names the kind, the rest depends on it. */
export type Def = { type: string; [key: string]: any };

/** The definition of a zod schema or check. */
export function defOf(schema: { _zod: { def: unknown } }): Def {
  return schema._zod.def as Def;
}

/** Wrappers whose input and output have the inner schema's type (and so does its value, when present). */
export const WRAPPERS: ReadonlySet<string> = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "readonly",
  "catch",
  "nonoptional",
]);

/** How deep `unwrap` looks: a schema wrapped deeper than this is a cycle of lazies, not a real schema. */
const MAX_DEPTH = 32;

/**
 * Whether a value is a zod v4 schema (by shape, so any loaded copy of zod counts). A schema slot that
 * holds anything else holds a plain JSON Schema object, which is documented as written and validates nothing.
 */
export function isSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** The schema one layer in, as `side` looks, or undefined when `schema` wraps nothing that side strips. */
function inner(schema: z.ZodType, side: UnwrapSide): z.ZodType | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return def.innerType;
  if (side === "wrappers") return undefined;
  // zod keeps what a lazy resolves to (`_zod.innerType`): one schema each time, so a walk of a recursive one ends.
  if (def.type === "lazy") return (schema._zod as { innerType?: z.ZodType }).innerType ?? def.getter();
  if (def.type === "pipe") return side === "input" ? def.in : def.out;
  return undefined;
}

/**
 * `schema` without the wrappers (and, for `"input"`/`"output"`, the lazies and that side of pipes) around it.
 *
 * @example
 * unwrap(z.string().optional().default("a"), "input") // the z.string()
 */
export function unwrap(schema: z.ZodType, side: UnwrapSide): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const next = inner(current, side);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

/** The members of an object schema (looking through wrappers, pipes and refinements), or null. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
  const def = defOf(unwrap(schema, "input"));
  return def.type === "object" ? (def.shape as Record<string, z.ZodType>) : null;
}

/**
 * Whether the schema is a bare `z.object` with no check over it (`refine`, `superRefine`, `check`): then
 * its members' own validators decide it. A pipe or transform over the object, or a wrapper, does not.
 *
 * @example
 * validatesMemberwise(z.object({ a: z.string().trim() })) // true
 * validatesMemberwise(z.object({ a: z.string() }).refine((o) => o.a !== "x")) // false
 */
export function validatesMemberwise(schema: z.ZodType): boolean {
  const def = defOf(schema);
  return def.type === "object" && !(def.checks as unknown[] | undefined)?.length;
}

/** Whether the schema accepts `undefined`: zod marks optional members "optional" and defaulted ones "defaulted". */
export function acceptsUndefined(schema: z.ZodType): boolean {
  return schema._zod.optin !== undefined;
}

/** Whether the schema's output may be `undefined`. */
export function mayOutputUndefined(schema: z.ZodType): boolean {
  return schema._zod.optout === "optional";
}

/** Classifies a field schema for coercion; unknown shapes are left as strings for zod to judge. */
export function fieldKind(schema: z.ZodType): FieldKind {
  const bare = unwrap(schema, "input");
  const def = defOf(bare);
  if (def.type === "array") return { scalar: scalarKind(def.element), array: true };
  if (def.type === "set") return { scalar: scalarKind(def.valueType), array: true };
  return { scalar: scalarKind(bare), array: false };
}

function scalarKind(schema: z.ZodType): ScalarKind {
  const def = defOf(unwrap(schema, "input"));
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
    case "union":
      // A union coerces only when every non-null member agrees on one kind.
      return agreed(nonNullOptions(def, "input").map(scalarKind), "string");
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

/** A union's members that are not `null` (looking through their wrappers on `side`). */
function nonNullOptions(def: Def, side: UnwrapSide): z.ZodType[] {
  return (def.options as z.ZodType[]).filter((option) => defOf(unwrap(option, side)).type !== "null");
}

/** The one kind all of `kinds` agree on, or `otherwise`. */
function agreed<K>(kinds: K[], otherwise: K): K {
  const distinct = new Set(kinds);
  return distinct.size === 1 ? [...distinct][0]! : otherwise;
}

/**
 * Whether a field may hold NULL: nullable or optional at some wrapper level, or of no fixed type (what
 * SQL keyset pages and cursors both treat as a nullable order column).
 *
 * @example
 * mayBeNull(z.string().nullable()) // true
 */
export function mayBeNull(schema: z.ZodType): boolean {
  let current: z.ZodType | undefined = schema;
  let def = defOf(schema);
  for (let depth = 0; current !== undefined && depth < MAX_DEPTH; depth++) {
    def = defOf(current);
    if (def.type === "nullable" || def.type === "optional" || def.type === "null") return true;
    if (def.type === "any" || def.type === "unknown") return true;
    current = inner(current, "input");
  }
  if (def.type === "union") return (def.options as z.ZodType[]).some((option) => mayBeNull(option));
  return false;
}

// A catchall that lets any value through holds nothing to walk.
const OPEN_CATCHALLS = new Set(["never", "unknown", "any"]);

/** How a JSON value of the schema holds other values (input side, through wrappers, pipes and lazies), or null. */
export function jsonParts(schema: z.ZodType): JsonParts<z.ZodType> | null {
  const def = defOf(unwrap(schema, "input"));
  switch (def.type) {
    case "object": {
      const catchall = def.catchall as z.ZodType | undefined;
      const rest = catchall && !OPEN_CATCHALLS.has(defOf(catchall).type) ? catchall : null;
      return { kind: "object", members: def.shape as Record<string, z.ZodType>, rest };
    }
    case "record":
      return { kind: "object", members: {}, rest: def.valueType as z.ZodType };
    case "array":
      return { kind: "array", prefix: [], rest: def.element as z.ZodType };
    case "tuple":
      return { kind: "array", prefix: def.items as z.ZodType[], rest: (def.rest as z.ZodType | null) ?? null };
    case "union": {
      const options = def.options as z.ZodType[];
      const key = def.discriminator as string | undefined;
      if (typeof key !== "string") return { kind: "union", options };
      // zod's own table of each option's values of the discriminator (`propValues`), as its parse dispatches.
      const values = options.map((option) => {
        const taken = (option._zod as { propValues?: Record<string, Set<unknown>> }).propValues?.[key];
        return taken ? [...taken] : [];
      });
      return { kind: "union", options, discriminator: { key, values } };
    }
    case "intersection":
      return { kind: "all", parts: [def.left as z.ZodType, def.right as z.ZodType] };
    default:
      return null;
  }
}

/** The constraints of a file field (or an array of files), or null when the field holds no files. */
export function fileConstraints(schema: z.ZodType): FileConstraints | null {
  let def = defOf(unwrap(schema, "input"));
  if (def.type === "array") def = defOf(unwrap(def.element, "input"));
  if (def.type !== "file") return null;
  const constraints: FileConstraints = {};
  for (const check of (def.checks ?? []) as Array<{ _zod: { def: unknown } }>) {
    const checkDef = defOf(check);
    if (checkDef.check === "max_size") {
      constraints.maxSize = Math.min(constraints.maxSize ?? Number.POSITIVE_INFINITY, checkDef.maximum as number);
    } else if (checkDef.check === "mime_type") {
      constraints.types = checkDef.mime as string[];
    }
  }
  return constraints;
}

const JSON_TYPES = new Set(["object", "array", "record", "tuple"]);
const STRING_TYPES = new Set(["string", "template_literal"]);

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
  const def = defOf(unwrap(schema, "output"));
  if (def.type === "number" || def.type === "int") return "number";
  if (def.type === "boolean" || def.type === "bigint" || def.type === "date") return def.type;
  if (STRING_TYPES.has(def.type)) return "string";
  if (JSON_TYPES.has(def.type)) return "json";
  if (def.type === "literal") return kindOfValues(def.values as unknown[]);
  if (def.type === "enum") return kindOfValues(Object.values(def.entries as Record<string, unknown>));
  // A union decodes only when its non-null members agree on one kind.
  if (def.type === "union") return agreed(nonNullOptions(def, "output").map(columnKind), "unknown");
  return "unknown";
}

const NOT_ORDERABLE = new Set(["object", "array", "record", "tuple", "map", "set", "file"]);

/** Whether a field's values are scalars a listing can order by. */
export function isOrderable(schema: z.ZodType): boolean {
  return !NOT_ORDERABLE.has(defOf(schema).type);
}

/** `param` metadata from a member and the schemas it wraps (outer wins), as `.openapi({ param })` sets it. */
export function parameterMetadata(member: z.ZodType): Record<string, unknown> {
  const layers: Record<string, unknown>[] = [];
  let current: z.ZodType | undefined = member;
  for (let depth = 0; current && depth < MAX_DEPTH; depth++) {
    const param = z.globalRegistry.get(current)?.param;
    if (typeof param === "object" && param !== null) layers.push(param as Record<string, unknown>);
    const def = defOf(current);
    current = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  }
  return Object.assign({}, ...layers.reverse());
}

// What `withoutDefault` looks through to find a default.
const DEFAULT_CARRIERS = new Set(["optional", "default", "prefault", "nullable", "readonly"]);

/** `schema` without `default`/`prefault` wrappers (also inside optional, nullable, readonly) or a `default` in its metadata. */
export function withoutDefault(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  let stripped = schema;
  if (def.type === "default" || def.type === "prefault") stripped = withoutDefault(def.innerType);
  else if (DEFAULT_CARRIERS.has(def.type)) {
    const innerType = withoutDefault(def.innerType);
    if (innerType !== def.innerType) stripped = schema.clone({ ...def, innerType } as never);
  }
  const metadata = z.globalRegistry.get(schema);
  if (stripped === schema && metadata?.default === undefined) return schema;
  // A clone given a def has no parent, so it inherits no metadata; what is kept is set again, minus `default` and `id`.
  const { default: _default, id: _id, ...kept } = (metadata ?? {}) as Record<string, unknown>;
  const copy = stripped === schema ? schema.clone(def as never) : stripped;
  if (Object.keys(kept).length === 0) return copy;
  const { id: _innerId, ...innerMeta } = (copy.meta() ?? {}) as Record<string, unknown>;
  return copy.meta({ ...innerMeta, ...kept });
}

/**
 * Whether `err` is zod's refusal to run an async refinement or transform in a synchronous parse. By
 * class for this copy of zod; by name for another loaded copy (whose class is another object).
 */
export function isAsyncParseError(err: unknown): boolean {
  if (err instanceof z.core.$ZodAsyncError) return true;
  return (err as Error | null)?.constructor?.name === "$ZodAsyncError";
}
