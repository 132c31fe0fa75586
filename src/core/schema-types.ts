import type { z } from "zod";

/** One media type of a request or response body. */
export interface MediaTypeConfig {
  schema: z.ZodType;
  example?: unknown;
  examples?: Record<string, unknown>;
}

/** Bodies keyed by media type, as `contentJson()` produces. */
export type ContentObject = Partial<Record<string, MediaTypeConfig>>;

/** `schema.request.body`. */
export interface RequestBodyConfig {
  description?: string;
  content: ContentObject;
  /** Whether an empty body is rejected; defaults to true unless the schema accepts `undefined`. */
  required?: boolean;
}

/** `schema.request`: one object schema per request part. */
export interface RequestSchema {
  body?: RequestBodyConfig;
  query?: z.ZodType;
  params?: z.ZodType;
  headers?: z.ZodType;
  cookies?: z.ZodType;
}

/** One entry of `schema.responses`. */
export interface ResponseConfig {
  description: string;
  headers?: z.ZodType | Record<string, unknown>;
  content?: ContentObject;
  links?: Record<string, unknown>;
}

/** The `schema` of an endpoint: request contract, responses and documentation. */
export interface OpenAPIRouteSchema {
  request?: RequestSchema;
  responses?: Record<string, ResponseConfig>;
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  externalDocs?: { url: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  /** Leave this route out of the generated document. */
  "x-ignore"?: boolean;
  [extension: `x-${string}`]: unknown;
}

type Output<T> = T extends z.ZodType ? z.output<T> : undefined;

type RequestOf<S> = S extends { request?: infer R } ? NonNullable<R> : never;

type PartOf<S, K extends keyof RequestSchema> = [RequestOf<S>] extends [never]
  ? undefined
  : RequestOf<S> extends { [P in K]?: infer T }
    ? Output<T>
    : undefined;

type BodyOf<S> = [RequestOf<S>] extends [never]
  ? undefined
  : RequestOf<S> extends { body?: infer B }
    ? B extends { content: infer C }
      ? { [M in keyof C]: C[M] extends { schema: infer T } ? Output<T> : never }[keyof C]
      : undefined
    : undefined;

/** What `getValidatedData()` resolves to for an endpoint schema `S`: the parsed output of each declared part. */
export type ValidatedData<S> = {
  body: BodyOf<S>;
  query: PartOf<S, "query">;
  params: PartOf<S, "params">;
  headers: PartOf<S, "headers">;
  cookies: PartOf<S, "cookies">;
};

/** What `getUnvalidatedData()` resolves to: each part as extracted and coerced, before parsing and defaults. */
export type UnvalidatedData = {
  body?: unknown;
  query?: Record<string, unknown>;
  params?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  cookies?: Record<string, unknown>;
};
