// The converted-schema shapes both zod→JSON Schema converters produce (json-schema.ts and its direct one).

/** An OpenAPI Schema Object (plain JSON). */
export type SchemaObject = Record<string, unknown>;

/** Which side of a schema to describe: what a request sends, or what a response returns. */
export type SchemaIO = "input" | "output";

/** A converted schema and the named schemas its `$ref`s point at. */
export interface ConvertedSchema {
  /** The schema; every `$ref` is `#/components/schemas/<name>`. */
  readonly schema: SchemaObject;
  /** Named schemas (from `.openapi("Name")` / `.meta({ id })`, or recursive ones) by component name. */
  readonly components: Readonly<Record<string, SchemaObject>>;
}

export const COMPONENT_REF_PREFIX = "#/components/schemas/";
