// The parts of the Standard Schema and Standard JSON Schema specs (standardschema.dev, @standard-schema/spec
// 1.1) that specroute reads, declared here so the package needs no runtime dependency for them.

/** One problem a Standard Schema found in a value, worded by its library. */
export interface StandardIssue {
  readonly message: string;
  /** Where the problem is: keys, or `{ key }` path segments. */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What `~standard.validate` answers: the output value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** Options of `~standard.jsonSchema.input/output`. */
export interface StandardJsonSchemaOptions {
  readonly target: "draft-2020-12" | "draft-07" | "openapi-3.0" | (string & {});
  readonly libraryOptions?: Record<string, unknown>;
}

/** A schema that validates (Standard Schema) and describes itself as JSON Schema (Standard JSON Schema). */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly jsonSchema: {
      readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
      readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
    };
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}
