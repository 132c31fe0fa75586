import { z } from "zod";
import type * as core from "zod/v4/core";
import type { SchemaIO, SchemaObject } from "../schema-object";
import { aggregateChecks } from "./checks";
import { type Def, defOf } from "./introspect";

/*
 * The direct converter's per-type processors, one per zod definition type, as zod's own converter has
 * them: each writes the node's own keywords and names the schema the node inherits the rest from (a
 * wrapper's inner schema). The driver (direct-json-schema.ts) adds metadata, inheritance and references.
 */

const { util } = z.core;

/** What a processor may ask of the conversion it is part of. */
export interface ProcessorContext {
  openapi30: boolean;
  io: SchemaIO;
  /** The converted schema of a child node (a member, an element, an option). */
  child(schema: core.$ZodType): SchemaObject;
  /** The output holds something JSON writes differently (an infinite bound): finish with a JSON round trip. */
  markNotJson(): void;
}

/** A processor's answer that only zod's converter can write this node. */
export const VIA_ZOD = Symbol("via zod");

/** What a processor returns: the schema the node inherits from, none, or `VIA_ZOD`. */
export type Processed = core.$ZodType | typeof VIA_ZOD | undefined;

/** Writes a node's own keywords into `own`. */
export type Processor = (schema: core.$ZodType, def: Def, own: SchemaObject, ctx: ProcessorContext) => Processed;

/** A type zod writes nothing for (an "any"); json-schema.ts's fixes give dates and bigints a type. */
const nothing: Processor = () => undefined;

/** A wrapper that adds nothing of its own: the node is its inner schema. */
const innerType: Processor = (_schema, def) => def.innerType;

const booleanType: Processor = (_schema, _def, own) => {
  own.type = "boolean";
  return undefined;
};

/** The processor of each zod definition type the direct converter writes; zod's converter writes the rest. */
export const PROCESSORS: ReadonlyMap<string, Processor> = new Map<string, Processor>([
  ["string", (schema, _def, own, ctx) => (stringOwn(schema, own, ctx) ? undefined : VIA_ZOD)],
  [
    "number",
    (schema, _def, own, ctx) => {
      numberOwn(schema, own, ctx);
      return undefined;
    },
  ],
  ["boolean", booleanType],
  ["success", booleanType],
  [
    "null",
    (_schema, _def, own, ctx) => {
      if (ctx.openapi30) Object.assign(own, { type: "string", nullable: true, enum: [null] });
      else own.type = "null";
      return undefined;
    },
  ],
  [
    "never",
    (_schema, _def, own) => {
      own.not = {};
      return undefined;
    },
  ],
  ...[
    "any",
    "unknown",
    "date",
    "bigint",
    "symbol",
    "undefined",
    "void",
    "nan",
    "custom",
    "function",
    "transform",
    "map",
    "set",
  ].map((type) => [type, nothing] as const),
  [
    "file",
    (schema, _def, own) => {
      fileOwn(schema, own);
      return undefined;
    },
  ],
  [
    "enum",
    (_schema, def, own) => {
      enumOwn(def, own);
      return undefined;
    },
  ],
  [
    "literal",
    (_schema, def, own, ctx) => {
      literalOwn(def, own, ctx);
      return undefined;
    },
  ],
  [
    "template_literal",
    (schema, _def, own) => {
      own.type = "string";
      own.pattern = (schema._zod as { pattern: RegExp }).pattern.source;
      return undefined;
    },
  ],
  [
    "array",
    (schema, def, own, ctx) => {
      const { minimum, maximum } = aggregateChecks(schema);
      if (typeof minimum === "number") own.minItems = minimum;
      if (typeof maximum === "number") own.maxItems = maximum;
      own.type = "array";
      own.items = ctx.child(def.element);
      return undefined;
    },
  ],
  ["object", (_schema, def, own, ctx) => (objectOwn(def, own, ctx) ? undefined : VIA_ZOD)],
  [
    "union",
    (_schema, def, own, ctx) => {
      const options = (def.options as core.$ZodType[]).map((option) => ctx.child(option));
      if (def.inclusive === false) own.oneOf = options;
      else own.anyOf = options;
      return undefined;
    },
  ],
  ["record", (_schema, def, own, ctx) => (recordOwn(def, own, ctx) ? undefined : VIA_ZOD)],
  [
    "nullable",
    (_schema, def, own, ctx) => {
      if (!ctx.openapi30) {
        own.anyOf = [ctx.child(def.innerType), { type: "null" }];
        return undefined;
      }
      ctx.child(def.innerType);
      own.nullable = true;
      return def.innerType;
    },
  ],
  ["optional", innerType],
  ["nonoptional", innerType],
  ["promise", innerType],
  [
    "readonly",
    (_schema, def, own) => {
      own.readOnly = true;
      return def.innerType;
    },
  ],
  [
    "default",
    (_schema, def, own) => {
      const value = jsonValue(def.defaultValue);
      if (value === UNREPRESENTABLE) return VIA_ZOD;
      own.default = value;
      return def.innerType;
    },
  ],
  [
    "pipe",
    (_schema, def, _own, ctx) => {
      const inIsTransform = (def.in as core.$ZodType)._zod.traits.has("$ZodTransform");
      return ctx.io === "input" ? (inIsTransform ? def.out : def.in) : def.out;
    },
  ],
]);

const FORMAT_NAMES: Record<string, string> = {
  guid: "uuid",
  url: "uri",
  datetime: "date-time",
  json_string: "json-string",
  regex: "",
};

function stringOwn(schema: core.$ZodType, own: SchemaObject, ctx: ProcessorContext): boolean {
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
        ctx.openapi30 ? { type: "string", pattern: regex.source } : { pattern: regex.source },
      );
  }
  return true;
}

/** One side's bound; an exclusive one is the bound plus `exclusive…: true` in OpenAPI 3.0, the number itself after. */
function boundKeywords(
  side: "minimum" | "maximum",
  bound: unknown,
  exclusive: boolean,
  openapi30: boolean,
): SchemaObject {
  const exclusiveKey = side === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum";
  if (!exclusive) return typeof bound === "number" ? { [side]: bound } : {};
  return openapi30 ? { [side]: bound, [exclusiveKey]: true } : { [exclusiveKey]: bound };
}

function numberOwn(schema: core.$ZodType, own: SchemaObject, ctx: ProcessorContext): void {
  const { minimum, maximum, multipleOf, exclusiveMaximum, exclusiveMinimum, isInt } = aggregateChecks(schema);
  own.type = isInt ? "integer" : "number";
  const exMin = typeof exclusiveMinimum === "number" && exclusiveMinimum >= ((minimum as number) ?? -Infinity);
  const exMax = typeof exclusiveMaximum === "number" && exclusiveMaximum <= ((maximum as number) ?? Infinity);
  Object.assign(own, boundKeywords("minimum", exMin ? exclusiveMinimum : minimum, exMin, ctx.openapi30));
  Object.assign(own, boundKeywords("maximum", exMax ? exclusiveMaximum : maximum, exMax, ctx.openapi30));
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const bound = own[key];
    if (typeof bound === "number" && !Number.isFinite(bound)) ctx.markNotJson();
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

function literalOwn(def: Def, own: SchemaObject, ctx: ProcessorContext): void {
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
    if (ctx.openapi30) own.enum = [value];
    else own.const = value;
  } else if (values.length > 1) {
    if (values.every((v) => typeof v === "number")) own.type = "number";
    if (values.every((v) => typeof v === "string")) own.type = "string";
    if (values.every((v) => typeof v === "boolean")) own.type = "boolean";
    if (values.every((v) => v === null)) own.type = "null";
    own.enum = values;
  }
}

function objectOwn(def: Def, own: SchemaObject, ctx: ProcessorContext): boolean {
  const shape = def.shape as Record<string, core.$ZodType>;
  if (Object.getOwnPropertySymbols(shape).length > 0) return false;
  own.type = "object";
  const properties: SchemaObject = {};
  own.properties = properties;
  for (const key in shape) {
    const json = ctx.child(shape[key]!);
    if (key === "__proto__") assignProp(properties, key, json);
    else properties[key] = json;
  }
  const required: string[] = [];
  for (const key of Object.keys(shape)) {
    const field = shape[key]!;
    if (ctx.io === "input" ? inputOptin(field) === undefined : field._zod.optout === undefined) required.push(key);
  }
  if (required.length > 0) own.required = required;
  const catchall = def.catchall as core.$ZodType | undefined;
  if (catchall?._zod.def.type === "never") own.additionalProperties = false;
  else if (!catchall) {
    if (ctx.io === "output") own.additionalProperties = false;
  } else own.additionalProperties = ctx.child(catchall);
  return true;
}

function recordOwn(def: Def, own: SchemaObject, ctx: ProcessorContext): boolean {
  // Loose records with key patterns, and keys zod re-expresses as numeric strings, stay with zod.
  if (def.mode === "loose") return false;
  own.type = "object";
  const keyType = def.keyType as core.$ZodType;
  if (!ctx.openapi30) {
    const names = ctx.child(keyType);
    if (!plainKeySchema(names)) return false;
    own.propertyNames = names;
  }
  own.additionalProperties = ctx.child(def.valueType);
  const keyValues = keyType._zod.values;
  const omittable = ctx.io === "input" && inputOptin(def.valueType) !== undefined;
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
  const def = defOf(schema);
  if (def.type === "pipe" && (def.in as core.$ZodType)._zod.traits.has("$ZodTransform")) return inputOptin(def.out);
  if (def.type === "catch") return inputOptin(def.innerType);
  return schema._zod.optin;
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

export function assignProp(target: SchemaObject, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
