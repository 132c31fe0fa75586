// Plain JSON Schema objects written into a route's schema (design-first style, as chanfana passes them
// through): copied into the document as written, rewritten only where OpenAPI 3.0 and 3.1 disagree.
// Lives beside the seam so a schema library's own JSON Schema (Standard JSON Schema) is adapted the same way.
import type { SchemaObject } from "./schema-object";
import type { SchemaTarget } from "./seam";

/** Keywords whose value is one schema. */
const ONE_SCHEMA = ["items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else"];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** Deeper than this a plain schema is copied unchanged (a guard against cyclic objects, not a limit users meet). */
const MAX_DEPTH = 64;

/**
 * A plain schema for a document of `version`: 3.1's `type: [T, "null"]`, `const`, numeric
 * `exclusiveMinimum`/`exclusiveMaximum` and `examples` become 3.0's `nullable`, `enum`, boolean flags and
 * `example`, and 3.0's forms become 3.1's. `$ref`s and everything else are kept as written.
 *
 * @example
 * adaptPlainSchema({ type: ["string", "null"] }, "3")   // { type: "string", nullable: true }
 * adaptPlainSchema({ type: "string", nullable: true }, "3.1")   // { type: ["string", "null"] }
 */
export function adaptPlainSchema(schema: SchemaObject, version: SchemaTarget, depth = 0): SchemaObject {
  if (depth > MAX_DEPTH) return schema;
  const result: SchemaObject = { ...schema };
  for (const key of ONE_SCHEMA) {
    if (isObject(result[key])) result[key] = adaptPlainSchema(result[key] as SchemaObject, version, depth + 1);
  }
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(result[key])) {
      result[key] = (result[key] as unknown[]).map((member) =>
        isObject(member) ? adaptPlainSchema(member, version, depth + 1) : member,
      );
    }
  }
  for (const key of SCHEMA_MAPS) {
    if (isObject(result[key])) {
      const members: SchemaObject = {};
      for (const [name, member] of Object.entries(result[key] as SchemaObject)) {
        members[name] = isObject(member) ? adaptPlainSchema(member, version, depth + 1) : member;
      }
      result[key] = members;
    }
  }
  return version === "3" ? toOpenApi30(result) : toOpenApi31(result);
}

function toOpenApi30(schema: SchemaObject): SchemaObject {
  if (Array.isArray(schema.type)) {
    const types = (schema.type as unknown[]).filter((type) => type !== "null");
    if (types.length < schema.type.length) schema.nullable = true;
    if (types.length === 1) schema.type = types[0];
    else {
      delete schema.type;
      if (types.length > 1) schema.anyOf = types.map((type) => ({ type }));
    }
  }
  if ("const" in schema) {
    schema.enum = [schema.const];
    delete schema.const;
  }
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof schema[exclusive] === "number") {
      schema[bound] = schema[exclusive];
      schema[exclusive] = true;
    }
  }
  if (Array.isArray(schema.examples)) {
    if (schema.example === undefined && schema.examples.length > 0) schema.example = schema.examples[0];
    delete schema.examples;
  }
  return schema;
}

function toOpenApi31(schema: SchemaObject): SchemaObject {
  if (schema.nullable === true) {
    if (typeof schema.type === "string") schema.type = [schema.type, "null"];
    else if (Array.isArray(schema.type) && !schema.type.includes("null")) schema.type = [...schema.type, "null"];
    else if (schema.type === undefined && Array.isArray(schema.enum) && !schema.enum.includes(null)) {
      schema.enum = [...schema.enum, null];
    }
  }
  delete schema.nullable;
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (schema[exclusive] === true && typeof schema[bound] === "number") {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else if (schema[exclusive] === false) delete schema[exclusive];
  }
  return schema;
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
