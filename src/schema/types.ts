/*
 * What the types of specroute read of a schema: its input and output types, and whether a type is a
 * schema at all. Read off zod's `_zod` member structurally, which is cheaper for the editor than checking
 * against a zod class. Types only: the typed client imports these too.
 */

/** Any zod schema, by the member every one has. */
export type SchemaLike = { _zod: unknown };

/** A schema whose output type is known. */
export type OutputSchemaLike = { _zod: { output: unknown } };

/** The object type of what is not a schema: a schema's member is absent from it. */
export type NotASchema = { readonly _zod?: never };

/**
 * Any other library's schema specroute reads: Standard Schema (`~standard.validate`) with Standard JSON
 * Schema (`~standard.jsonSchema`), as valibot (through `toStandardJsonSchema`) and ArkType give it.
 */
export type StandardSchemaLike = {
  readonly "~standard": {
    readonly validate: (value: unknown) => unknown;
    readonly jsonSchema: { readonly input: (options: { target: string }) => unknown };
    readonly types?: { readonly input: unknown; readonly output: unknown } | undefined;
  };
};

/** What `T` yields once validated, or `Else` when `T` is not a schema (zod's type first, then Standard Schema's). */
export type SchemaOutput<T, Else = unknown> = T extends { _zod: { output: infer O } }
  ? O
  : T extends { readonly "~standard": { readonly types?: { readonly output: infer O } | undefined } }
    ? unknown extends O
      ? Else
      : O
    : Else;

/** What `T` accepts, or `Else` when `T` is not a schema. */
export type SchemaInput<T, Else = unknown> = T extends { _zod: { input: infer I } }
  ? I
  : T extends { readonly "~standard": { readonly types?: { readonly input: infer I } | undefined } }
    ? unknown extends I
      ? Else
      : I
    : Else;

/** The schema member of a slot's type (`Z | PlainSchemaObject`); the type itself when it has none. */
export type SchemaPart<T> = [Extract<T, SchemaLike | StandardSchemaLike>] extends [never]
  ? T
  : Extract<T, SchemaLike | StandardSchemaLike>;
