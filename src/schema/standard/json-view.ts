import type { SchemaObject } from "../schema-object";
import type { SchemaIO } from "../seam";
import type { StandardJsonSchema } from "./spec";

/**
 * What the Standard seam reads a schema through: its input and output JSON Schema (2020-12), asked of the
 * library once. A root is the library's schema; a member is a property of an object schema, carrying its
 * two sides, whether its parent lists it as required on each side, and the root's `$defs` its `$ref`s
 * point into.
 */
export interface JsonView {
  readonly input: SchemaObject;
  readonly output: SchemaObject;
  /** The member may be left out of what is sent (its parent's input does not require it). */
  readonly optionalInput: boolean;
  /** The member may be left out of what validation yields. */
  readonly optionalOutput: boolean;
  readonly defs: Readonly<Record<string, SchemaObject>>;
  /** For a member: the schema it is a property of, and its key there (what validates it). */
  readonly source?: MemberSource;
}

/** Where a member comes from: a library's object schema (or a member of one) and the member's key in it. */
export interface MemberSource {
  readonly parent: StandardJsonSchema | StandardMember;
  readonly key: string;
}

/**
 * A property of a Standard object schema, as the seam hands it out (`objectShape`). A Standard Schema
 * gives no access to its members' validators, so a member validates through its parent (see member.ts).
 */
export interface StandardMember extends StandardJsonSchema {
  readonly [MEMBER]: JsonView;
}

export const MEMBER: unique symbol = Symbol("specroute.standard-member");

const views = new WeakMap<object, JsonView>();

/** Whether `value` has `~standard.validate` and `~standard.jsonSchema`, from any library (by shape). */
export function isStandardJsonSchema(value: unknown): value is StandardJsonSchema {
  const props = standardProps(value);
  return (
    props !== undefined &&
    typeof props.validate === "function" &&
    typeof (props.jsonSchema as { input?: unknown } | undefined)?.input === "function"
  );
}

/** Whether `value` is a Standard Schema (`~standard.validate`) without `~standard.jsonSchema`. */
export function lacksJsonSchema(value: unknown): boolean {
  const props = standardProps(value);
  return props !== undefined && typeof props.validate === "function" && !isStandardJsonSchema(value);
}

function standardProps(value: unknown): Record<string, unknown> | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null ? (props as Record<string, unknown>) : undefined;
}

/** The view of a root schema or a member, computed once per root. */
export function viewOf(schema: StandardJsonSchema | StandardMember): JsonView {
  if (MEMBER in schema) return schema[MEMBER];
  let view = views.get(schema);
  if (!view) {
    const input = withDeclaredDefaults(describe(schema, "input"), schema);
    const output = describe(schema, "output");
    const defs = { ...defsOf(output), ...defsOf(input) };
    view = Object.freeze({ input, output, optionalInput: false, optionalOutput: false, defs });
    views.set(schema, view);
  }
  return view;
}

/** A member with `view`, validated by `validate` (member.ts: through its parent). */
export function member(
  view: JsonView,
  vendor: string,
  validate: StandardMember["~standard"]["validate"],
): StandardMember {
  const withDefs = (schema: SchemaObject) => (Object.keys(view.defs).length ? { ...schema, $defs: view.defs } : schema);
  return Object.freeze({
    [MEMBER]: view,
    "~standard": Object.freeze({
      version: 1 as const,
      vendor,
      validate,
      jsonSchema: Object.freeze({ input: () => withDefs(view.input), output: () => withDefs(view.output) }),
    }),
  });
}

/**
 * `input` with the defaults the library declares on its object's properties but leaves out of its
 * Standard JSON Schema (ArkType lists them as `props: [{ key, default }]`), so documents show them and a
 * member left out of a derived body gets its default.
 */
function withDeclaredDefaults(input: SchemaObject, schema: StandardJsonSchema): SchemaObject {
  const props = declaredProps(schema);
  const properties = input.properties as Record<string, SchemaObject> | undefined;
  if (!Array.isArray(props) || typeof properties !== "object" || properties === null) return input;
  let patched: Record<string, SchemaObject> | undefined;
  for (const prop of props as Array<{ key?: unknown; default?: unknown }>) {
    const key = typeof prop?.key === "string" ? prop.key : undefined;
    const value = prop.default;
    if (key === undefined || !(key in properties) || "default" in properties[key]!) continue;
    // A default made by a function is the library's to call; only a JSON value is stated.
    if (value === undefined || typeof value === "function" || (typeof value === "object" && value !== null)) continue;
    patched ??= { ...properties };
    patched[key] = { ...properties[key], default: value };
  }
  return patched ? { ...input, properties: patched } : input;
}

/** ArkType's `props`, or undefined: its getter throws on an object a morph or a `.narrow` sits over. */
function declaredProps(schema: StandardJsonSchema): unknown {
  try {
    return (schema as { props?: unknown }).props;
  } catch {
    return undefined;
  }
}

function describe(schema: StandardJsonSchema, io: SchemaIO): SchemaObject {
  const props = schema["~standard"];
  try {
    return props.jsonSchema[io]({ target: "draft-2020-12" });
  } catch (cause) {
    // A check JSON Schema cannot state (valibot's `check`) is left out of the document, as zod's refine
    // is: valibot's `errorMode: "ignore"` asks for that; the library still validates it.
    try {
      return props.jsonSchema[io]({ target: "draft-2020-12", libraryOptions: { errorMode: "ignore" } });
    } catch {}
    throw new Error(
      `${props.vendor} could not describe this schema's ${io} as JSON Schema (~standard.jsonSchema.${io}): ` +
        `${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

function defsOf(schema: SchemaObject): Record<string, SchemaObject> {
  const defs = schema.$defs ?? schema.definitions;
  return typeof defs === "object" && defs !== null ? (defs as Record<string, SchemaObject>) : {};
}

/** `schema` with a local `$ref` (`#/$defs/Name`, `#/definitions/Name`) followed, a few levels deep. */
export function resolved(schema: SchemaObject, defs: JsonView["defs"]): SchemaObject {
  let current = schema;
  for (let depth = 0; depth < 8 && typeof current.$ref === "string"; depth++) {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(current.$ref)?.[1];
    const target = name === undefined ? undefined : defs[decodeURIComponent(name)];
    if (!target) break;
    current = target;
  }
  return current;
}

/** The schemas of a union a null is allowed by (`anyOf: [X, { type: "null" }]`), without the null. */
export function withoutNull(schema: SchemaObject): { schema: SchemaObject; nullable: boolean } {
  const members = (schema.anyOf ?? schema.oneOf) as SchemaObject[] | undefined;
  if (Array.isArray(members)) {
    const rest = members.filter((m) => !isNullType(m));
    if (rest.length === 1 && rest.length < members.length) return { schema: rest[0]!, nullable: true };
  }
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    const types = (schema.type as unknown[]).filter((t) => t !== "null");
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { schema, nullable: false };
}

export function isNullType(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && (schema as SchemaObject).type === "null";
}
