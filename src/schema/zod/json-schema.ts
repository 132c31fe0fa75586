import { z } from "zod";
import type * as core from "zod/v4/core";
import { COMPONENT_REF_PREFIX, type ConvertedSchema, type SchemaIO, type SchemaObject } from "../schema-object";
import type { SchemaTarget } from "../seam";
import { convertDirect, type DirectOptions, NeedsZod, type ZodConverted } from "./direct-json-schema";
import { defOf, fileConstraints } from "./introspect";

const cache = new WeakMap<z.ZodType, Map<string, ConvertedSchema>>();

/** Which converter `toOpenApiSchema` uses: the direct one (zod's for what it does not know), or zod's alone. */
export type SchemaConverter = "direct" | "zod";

let converter: SchemaConverter = "direct";

/**
 * Switches the converter, for tests that check both write the same documents. Internal: not exported
 * from the package.
 */
export function useSchemaConverter(which: SchemaConverter): void {
  converter = which;
}

/**
 * Converts a zod schema to an OpenAPI Schema Object, once per schema, version and side; the result
 * is frozen and shared, so copy before changing it. Common zod types are converted directly
 * (direct-json-schema.ts); the result is the one zod's own `z.toJSONSchema` gives, which converts the rest.
 *
 * @example
 * const { schema } = toOpenApiSchema(z.email().optional(), "3.1", "input");
 * // schema: { type: "string", format: "email", pattern: "..." }
 */
export function toOpenApiSchema(schema: z.ZodType, documentVersion: SchemaTarget, io: SchemaIO): ConvertedSchema {
  // 3.2 writes schemas as 3.1 does (JSON Schema 2020-12): one conversion serves both.
  const version = documentVersion === "3.2" ? "3.1" : documentVersion;
  let byKey = cache.get(schema);
  if (!byKey) {
    byKey = new Map();
    cache.set(schema, byKey);
  }
  const key = `${converter}:${version}:${io}`;
  let converted = byKey.get(key);
  if (!converted) {
    converted = deepFreeze(
      converter === "direct" ? convert(schema, version, io) : withoutFlag(convertWithZod(schema, version, io)),
    );
    byKey.set(key, converted);
  }
  return converted;
}

function convert(schema: z.ZodType, version: SchemaTarget, io: SchemaIO): ConvertedSchema {
  try {
    return convertDirect(schema, directOptions(version, io));
  } catch (err) {
    if (!(err instanceof NeedsZod)) throw err;
    return withoutFlag(convertWithZod(schema, version, io));
  }
}

function withoutFlag({ schema, components }: ZodConverted): ConvertedSchema {
  return { schema, components };
}

const directOptionsCache = new Map<string, DirectOptions>();

function directOptions(version: SchemaTarget, io: SchemaIO): DirectOptions {
  const key = `${version}:${io}`;
  let options = directOptionsCache.get(key);
  if (!options) {
    options = {
      openapi30: version === "3",
      io,
      viaZod: (node) => convertWithZod(node, version, io),
      adjust,
      componentName,
      refPrefix: COMPONENT_REF_PREFIX,
    };
    directOptionsCache.set(key, options);
  }
  return options;
}

function convertWithZod(schema: z.ZodType, version: SchemaTarget, io: SchemaIO): ZodConverted {
  const openapi30 = version === "3";
  const raw = z.toJSONSchema(schema, {
    target: openapi30 ? "openapi-3.0" : "draft-2020-12",
    io,
    unrepresentable: "any",
    cycles: "ref",
    reused: "inline",
    override: ({ zodSchema, jsonSchema }) => adjust(zodSchema, jsonSchema as SchemaObject, openapi30, io),
  }) as SchemaObject;
  const { $schema: _dialect, definitions, $defs, ...root } = raw;
  const defs = (definitions ?? $defs ?? {}) as Record<string, SchemaObject>;

  // zod points refs into the schema's own definitions; in a document they must point at components.
  const defsPrefix = openapi30 ? "#/definitions/" : "#/$defs/";
  const refs = new Map<string, string>();
  const components: Record<string, SchemaObject> = {};
  let recursive = false;
  for (const [key, def] of Object.entries(defs)) {
    const anonymous = ANONYMOUS_DEF.test(key);
    recursive ||= anonymous;
    const name = anonymous ? anonymousName(def) : componentName(key);
    refs.set(defsPrefix + encodePointer(key), COMPONENT_REF_PREFIX + name);
    components[name] = def;
  }
  // An id-less recursive root refers to itself as "#", which in a document means the document: name it.
  if (containsRef(root, "#")) {
    const name = anonymousName(root);
    refs.set("#", COMPONENT_REF_PREFIX + name);
    components[name] = root;
    for (const def of Object.values(components)) rewriteRefs(def, refs);
    return { schema: { $ref: COMPONENT_REF_PREFIX + name }, components, recursive: true };
  }
  for (const def of Object.values(components)) rewriteRefs(def, refs);
  rewriteRefs(root, refs);
  return { schema: root, components, recursive };
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
// zod reports these string checks as a `format`, but they are not formats any OpenAPI tool knows.
const CHECK_FORMATS = new Set(["starts_with", "ends_with", "includes", "lowercase", "uppercase"]);

/** Per-node fixes zod's output needs to be a good OpenAPI schema; runs after zod built the node. */
function adjust(zodSchema: core.$ZodType, json: SchemaObject, openapi30: boolean, io: SchemaIO): void {
  const def = defOf(zodSchema);
  // A default fills in what a request leaves out; an answer always carries the value, so it says nothing there.
  if (io === "output" && (def.type === "default" || def.type === "prefault")) delete json.default;
  if (def.type === "date") {
    // JSON has no dates: they travel as ISO strings.
    json.type ??= "string";
    json.format ??= "date-time";
  } else if (def.type === "bigint") {
    json.type ??= "integer";
    json.format ??= "int64";
  } else if (def.type === "file") {
    describeFile(zodSchema as z.ZodType, json, openapi30);
  }
  // `.int()` adds the safe-integer range as bounds; nobody wrote them, so they are noise.
  if (json.minimum === -MAX_SAFE) delete json.minimum;
  if (json.maximum === MAX_SAFE) delete json.maximum;
  // A plain z.object strips unknown keys rather than rejecting them; only strictObject forbids them.
  if (def.type === "object" && def.catchall === undefined && json.additionalProperties === false) {
    delete json.additionalProperties;
  }
  if (typeof json.format === "string" && CHECK_FORMATS.has(json.format)) delete json.format;
  // Parameter details belong on the parameter object, not in the schema.
  delete json.param;
  if (openapi30) adjustFor30(json);
}

/**
 * A file is binary content: `format: binary` in 3.0, `contentMediaType` in 3.1 (what Swagger UI reads to
 * offer a file input). Its accepted types go in the multipart encoding; its size limit is not a string length.
 */
function describeFile(schema: z.ZodType, json: SchemaObject, openapi30: boolean): void {
  for (const key of ["format", "contentEncoding", "contentMediaType", "minLength", "maxLength", "anyOf"])
    delete json[key];
  json.type = "string";
  if (openapi30) {
    json.format = "binary";
  } else {
    const types = fileConstraints(schema)?.types;
    json.contentMediaType = types?.length === 1 ? types[0] : "application/octet-stream";
  }
}

/** OpenAPI 3.0 Schema Objects reject some JSON Schema keywords zod passes through. */
function adjustFor30(json: SchemaObject): void {
  if (Array.isArray(json.examples)) {
    if (json.example === undefined && json.examples.length > 0) json.example = json.examples[0];
    delete json.examples;
  }
  delete json.contentEncoding;
  delete json.contentMediaType;
  if (json.type === "null") {
    // 3.0 has no null type; this is how zod writes z.null() for 3.0.
    json.type = "string";
    json.nullable = true;
    json.enum = [null];
  }
}

const ANONYMOUS_DEF = /^__schema\d+$/;

/** A stable name for a schema zod had to extract without an id (recursion): same shape, same name. */
function anonymousName(def: SchemaObject): string {
  return `Schema${fnv1a(JSON.stringify(def))}`;
}

/** Component names may only hold `A-Z a-z 0-9 . - _`. */
function componentName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_");
}

function encodePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function containsRef(node: unknown, ref: string): boolean {
  if (Array.isArray(node)) return node.some((item) => containsRef(item, ref));
  if (typeof node !== "object" || node === null) return false;
  const record = node as SchemaObject;
  if (record.$ref === ref) return true;
  return Object.values(record).some((value) => containsRef(value, ref));
}

/** Rewrites `$ref`s in place (the tree is zod's fresh output, not shared yet). */
function rewriteRefs(node: unknown, refs: ReadonlyMap<string, string>): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteRefs(item, refs);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const record = node as SchemaObject;
  if (typeof record.$ref === "string") record.$ref = refs.get(record.$ref) ?? record.$ref;
  for (const value of Object.values(record)) rewriteRefs(value, refs);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for-in, not Object.values: a converted tree is plain JSON, and this walks every node of every conversion.
    for (const key in value) deepFreeze(value[key]);
  }
  return value;
}
