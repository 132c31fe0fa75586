import { z } from "zod";
import type * as core from "zod/v4/core";
import type { ConvertedSchema, SchemaIO, SchemaObject } from "../schema-object";

/*
 * A direct zod → OpenAPI Schema converter for the common zod types. It reproduces what
 * `z.toJSONSchema` followed by json-schema.ts's per-node fixes writes, key order included, without
 * zod's generic machinery (a `seen` map over the whole tree, ref flattening in a second pass, a JSON
 * round trip per conversion), which is most of the time a first document takes.
 *
 * Per node: a type this file does not know is converted by zod's converter on its own and spliced in.
 * Per schema: what only zod's whole-tree view gets right (cycles, two schemas with one id) throws
 * `NeedsZod`, and the caller converts the whole schema with zod instead.
 */

const { globalRegistry: registry, util } = z.core;

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

type Def = { type: string; [key: string]: any };

interface State extends DirectOptions {
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
  const meta = registry.get(schema) as Record<string, unknown> | undefined;
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

/** One node the way zod's processor, metadata, ref flattening and json-schema.ts's fixes leave it. */
function build(schema: core.$ZodType, meta: Record<string, unknown> | undefined, state: State): SchemaObject {
  const def = schema._zod.def as Def;
  if ((schema._zod as { toJSONSchema?: unknown }).toJSONSchema) return viaZod(schema, state);
  const own: SchemaObject = {};
  let ref: core.$ZodType | undefined;
  switch (def.type) {
    case "string":
      if (!stringOwn(schema, own, state)) return viaZod(schema, state);
      break;
    case "number":
      numberOwn(schema, own, state);
      break;
    case "boolean":
    case "success":
      own.type = "boolean";
      break;
    case "null":
      if (state.openapi30) Object.assign(own, { type: "string", nullable: true, enum: [null] });
      else own.type = "null";
      break;
    case "never":
      own.not = {};
      break;
    case "any":
    case "unknown":
    case "date":
    case "bigint":
    case "symbol":
    case "undefined":
    case "void":
    case "nan":
    case "custom":
    case "function":
    case "transform":
    case "map":
    case "set":
      // zod writes nothing for these (an "any"); json-schema.ts's fixes give dates and bigints a type.
      break;
    case "file":
      fileOwn(schema, own);
      break;
    case "enum":
      enumOwn(def, own);
      break;
    case "literal":
      literalOwn(def, own, state);
      break;
    case "template_literal":
      own.type = "string";
      own.pattern = (schema._zod as { pattern: RegExp }).pattern.source;
      break;
    case "array": {
      const { minimum, maximum } = aggregateChecks(schema);
      if (typeof minimum === "number") own.minItems = minimum;
      if (typeof maximum === "number") own.maxItems = maximum;
      own.type = "array";
      own.items = node(def.element, state);
      break;
    }
    case "object":
      if (!objectOwn(def, own, state)) return viaZod(schema, state);
      break;
    case "union": {
      const options = (def.options as core.$ZodType[]).map((option) => node(option, state));
      if (def.inclusive === false) own.oneOf = options;
      else own.anyOf = options;
      break;
    }
    case "record":
      if (!recordOwn(def, own, state)) return viaZod(schema, state);
      break;
    case "nullable":
      if (state.openapi30) {
        ref = def.innerType;
        node(def.innerType, state);
        own.nullable = true;
      } else {
        own.anyOf = [node(def.innerType, state), { type: "null" }];
      }
      break;
    case "optional":
    case "nonoptional":
    case "promise":
      ref = def.innerType;
      break;
    case "readonly":
      ref = def.innerType;
      own.readOnly = true;
      break;
    case "default": {
      ref = def.innerType;
      const value = jsonValue(def.defaultValue);
      if (value === UNREPRESENTABLE) return viaZod(schema, state);
      own.default = value;
      break;
    }
    case "pipe": {
      const inIsTransform = (def.in as core.$ZodType)._zod.traits.has("$ZodTransform");
      ref = state.io === "input" ? (inIsTransform ? def.out : def.in) : def.out;
      break;
    }
    default:
      return viaZod(schema, state);
  }
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

const FORMAT_NAMES: Record<string, string> = {
  guid: "uuid",
  url: "uri",
  datetime: "date-time",
  json_string: "json-string",
  regex: "",
};

function stringOwn(schema: core.$ZodType, own: SchemaObject, state: State): boolean {
  own.type = "string";
  const { minimum, maximum, format, patterns, contentEncoding, laxFormat } = aggregateChecks(schema);
  // base64 patterns are swapped for exact ones zod keeps to itself.
  if (contentEncoding) return false;
  if (typeof minimum === "number") own.minLength = minimum;
  if (typeof maximum === "number") own.maxLength = maximum;
  if (format) {
    const name = FORMAT_NAMES[format] ?? format;
    if (name !== "" && format !== "time" && !laxFormat) own.format = name;
  }
  if (patterns && patterns.size > 0) {
    const list = [...patterns];
    if (list.length === 1) own.pattern = list[0]!.source;
    else
      own.allOf = list.map((regex) =>
        state.openapi30 ? { type: "string", pattern: regex.source } : { pattern: regex.source },
      );
  }
  return true;
}

function numberOwn(schema: core.$ZodType, own: SchemaObject, state: State): void {
  const { minimum, maximum, multipleOf, exclusiveMaximum, exclusiveMinimum, isInt } = aggregateChecks(schema);
  own.type = isInt ? "integer" : "number";
  const exMin = typeof exclusiveMinimum === "number" && exclusiveMinimum >= ((minimum as number) ?? -Infinity);
  const exMax = typeof exclusiveMaximum === "number" && exclusiveMaximum <= ((maximum as number) ?? Infinity);
  if (exMin) {
    if (state.openapi30) {
      own.minimum = exclusiveMinimum;
      own.exclusiveMinimum = true;
    } else {
      own.exclusiveMinimum = exclusiveMinimum;
    }
  } else if (typeof minimum === "number") {
    own.minimum = minimum;
  }
  if (exMax) {
    if (state.openapi30) {
      own.maximum = exclusiveMaximum;
      own.exclusiveMaximum = true;
    } else {
      own.exclusiveMaximum = exclusiveMaximum;
    }
  } else if (typeof maximum === "number") {
    own.maximum = maximum;
  }
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const bound = own[key];
    if (typeof bound === "number" && !Number.isFinite(bound)) markNotJson(state);
  }
  if (multipleOf) {
    const divisors = new Set<number>();
    for (const divisor of multipleOf) if (Number.isFinite(divisor) && divisor !== 0) divisors.add(Math.abs(divisor));
    const [first, ...rest] = divisors;
    if (first !== undefined) own.multipleOf = first;
    if (rest.length) own.allOf = [...((own.allOf as unknown[]) ?? []), ...rest.map((m) => ({ multipleOf: m }))];
  }
}

function fileOwn(schema: core.$ZodType, own: SchemaObject): void {
  own.type = "string";
  own.format = "binary";
  own.contentEncoding = "binary";
  const { minimum, maximum, mime } = aggregateChecks(schema);
  if (minimum !== undefined) own.minLength = minimum;
  if (maximum !== undefined) own.maxLength = maximum;
  if (!mime) return;
  if (mime.length === 0) own.not = {};
  else if (mime.length === 1) own.contentMediaType = mime[0];
  else own.anyOf = mime.map((type) => ({ contentMediaType: type }));
}

function enumOwn(def: Def, own: SchemaObject): void {
  const values = util.getEnumValues(def.entries);
  if (values.length === 0) {
    own.not = {};
    return;
  }
  if (values.every((v) => typeof v === "number")) own.type = "number";
  if (values.every((v) => typeof v === "string")) own.type = "string";
  own.enum = values;
}

function literalOwn(def: Def, own: SchemaObject, state: State): void {
  const given = def.values as unknown[];
  if (given.length === 0) {
    own.not = {};
    return;
  }
  const values: unknown[] = [];
  for (const value of given) {
    if (value === undefined) continue;
    values.push(typeof value === "bigint" ? Number(value) : value);
  }
  if (values.length === 1) {
    const value = values[0];
    own.type = value === null ? "null" : typeof value;
    if (state.openapi30) own.enum = [value];
    else own.const = value;
  } else if (values.length > 1) {
    if (values.every((v) => typeof v === "number")) own.type = "number";
    if (values.every((v) => typeof v === "string")) own.type = "string";
    if (values.every((v) => typeof v === "boolean")) own.type = "boolean";
    if (values.every((v) => v === null)) own.type = "null";
    own.enum = values;
  }
}

function objectOwn(def: Def, own: SchemaObject, state: State): boolean {
  const shape = def.shape as Record<string, core.$ZodType>;
  if (Object.getOwnPropertySymbols(shape).length > 0) return false;
  own.type = "object";
  const properties: SchemaObject = {};
  own.properties = properties;
  for (const key in shape) {
    const json = node(shape[key]!, state);
    if (key === "__proto__") assignProp(properties, key, json);
    else properties[key] = json;
  }
  const required: string[] = [];
  for (const key of Object.keys(shape)) {
    const field = shape[key]!;
    if (state.io === "input" ? inputOptin(field) === undefined : field._zod.optout === undefined) required.push(key);
  }
  if (required.length > 0) own.required = required;
  const catchall = def.catchall as core.$ZodType | undefined;
  if (catchall?._zod.def.type === "never") own.additionalProperties = false;
  else if (!catchall) {
    if (state.io === "output") own.additionalProperties = false;
  } else own.additionalProperties = node(catchall, state);
  return true;
}

function recordOwn(def: Def, own: SchemaObject, state: State): boolean {
  // Loose records with key patterns, and keys zod re-expresses as numeric strings, stay with zod.
  if (def.mode === "loose") return false;
  own.type = "object";
  const keyType = def.keyType as core.$ZodType;
  if (!state.openapi30) {
    const names = node(keyType, state);
    if (!plainKeySchema(names)) return false;
    own.propertyNames = names;
  }
  own.additionalProperties = node(def.valueType, state);
  const keyValues = keyType._zod.values;
  const omittable = state.io === "input" && inputOptin(def.valueType) !== undefined;
  if (keyValues && !def.partial && !omittable) {
    const valid = [...keyValues].filter((v): v is string | number => typeof v === "string" || typeof v === "number");
    if (valid.length > 0) own.required = valid.map(String);
  }
  return true;
}

/** A key schema zod leaves as it is: no numbers, no references, no unions to look into. */
function plainKeySchema(json: SchemaObject): boolean {
  if (json.$ref !== undefined || json.anyOf !== undefined || json.oneOf !== undefined) return false;
  const types = Array.isArray(json.type) ? json.type : [json.type];
  if (types.some((t) => t === "number" || t === "integer")) return false;
  const values = (json.enum as unknown[] | undefined) ?? (json.const !== undefined ? [json.const] : []);
  return !values.some((v) => typeof v === "number");
}

/** zod's reading of whether a member may be left out of a request (looking past transforms and catch). */
function inputOptin(schema: core.$ZodType): "optional" | "defaulted" | undefined {
  const def = schema._zod.def as Def;
  if (def.type === "pipe" && (def.in as core.$ZodType)._zod.traits.has("$ZodTransform")) return inputOptin(def.out);
  if (def.type === "catch") return inputOptin(def.innerType);
  return schema._zod.optin;
}

function isTransforming(schema: core.$ZodType, seen = new Set<core.$ZodType>()): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const def = schema._zod.def as Def;
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

// ---- check aggregation, as zod's converter folds a schema's checks ----

type Bound = number | bigint | Date;

interface CheckAggregate {
  minimum?: Bound;
  maximum?: Bound;
  exclusiveMinimum?: Bound;
  exclusiveMaximum?: Bound;
  multipleOf?: number[];
  format?: string;
  isInt?: boolean;
  patterns?: Set<RegExp>;
  contentEncoding?: string;
  laxFormat?: boolean;
  mime?: string[];
}

function narrowMin(agg: CheckAggregate, key: "minimum" | "exclusiveMinimum", value: Bound): void {
  if (agg[key] === undefined || value > agg[key]!) agg[key] = value;
}

function narrowMax(agg: CheckAggregate, key: "maximum" | "exclusiveMaximum", value: Bound): void {
  if (agg[key] === undefined || value < agg[key]!) agg[key] = value;
}

function addDivisor(agg: CheckAggregate, value: number): void {
  agg.multipleOf ??= [];
  if (!agg.multipleOf.includes(value)) agg.multipleOf.push(value);
}

function addPattern(agg: CheckAggregate, pattern: RegExp): void {
  agg.patterns ??= new Set();
  agg.patterns.add(pattern);
}

function intersectMime(agg: CheckAggregate, mime: string[]): void {
  agg.mime = agg.mime ? agg.mime.filter((type) => mime.includes(type)) : [...mime];
}

function setFormat(agg: CheckAggregate, format: string): void {
  agg.format = format;
  if (format.includes("int")) agg.isInt = true;
}

function formatRange(agg: CheckAggregate, format: string, ranges: Record<string, [Bound, Bound]>): void {
  setFormat(agg, format);
  const [minimum, maximum] = ranges[format]!;
  narrowMin(agg, "minimum", minimum);
  narrowMax(agg, "maximum", maximum);
}

function aggregateChecks(schema: core.$ZodType): CheckAggregate {
  const agg: CheckAggregate = {};
  const def = schema._zod.def as Def;
  const checks = (def.checks ?? []) as core.$ZodCheck[];
  const list = schema._zod.traits.has("$ZodCheck") ? [schema as unknown as core.$ZodCheck, ...checks] : checks;
  for (const check of list) {
    const d = check._zod.def as unknown as Def;
    switch (d.check) {
      case "greater_than":
        narrowMin(agg, d.inclusive ? "minimum" : "exclusiveMinimum", d.value);
        break;
      case "less_than":
        narrowMax(agg, d.inclusive ? "maximum" : "exclusiveMaximum", d.value);
        break;
      case "multiple_of":
        addDivisor(agg, d.value);
        break;
      case "number_format":
        formatRange(agg, d.format, util.NUMBER_FORMAT_RANGES as Record<string, [Bound, Bound]>);
        break;
      case "bigint_format":
        formatRange(agg, d.format, util.BIGINT_FORMAT_RANGES as Record<string, [Bound, Bound]>);
        break;
      case "min_length":
      case "min_size":
        narrowMin(agg, "minimum", d.minimum);
        break;
      case "max_length":
      case "max_size":
        narrowMax(agg, "maximum", d.maximum);
        break;
      case "length_equals":
        narrowMin(agg, "minimum", d.length);
        narrowMax(agg, "maximum", d.length);
        break;
      case "size_equals":
        narrowMin(agg, "minimum", d.size);
        narrowMax(agg, "maximum", d.size);
        break;
      case "string_format":
        setFormat(agg, d.format);
        if (d.pattern) addPattern(agg, d.pattern);
        if (d.format === "base64" || d.format === "base64url") agg.contentEncoding = d.format;
        if (d.local || d.precision === -1) agg.laxFormat = true;
        break;
      case "mime_type":
        intersectMime(agg, d.mime);
        break;
    }
  }
  // What third-party checks record only in the bag; zod's own never say more than the fold above.
  const bag = schema._zod.bag as Omit<CheckAggregate, "multipleOf"> & { multipleOf?: number };
  if (bag.minimum !== undefined) narrowMin(agg, "minimum", bag.minimum);
  if (bag.exclusiveMinimum !== undefined) narrowMin(agg, "exclusiveMinimum", bag.exclusiveMinimum);
  if (bag.maximum !== undefined) narrowMax(agg, "maximum", bag.maximum);
  if (bag.exclusiveMaximum !== undefined) narrowMax(agg, "exclusiveMaximum", bag.exclusiveMaximum);
  if (bag.multipleOf !== undefined) addDivisor(agg, bag.multipleOf);
  if (bag.format !== undefined) {
    agg.format ??= bag.format;
    if (bag.format.includes("int")) agg.isInt = true;
  }
  if (bag.mime) intersectMime(agg, bag.mime);
  for (const pattern of bag.patterns ?? []) addPattern(agg, pattern);
  return agg;
}

// ---- small JSON helpers, as zod's converter uses them ----

const UNREPRESENTABLE = Symbol("unrepresentable");

/** A default value as JSON, or UNREPRESENTABLE when it holds a bigint. */
function jsonValue(value: unknown): unknown {
  let bigint = false;
  const text = JSON.stringify(value, (_key, item) => {
    if (typeof item !== "bigint") return item;
    bigint = true;
    return null;
  });
  if (bigint) return UNREPRESENTABLE;
  return text === undefined ? undefined : JSON.parse(text);
}

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

function assignProp(target: SchemaObject, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
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
