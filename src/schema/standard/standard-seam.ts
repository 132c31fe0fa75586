import { adaptPlainSchema } from "../plain-schema";
import { COMPONENT_REF_PREFIX, type ConvertedSchema, type SchemaIO, type SchemaObject } from "../schema-object";
import type { ColumnKind, FieldKind, ScalarKind, SchemaSeam, SchemaTarget, UnwrapSide } from "../seam";
import {
  isNullType,
  isStandardJsonSchema,
  type JsonView,
  MEMBER,
  resolved,
  type StandardMember,
  viewOf,
  withoutNull,
} from "./json-view";
import { memberOf } from "./member";
import type { StandardJsonSchema } from "./spec";

/** A schema as the Standard seam sees it: the library's own, or one of its object's members. */
export type StandardNode = StandardJsonSchema | StandardMember;

const shapes = new WeakMap<JsonView, Record<string, StandardNode> | null>();
const converted = new WeakMap<JsonView, Map<string, ConvertedSchema>>();

function isSchema(value: unknown): value is StandardNode {
  return isStandardJsonSchema(value);
}

/** The node's JSON Schema of one side, `$ref` followed and a `null` alternative set aside. */
function sideOf(node: StandardNode, io: SchemaIO): { schema: SchemaObject; nullable: boolean } {
  const view = viewOf(node);
  return withoutNull(resolved(view[io], view.defs));
}

function objectShape(node: StandardNode): Record<string, StandardNode> | null {
  const view = viewOf(node);
  if (shapes.has(view)) return shapes.get(view)!;
  const input = sideOf(node, "input").schema;
  const output = sideOf(node, "output").schema;
  let shape: Record<string, StandardNode> | null = null;
  if (input.type === "object" && typeof input.properties === "object" && input.properties !== null) {
    shape = {};
    const inProps = input.properties as Record<string, SchemaObject>;
    const outProps = (output.properties ?? {}) as Record<string, SchemaObject>;
    const inRequired = (input.required ?? []) as string[];
    const outRequired = (output.required ?? []) as string[];
    for (const [key, schema] of Object.entries(inProps)) {
      shape[key] = memberOf(node, key, {
        input: schema,
        output: outProps[key] ?? schema,
        optionalInput: !inRequired.includes(key),
        optionalOutput: !outRequired.includes(key),
        defs: view.defs,
      });
    }
  }
  shapes.set(view, shape);
  return shape;
}

function acceptsUndefined(node: StandardNode): boolean {
  const view = viewOf(node);
  return view.optionalInput || "default" in view.input;
}

function mayOutputUndefined(node: StandardNode): boolean {
  return viewOf(node).optionalOutput;
}

function mayBeNull(node: StandardNode): boolean {
  const view = viewOf(node);
  const { schema, nullable } = sideOf(node, "input");
  return nullable || view.optionalInput || (schema.type === undefined && !("$ref" in schema) && !schema.enum);
}

const SCALARS: Record<string, ScalarKind> = { integer: "number", number: "number", boolean: "boolean" };

/**
 * How a string field is coerced, read from its input JSON Schema: integer and number fields are read as
 * numbers, boolean ones as booleans, an array by its items. A `date-time` string stays a string: its
 * schema validates a string (a library whose input is a Date describes no JSON Schema for it).
 */
function fieldKind(node: StandardNode): FieldKind {
  const view = viewOf(node);
  const { schema } = sideOf(node, "input");
  if (schema.type === "array") {
    const items = typeof schema.items === "object" && schema.items !== null ? (schema.items as SchemaObject) : {};
    return { scalar: scalarOf(withoutNull(resolved(items, view.defs)).schema), array: true };
  }
  return { scalar: scalarOf(schema), array: false };
}

function scalarOf(schema: SchemaObject): ScalarKind {
  return typeof schema.type === "string" ? (SCALARS[schema.type] ?? "string") : "string";
}

function columnKind(node: StandardNode): ColumnKind {
  const { schema } = sideOf(node, "output");
  switch (schema.type) {
    case "boolean":
      return "boolean";
    case "integer":
    case "number":
      return "number";
    case "string":
      return "string";
    case "object":
    case "array":
      return "json";
    default:
      return "unknown";
  }
}

function isOrderable(node: StandardNode): boolean {
  const { schema } = sideOf(node, "output");
  return schema.type !== "object" && schema.type !== "array" && schema.type !== undefined;
}

/**
 * A member as a filter or a path key reads it: with `"wrappers"`, neither optional nor nullable nor
 * defaulted in its JSON Schema (its parent still validates it). A library's own schema, and the other
 * sides, are returned as they are: Standard Schema exposes no wrappers to strip.
 */
function unwrap(node: StandardNode, side: UnwrapSide): StandardNode {
  if (side !== "wrappers" || !(MEMBER in node)) return node;
  const { source, ...view } = node[MEMBER];
  const bare = (schema: SchemaObject): SchemaObject => {
    const { default: _default, ...rest } = withoutNull(schema).schema;
    return rest;
  };
  return memberOf(source!.parent, source!.key, {
    ...view,
    input: bare(view.input),
    output: bare(view.output),
    optionalInput: false,
    optionalOutput: false,
  });
}

/** A member without its `default`; a library's own schema is returned as it is (its validator keeps it). */
function withoutDefault(node: StandardNode): StandardNode {
  if (!(MEMBER in node)) return node;
  const { source, ...view } = node[MEMBER];
  const { default: _in, ...input } = view.input;
  const { default: _out, ...output } = view.output;
  return memberOf(source!.parent, source!.key, { ...view, input, output });
}

/**
 * The node's JSON Schema for a document of `target`: `$defs` become components (their `$ref`s rewritten),
 * `$schema` is dropped, and for 3.0 the 2020-12 forms become 3.0's (a `null` alternative is `nullable`).
 */
function toJsonSchema(node: StandardNode, target: SchemaTarget, io: SchemaIO): ConvertedSchema {
  const view = viewOf(node);
  let byKey = converted.get(view);
  if (!byKey) {
    byKey = new Map();
    converted.set(view, byKey);
  }
  const key = `${target === "3.2" ? "3.1" : target}:${io}`;
  let result = byKey.get(key);
  if (!result) {
    const { $schema: _schema, $defs: _defs, definitions: _definitions, ...schema } = view[io];
    const components: Record<string, SchemaObject> = {};
    for (const [name, def] of Object.entries(view.defs)) components[name] = forTarget(def, target);
    result = deepFreeze({ schema: forTarget(schema, target), components });
    byKey.set(key, result);
  }
  return result;
}

function forTarget(schema: SchemaObject, target: SchemaTarget): SchemaObject {
  const refs = rewriteRefs(schema) as SchemaObject;
  return adaptPlainSchema(target === "3" ? (nullableFor30(refs) as SchemaObject) : refs, target);
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== "object" || value === null) return value;
  const result: SchemaObject = {};
  for (const [key, member] of Object.entries(value)) {
    result[key] =
      key === "$ref" && typeof member === "string"
        ? member.replace(/^#\/(?:\$defs|definitions)\//, COMPONENT_REF_PREFIX)
        : rewriteRefs(member);
  }
  return result;
}

/** `anyOf: [X, { type: "null" }]` as OpenAPI 3.0 writes it: X with `nullable: true`, at any depth. */
function nullableFor30(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullableFor30);
  if (typeof value !== "object" || value === null) return value;
  const result: SchemaObject = {};
  for (const [key, member] of Object.entries(value)) result[key] = nullableFor30(member);
  for (const list of ["anyOf", "oneOf"] as const) {
    const members = result[list];
    if (!Array.isArray(members) || !members.some(isNullType)) continue;
    const rest = members.filter((m) => !isNullType(m)) as SchemaObject[];
    delete result[list];
    if (rest.length === 1 && rest[0]!.$ref === undefined) return { ...result, ...rest[0], nullable: true };
    return { ...result, [list]: rest, nullable: true };
  }
  return result;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/** The schema seam for any library implementing Standard Schema and Standard JSON Schema (valibot, ArkType). */
export const standardSeam: SchemaSeam<StandardNode> = {
  name: "Standard Schema",
  isSchema,
  unwrap,
  objectShape,
  // A Standard Schema gives no access to its members' validators, nor says whether it checks the object.
  validatesMemberwise: () => false,
  acceptsUndefined,
  mayOutputUndefined,
  mayBeNull,
  fieldKind,
  // A Standard Schema's JSON values are what its JSON Schema says: no member needs a Date or bigint made of one.
  jsonParts: () => null,
  fileConstraints: () => null,
  columnKind,
  isOrderable,
  parameterMetadata: () => ({}),
  withoutDefault,
  toJsonSchema,
  isAsyncParseError: () => false,
};
