import type { z } from "zod";
import { composer } from "./composed";

export { headersNotIn } from "./composed";

import { ownSeamOf, type SchemaSeam } from "./seam";
import { isStandardJsonSchema, lacksJsonSchema } from "./standard/json-view";
import { standardSeam } from "./standard/standard-seam";
import { zodSeam } from "./zod/zod-seam";

export { adaptPlainSchema } from "./plain-schema";
export { COMPONENT_REF_PREFIX, type ConvertedSchema, type SchemaObject } from "./schema-object";
export type {
  ColumnKind,
  FieldKind,
  FileConstraints,
  ScalarKind,
  SchemaIO,
  SchemaSeam,
  SchemaTarget,
  UnwrapSide,
} from "./seam";

import type { StandardJsonSchema } from "./standard/spec";

export {
  parseStandard,
  type StandardOutcome,
  type StandardProblem,
  StandardValidationError,
  validateStandard,
} from "./standard/validate";
export type { StandardJsonSchema };

// The rest of specroute holds any schema as zod's type; a Standard one travels under it and only this
// module's dispatch (and the Standard seam behind it) reads it.
const standard = standardSeam as unknown as SchemaSeam<z.ZodType>;

/**
 * The seam that answers for `schema`: the one a schema specroute built from members carries (composed),
 * zod's for a zod schema (before the Standard one: zod 4.2+ is a Standard schema too), else the Standard one.
 */
function seamOf(schema: unknown): SchemaSeam<z.ZodType> {
  const own = ownSeamOf<z.ZodType>(schema);
  if (own) return own;
  return zodSeam.isSchema(schema) || !standard.isSchema(schema) ? zodSeam : standard;
}

/**
 * The seam the rest of specroute reads schemas through: zod v4's for zod schemas, and for any other
 * library implementing Standard Schema and Standard JSON Schema (valibot through `toStandardJsonSchema`,
 * ArkType) one that reads the schema's JSON Schema. Its members are plain functions, so one may be passed
 * on its own (`seam.isSchema`).
 *
 * @example
 * seam.objectShape(z.object({ id: z.int() }).optional()) // { id: ZodInt }
 */
export const seam: SchemaSeam<z.ZodType> = {
  name: "zod or Standard Schema",
  isSchema: (value: unknown): value is z.ZodType =>
    zodSeam.isSchema(value) || standard.isSchema(value) || ownSeamOf(value) !== undefined,
  unwrap: (schema, side) => seamOf(schema).unwrap(schema, side),
  objectShape: (schema) => seamOf(schema).objectShape(schema),
  validatesMemberwise: (schema) => seamOf(schema).validatesMemberwise(schema),
  acceptsUndefined: (schema) => seamOf(schema).acceptsUndefined(schema),
  mayOutputUndefined: (schema) => seamOf(schema).mayOutputUndefined(schema),
  mayBeNull: (schema) => seamOf(schema).mayBeNull(schema),
  fieldKind: (schema) => seamOf(schema).fieldKind(schema),
  jsonParts: (schema) => seamOf(schema).jsonParts(schema),
  fileConstraints: (schema) => seamOf(schema).fileConstraints(schema),
  columnKind: (schema) => seamOf(schema).columnKind(schema),
  isOrderable: (schema) => seamOf(schema).isOrderable(schema),
  parameterMetadata: (schema) => seamOf(schema).parameterMetadata(schema),
  withoutDefault: (schema) => seamOf(schema).withoutDefault(schema),
  toJsonSchema: (schema, target, io) => seamOf(schema).toJsonSchema(schema, target, io),
  isAsyncParseError: zodSeam.isAsyncParseError,
};

/** Builders of schemas over members of any library (composed.ts); the auto endpoints' schemas over a Standard model. */
export const compose = /* @__PURE__ */ composer(seam);

/** The members of a model's object schema (zod's or another library's); anything else is a configuration error. */
export function membersOf(schema: unknown): Record<string, z.ZodType> {
  const shape = seam.isSchema(schema) ? seam.objectShape(schema) : null;
  if (!shape)
    throw new Error(
      "A model's schema must be an object schema (zod's, or another library's through Standard JSON Schema)",
    );
  return shape;
}

/** Whether `value` is a zod schema (zod's own seam answers for it). */
export const isZodSchema = (value: unknown): value is z.ZodType => zodSeam.isSchema(value);

/**
 * `value` as a Standard Schema the Standard seam reads, or null for a zod schema (zod 4.2+ implements
 * Standard Schema too, and stays with its own seam) and for anything else.
 *
 * @example
 * standardSchemaOf(type({ id: "number" })) // the ArkType schema
 * standardSchemaOf(z.object({})) // null
 */
export function standardSchemaOf(value: unknown): StandardJsonSchema | null {
  return !zodSeam.isSchema(value) && isStandardJsonSchema(value) ? value : null;
}

/**
 * Why `value` cannot serve as a schema when it looks like one, or null: a Standard Schema without
 * `~standard.jsonSchema` validates but could not be documented or coerced.
 *
 * @example
 * unusableSchemaReason(v.object({})) // "a valibot Standard Schema without ~standard.jsonSchema ..."
 */
export function unusableSchemaReason(value: unknown): string | null {
  // zod's own seam reads a zod schema (4.1's `~standard` has no jsonSchema), and reading zod's
  // `~standard` would build it on the schema for nothing, on every schema of every compiled route.
  if (zodSeam.isSchema(value) || !lacksJsonSchema(value)) return null;
  const vendor = String((value as { "~standard": { vendor?: unknown } })["~standard"].vendor ?? "a library");
  const hint = vendor === "valibot" ? " (wrap it with toStandardJsonSchema() from @valibot/to-json-schema)" : "";
  return (
    `a ${vendor} Standard Schema without ~standard.jsonSchema: specroute needs Standard JSON Schema ` +
    `to coerce and document it${hint}`
  );
}
