import { z } from "zod";
import type * as core from "zod/v4/core";
import type { ConvertedSchema, SchemaIO, SchemaObject } from "../schema-object";
import { defOf } from "./introspect";
import { assignProp, PROCESSORS, type ProcessorContext, VIA_ZOD } from "./processors";

/*
 * A direct zod → OpenAPI Schema converter for the common zod types. It reproduces what the installed
 * zod's `z.toJSONSchema` followed by json-schema.ts's per-node fixes writes, key order included (where
 * zod 4.1 wrote otherwise, it writes what later zod does: test/schema/corpus.case.ts lists where), without
 * zod's generic machinery (a `seen` map over the whole tree, ref flattening in a second pass, a JSON
 * round trip per conversion), which is most of the time a first document takes.
 *
 * Per node: the processor of its type (processors.ts, one per zod definition type, as zod's own converter
 * has them) writes its own keywords; this file adds metadata, what it inherits and its references. A type
 * no processor knows is converted by zod's converter on its own and spliced in.
 * Per schema: what only zod's whole-tree view gets right (cycles, two schemas with one id) throws
 * `NeedsZod`, and the caller converts the whole schema with zod instead.
 */

const { globalRegistry: registry } = z.core;

/**
 * Converted nodes that stand on their own (no component, nothing zod converted, nothing a last pass
 * rewrites), by schema, for OpenAPI 3.1 output, 3.1 input, 3.0 output and 3.0 input: a schema used
 * in many routes (a shared model) is converted once. The objects are frozen by `toOpenApiSchema`.
 */
const sharedNodes = new WeakMap<core.$ZodType, SchemaObject[]>();

/** A node being converted: meeting it again means the schema is recursive. */
const IN_PROGRESS: SchemaObject = Object.freeze({});

/** A component's place, kept while its body is converted. */
const PENDING: SchemaObject = Object.freeze({});

/** The whole schema must go through zod's converter. */
export class NeedsZod extends Error {}

/** What a node converted by zod on its own gave: its schema, its components, and whether it was recursive. */
export interface ZodConverted extends ConvertedSchema {
  readonly recursive: boolean;
}

export interface DirectOptions {
  openapi30: boolean;
  io: SchemaIO;
  /** zod's conversion of one schema, with the same per-node fixes. */
  viaZod: (schema: z.ZodType) => ZodConverted;
  /** The per-node fixes json-schema.ts applies to zod's output. */
  adjust: (schema: core.$ZodType, json: SchemaObject, openapi30: boolean, io: SchemaIO) => void;
  /** How an `id` becomes a component name. */
  componentName: (id: string) => string;
  refPrefix: string;
}

interface State extends DirectOptions, ProcessorContext {
  /** Each converted node's schema; for a node with an id, the `$ref` that stands for it. */
  readonly finals: Map<core.$ZodType, SchemaObject>;
  /** The body of each node with an id (what becomes its component), before the id is removed. */
  readonly bodies: Map<core.$ZodType, SchemaObject>;
  readonly components: Record<string, SchemaObject>;
  readonly ids: Map<string, core.$ZodType>;
  /** The objects this converter built with an `anyOf`, for the 3.1 `anyOf` → `type` array pass zod runs last. */
  readonly built: SchemaObject[];
  /** Nodes zod converted: final already, components included. */
  readonly fromZod: WeakSet<SchemaObject>;
  /** Metadata held something JSON writes differently (undefined, a date, NaN): finish with a JSON round trip. */
  notJson: boolean;
  /**
   * Counts what makes a node's output depend on this conversion (an id, a node zod converted, an
   * `anyOf` zod's last pass rewrites, non-JSON metadata); a subtree that leaves it unchanged is shared.
   */
  taint: number;
  /** Nodes whose output is shared (their subtree left `taint` unchanged). */
  readonly clean: Set<core.$ZodType>;
}

/**
 * Converts `schema` directly, throwing `NeedsZod` when only zod's converter can say what it would write.
 *
 * @example
 * convertDirect(z.object({ id: z.int() }), { openapi30: false, io: "output", ... });
 * // { schema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] }, components: {} }
 */
export function convertDirect(schema: z.ZodType, options: DirectOptions): ConvertedSchema {
  const state: State = {
    openapi30: options.openapi30,
    io: options.io,
    viaZod: options.viaZod,
    adjust: options.adjust,
    componentName: options.componentName,
    refPrefix: options.refPrefix,
    finals: new Map(),
    bodies: new Map(),
    components: {},
    ids: new Map(),
    built: [],
    fromZod: new WeakSet(),
    notJson: false,
    taint: 0,
    clean: new Set(),
    child: (child) => node(child, state),
    markNotJson: () => markNotJson(state),
  };
  const root = node(schema, state);
  if (!options.openapi30) for (const json of state.built) compactTypeUnion(json);
  // The id named the component; zod leaves it out of the body.
  for (const [id, schema] of state.ids) {
    const body = state.bodies.get(schema);
    if (body?.id === id) delete body.id;
  }
  if (!state.notJson) return { schema: root, components: state.components };
  const components: Record<string, SchemaObject> = {};
  for (const [name, body] of Object.entries(state.components)) components[name] = plainJson(body);
  return { schema: plainJson(root), components };
}

function node(schema: core.$ZodType, state: State): SchemaObject {
  const done = state.finals.get(schema);
  if (done === IN_PROGRESS) throw new NeedsZod("recursive schema");
  if (done) {
    if (!state.clean.has(schema)) state.taint++;
    return done;
  }
  const slot = (state.openapi30 ? 2 : 0) + (state.io === "input" ? 1 : 0);
  const shared = sharedNodes.get(schema)?.[slot];
  if (shared) {
    state.finals.set(schema, shared);
    state.clean.add(schema);
    return shared;
  }
  const taintBefore = state.taint;
  const meta = metadataOf(schema);
  const id = meta?.id;
  if (id !== undefined) {
    state.taint++;
    if (typeof id !== "string" || id === "" || /^__schema\d+$/.test(id)) throw new NeedsZod("unusual id");
    const other = state.ids.get(id);
    // zod refuses two schemas with one id in one conversion; let it say so.
    if (other && other !== schema) throw new NeedsZod("duplicate id");
    state.ids.set(id, schema);
    // zod lists components in the order it first meets their schemas.
    if (!(state.componentName(id) in state.components)) state.components[state.componentName(id)] = PENDING;
  }
  state.finals.set(schema, IN_PROGRESS);
  const json = build(schema, meta, state);
  if (state.taint === taintBefore) {
    // Nothing in this subtree depends on the conversion it is part of: any later conversion may reuse it.
    let slots = sharedNodes.get(schema);
    if (!slots) {
      slots = [];
      sharedNodes.set(schema, slots);
    }
    slots[slot] = json;
    state.clean.add(schema);
  }
  // zod extracts a schema with an id into a component, unless its metadata already makes it a reference.
  if (typeof id !== "string" || meta?.$ref !== undefined || state.fromZod.has(json)) {
    if (typeof id === "string" && !state.fromZod.has(json)) delete state.components[state.componentName(id)];
    state.finals.set(schema, json);
    return json;
  }
  const name = state.componentName(id);
  state.bodies.set(schema, json);
  state.components[name] = json;
  const ref = { $ref: state.refPrefix + name };
  state.finals.set(schema, ref);
  return ref;
}

/**
 * zod's `registry.get(schema)` (its metadata merged over what it was cloned from), without the copies
 * that builds at every level of the chain when no level has metadata, as most nodes have none.
 */
function metadataOf(schema: core.$ZodType): Record<string, unknown> | undefined {
  for (let at: core.$ZodType | undefined = schema; at; at = at._zod.parent) {
    if (registry.has(at)) return registry.get(schema) as Record<string, unknown> | undefined;
  }
  return undefined;
}

/** One node the way zod's processor, metadata, ref flattening and json-schema.ts's fixes leave it. */
function build(schema: core.$ZodType, meta: Record<string, unknown> | undefined, state: State): SchemaObject {
  if ((schema._zod as { toJSONSchema?: unknown }).toJSONSchema) return viaZod(schema, state);
  const def = defOf(schema);
  const process = PROCESSORS.get(def.type);
  if (process === undefined) return viaZod(schema, state);
  const own: SchemaObject = {};
  let ref = process(schema, def, own, state);
  if (ref === VIA_ZOD) return viaZod(schema, state);
  const parent = schema._zod.parent;
  ref ??= parent;

  if (meta) assignMeta(own, meta, state);
  if (state.io === "input" && ("examples" in own || "default" in own) && isTransforming(schema)) {
    // A transform's examples and default describe its output, not what a request sends.
    delete own.examples;
    delete own.default;
  }
  if (state.io === "input" && "_prefault" in own) own.default ??= own._prefault;
  delete own._prefault;

  if (ref && !inherit(schema, own, ref, state)) return viaZod(schema, state);
  if (parent && parent !== ref) {
    const parentJson = node(parent, state);
    if (parentJson.$ref) {
      own.$ref = parentJson.$ref;
      const body = state.bodies.get(parent);
      if (body) dropInherited(own, body);
    }
  }
  state.adjust(schema, own, state.openapi30, state.io);
  if (own.anyOf !== undefined) {
    state.built.push(own);
    state.taint++;
  }
  return own;
}

/**
 * zod's `flattenRef`: a wrapper (or a clone made by `.meta()`) takes what its inner schema says, its
 * own keys winning. False when the inner schema came from zod's converter and so must the wrapper.
 */
function inherit(schema: core.$ZodType, own: SchemaObject, ref: core.$ZodType, state: State): boolean {
  const refJson = node(ref, state);
  // zod's last passes (folding intersections) reorder what a wrapper inherits: let zod write it.
  if (state.fromZod.has(refJson)) return false;
  // zod assigns the inner keys, then its own again, and a clone then drops what only its parent has:
  // so the inner keys the node lacks are appended, all of them for a wrapper, none for a clone.
  const clone = schema._zod.parent === ref;
  if (refJson.$ref && state.openapi30) {
    // 3.0 cannot put keywords beside a $ref.
    own.allOf = (own.allOf as unknown[] | undefined) ?? [];
    (own.allOf as unknown[]).push(refJson);
  } else {
    for (const key of Object.keys(refJson)) {
      if (key in own || (clone && key !== "$ref" && key !== "allOf")) continue;
      if (key === "__proto__") assignProp(own, key, refJson[key]);
      else own[key] = refJson[key];
    }
  }
  const body = state.bodies.get(ref);
  if (refJson.$ref && body) dropInherited(own, body);
  return true;
}

/** Beside a `$ref`, keys equal to the referenced component's say nothing new. */
function dropInherited(own: SchemaObject, body: SchemaObject): void {
  for (const key in own) {
    if (key === "$ref" || key === "allOf") continue;
    if (key in body && JSON.stringify(own[key]) === JSON.stringify(body[key])) delete own[key];
  }
}

/** A node only zod's converter knows, converted on its own; its components join this conversion's. */
function viaZod(schema: core.$ZodType, state: State): SchemaObject {
  const converted = state.viaZod(schema as z.ZodType);
  if (converted.recursive) throw new NeedsZod("recursive schema");
  for (const [name, body] of Object.entries(converted.components)) {
    const known = state.components[name];
    if (known !== undefined && known !== PENDING && JSON.stringify(known) !== JSON.stringify(body))
      throw new NeedsZod("duplicate id");
    state.components[name] = body as SchemaObject;
  }
  const id = registry.get(schema)?.id;
  if (typeof id === "string") {
    const body = converted.components[state.componentName(id)];
    if (body) state.bodies.set(schema, body as SchemaObject);
  }
  const json = { ...converted.schema };
  state.fromZod.add(json);
  state.taint++;
  return json;
}

function isTransforming(schema: core.$ZodType, seen = new Set<core.$ZodType>()): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const def = defOf(schema);
  switch (def.type) {
    case "transform":
      return true;
    case "array":
      return isTransforming(def.element, seen);
    case "set":
      return isTransforming(def.valueType, seen);
    case "lazy":
      return isTransforming(def.getter(), seen);
    case "promise":
    case "optional":
    case "nonoptional":
    case "nullable":
    case "readonly":
    case "default":
    case "prefault":
    case "catch":
      return isTransforming(def.innerType, seen);
    case "intersection":
      return isTransforming(def.left, seen) || isTransforming(def.right, seen);
    case "record":
    case "map":
      return isTransforming(def.keyType, seen) || isTransforming(def.valueType, seen);
    case "pipe":
      if (schema._zod.traits.has("$ZodCodec")) return true;
      return isTransforming(def.in, seen) || isTransforming(def.out, seen);
    case "object":
      for (const key in def.shape) if (isTransforming(def.shape[key], seen)) return true;
      return false;
    case "union":
      return (def.options as core.$ZodType[]).some((option) => isTransforming(option, seen));
    case "tuple":
      return (
        (def.items as core.$ZodType[]).some((item) => isTransforming(item, seen)) ||
        (def.rest ? isTransforming(def.rest, seen) : false)
      );
    default:
      return false;
  }
}

// ---- small JSON helpers, as zod's converter uses them ----

/** Metadata over the node's own keys, as zod's converter assigns it (its values end up as JSON). */
function assignMeta(own: SchemaObject, meta: Record<string, unknown>, state: State): void {
  if (Object.getOwnPropertySymbols(meta).length > 0) markNotJson(state);
  for (const key of Object.keys(meta)) {
    let value = meta[key];
    if (typeof value === "object" && value !== null) {
      // A copy: the output is frozen, the user's example must not be.
      const text = JSON.stringify(value);
      if (text === undefined) markNotJson(state);
      else value = JSON.parse(text);
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) markNotJson(state);
    } else if (value !== null && typeof value !== "string" && typeof value !== "boolean") {
      markNotJson(state);
    }
    if (key === "__proto__") assignProp(own, key, value);
    else own[key] = value;
  }
}

function markNotJson(state: State): void {
  state.notJson = true;
  state.taint++;
}

/** zod's last pass on 3.1 output: `anyOf` of bare types becomes a `type` array. */
function compactTypeUnion(schema: SchemaObject): void {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length === 0 || schema.type !== undefined) return;
  const types: unknown[] = [];
  for (const option of options) {
    if (!option || typeof option !== "object") return;
    compactTypeUnion(option as SchemaObject);
    const keys = Object.keys(option);
    if (keys.length !== 1 || keys[0] !== "type") return;
    const type = (option as SchemaObject).type;
    for (const member of Array.isArray(type) ? type : [type]) {
      if (typeof member !== "string") return;
      if (!types.includes(member)) types.push(member);
    }
  }
  delete schema.anyOf;
  schema.type = types.length === 1 ? types[0] : types;
}

/** What JSON makes of the tree (zod's converter ends with the same round trip): no undefined, dates as strings. */
function plainJson(value: SchemaObject): SchemaObject {
  return JSON.parse(JSON.stringify(value)) as SchemaObject;
}
