import type { ConvertedSchema, SchemaIO } from "./schema-object";

/*
 * The one interface through which specroute reads a schema library. Core (request parsing and
 * coercion), openapi (documents), sql (codec hints) and endpoints ask it and never look inside a schema;
 * only the implementation beside this file (zod/) knows a library's internals. A second library (Standard
 * Schema: valibot, ArkType) plugs in as another implementation of this interface.
 */

/** Which side of a schema a question is about: what a request sends (input) or what validation yields (output). */
export type { SchemaIO } from "./schema-object";

/**
 * How far `unwrap` looks inside a schema: `"input"` and `"output"` strip every wrapper, lazy and the
 * pipe's side named; `"wrappers"` strips only the wrappers (optional, nullable, default, prefault,
 * readonly, catch, nonoptional), leaving pipes and lazies as they are.
 */
export type UnwrapSide = SchemaIO | "wrappers";

/** How a string from a URL, header or cookie is turned into the value a field declares. */
export type ScalarKind = "string" | "number" | "boolean" | "bigint" | "date";

/** How a request field is coerced. */
export interface FieldKind {
  scalar: ScalarKind;
  /** The field is an array: repeated keys (or one value) become its elements. */
  array: boolean;
}

/**
 * How a JSON value of a schema holds other values, for what walks a request's JSON by its schema: an
 * object's members (and `rest`, the schema of its other keys' values: a record's, a catchall), an
 * array's items (a tuple's `prefix`, then `rest`), a union's options, or an intersection's parts (each
 * holding the same value).
 */
export type JsonParts<S> =
  | { kind: "object"; members: Readonly<Record<string, S>>; rest: S | null }
  | { kind: "array"; prefix: readonly S[]; rest: S | null }
  | {
      kind: "union";
      options: readonly S[];
      /** A discriminated union's member, and the values of it each option takes (in the options' order). */
      discriminator?: { key: string; values: readonly (readonly unknown[])[] };
    }
  | { kind: "all"; parts: readonly S[] };

/** What a file field declares: its largest size in bytes and its accepted media types. */
export interface FileConstraints {
  maxSize?: number;
  types?: readonly string[];
}

/**
 * What a model field holds once stored. Engines return the same value in different shapes (0/1,
 * "12.50", 12n, a Date, JSON text); the kind says what to turn it back into.
 */
export type ColumnKind = "boolean" | "number" | "bigint" | "date" | "string" | "json" | "unknown";

/** The OpenAPI version a JSON Schema is written for: 3.0's dialect, or JSON Schema 2020-12 (3.1 and 3.2). */
export type SchemaTarget = "3" | "3.1" | "3.2";

/**
 * Everything specroute asks of a schema library. `S` is the library's schema type. Every question is
 * answered from the schema alone and may be asked at registration; what a request needs is compiled
 * from the answers once, never asked per request.
 */
export interface SchemaSeam<S> {
  /** The library's name, for messages. */
  readonly name: string;
  /** Whether `value` is a schema of this library (by shape, so any loaded copy of it counts). */
  isSchema(value: unknown): value is S;
  /** `schema` with what `side` names stripped (see `UnwrapSide`). */
  unwrap(schema: S, side: UnwrapSide): S;
  /** The members of an object schema (looking through wrappers, pipes and refinements), or null. */
  objectShape(schema: S): Record<string, S> | null;
  /**
   * Whether validating the object schema is validating each of its members on its own: no check or
   * transform over the object, and each member's own validator at hand. Then an object checked member by
   * member (a body without the path's keys, a PATCH's members) passes the whole schema too. A library
   * that cannot tell answers false, and the auto endpoints check its model whole before a write.
   */
  validatesMemberwise(schema: S): boolean;
  /** Whether the schema accepts `undefined` as input (optional, or filled in by a default). */
  acceptsUndefined(schema: S): boolean;
  /** Whether the schema's output may be `undefined` (an optional member an answer may leave out). */
  mayOutputUndefined(schema: S): boolean;
  /** Whether a field may hold NULL: nullable or optional at some level, a union with null, or of no fixed type. */
  mayBeNull(schema: S): boolean;
  /** How a field read from a URL, header or cookie is coerced; unknown shapes stay strings. */
  fieldKind(schema: S): FieldKind;
  /** How a JSON value of the schema holds other values (input side, through wrappers), or null for a leaf. */
  jsonParts(schema: S): JsonParts<S> | null;
  /** The constraints of a file field (or an array of files), or null when the field holds no files. */
  fileConstraints(schema: S): FileConstraints | null;
  /** What a stored field's value is turned back into (its output side). */
  columnKind(schema: S): ColumnKind;
  /** Whether the values of a (bare) field are scalars a listing can order by: not objects, arrays, maps, sets or files. */
  isOrderable(schema: S): boolean;
  /** `param` metadata from a member and the schemas it wraps (outer wins), as `.openapi({ param })` sets it. */
  parameterMetadata(schema: S): Record<string, unknown>;
  /** `schema` without defaults (at any wrapper level) and without a `default` in its metadata. */
  withoutDefault(schema: S): S;
  /** The schema as an OpenAPI Schema Object, once per schema, target and side; the result is frozen and shared. */
  toJsonSchema(schema: S, target: SchemaTarget, io: SchemaIO): ConvertedSchema;
  /** Whether `err` is the library's refusal to parse an async schema synchronously. */
  isAsyncParseError(err: unknown): boolean;
}

/**
 * Where a schema specroute builds (composed.ts) holds the seam that answers for it, so the dispatch
 * (`schema/index.ts`) reaches that seam's code through the schema and an app that builds none bundles none.
 */
export const OWN_SEAM: unique symbol = Symbol("specroute.seam");

/** The seam a schema carries under {@link OWN_SEAM}, or undefined. */
export function ownSeamOf<S>(value: unknown): SchemaSeam<S> | undefined {
  return typeof value === "object" && value !== null ? (value as { [OWN_SEAM]?: SchemaSeam<S> })[OWN_SEAM] : undefined;
}
