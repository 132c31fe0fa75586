import type { z } from "zod";
import type { NotASchema, SchemaOutput, SchemaPart, StandardSchemaLike } from "../schema/types";
import type { IdempotencyPolicy } from "./ops/idempotency";
import type { RateLimitDeclaration } from "./ops/rate-limit";

/**
 * zod's core schema type, which every zod v4 schema is: what an endpoint class's `schema` field is
 * checked against. Checking a schema against it is cheap; against the full `z.ZodType` class it costs
 * the editor thousands of type instantiations per endpoint class.
 */
export type SchemaType = z.core.$ZodType | StandardSchemaLike;

/** An OpenAPI Security Requirement Object: scheme name → required scopes. */
export type SecurityRequirement = Record<string, string[]>;

/** An OpenAPI Security Scheme Object, as listed under `components.securitySchemes`. */
export interface SecuritySchemeObject {
  type: "apiKey" | "http" | "mutualTLS" | "oauth2" | "openIdConnect";
  description?: string;
  [key: string]: unknown;
}

/** What a verify function gets besides the credentials. */
export interface AuthContext {
  request: Request;
  /** The arguments the router passed for this request: Hono `[context]`, itty-router `[request, env, ctx]`. */
  // any: their types depend on the adapter the route is registered on.
  args: any[];
}

/**
 * Checks one security scheme on a request and declares that scheme for the document. Made by
 * `bearerAuth`, `basicAuth` and `apiKeyAuth`; implement it yourself for another kind of credential.
 */
export interface Authenticator<P = unknown> {
  /** Name of the scheme under `components.securitySchemes`. */
  readonly schemeName: string;
  /** The Security Scheme Object the document lists. */
  readonly scheme: SecuritySchemeObject;
  /** The `WWW-Authenticate` challenge sent when the request carries no credentials for this scheme. */
  readonly challenge: string;
  /** What a client must send, for the 401 message: "a bearer token in the Authorization header". */
  readonly expects: string;
  /**
   * The principal, or `undefined` when the request carries no credentials for this scheme. Throws an
   * `UnauthorizedException` (with its own `WWW-Authenticate`) for malformed or invalid credentials,
   * and whatever the verify function throws (a `ForbiddenException` for 403).
   */
  authenticate(request: Request, ctx: AuthContext): Promise<P | undefined>;
  /**
   * Who the credentials `authenticate` verified name, read from the same request, the same on each of
   * that caller's requests (a bearer token, an API key, a Basic user and password; not a nonce or a signature),
   * or undefined when it carries none: what a route's idempotency keys are scoped by. Without it, such a
   * route needs `idempotency({ scope })`.
   *
   * @example
   * const mtls: Authenticator<Client> = { ...scheme, caller: (request) => request.headers.get("x-client-cert-sha256") ?? undefined };
   */
  caller?(request: Request): string | undefined;
}

/** `auth` of a route or router: one authenticator, or alternatives tried in order. */
export type AuthOption = Authenticator<any> | readonly Authenticator<any>[];

/**
 * What a document built for one request sees: the deployment's bindings, the request, and the handler
 * arguments as the router passed them (Hono: `[c]`; itty-router: `[request, env, ctx]`).
 *
 * @example
 * fromHono(app, { schema: ({ env }) => ({ servers: [{ url: String(env.PUBLIC_URL) }] }) });
 */
export interface DocumentContext {
  env: Record<string, unknown>;
  request?: Request;
  args: readonly unknown[];
}

/** A yes/no decided by the environment, e.g. `({ env }) => env.ENVIRONMENT === "production"`. */
export type EnvPredicate = (ctx: DocumentContext) => boolean;

/** One media type of a request or response body (`Z`: the schema type, see {@link SchemaType}). */
/**
 * A JSON Schema object written by hand (or a `{ $ref }`), where a zod schema could go: documented as
 * written and not validated, as chanfana does. Anything a schema (`SchemaLike`) is a zod schema instead.
 */
export type PlainSchemaObject = { readonly [keyword: string]: unknown } & NotASchema;

/** The zod member of a schema slot's type (`Z | PlainSchemaObject`); the type itself when it has none. */
export type ZodPart<T> = SchemaPart<T>;

export interface MediaTypeConfig<Z = z.ZodType> {
  /** A zod schema, or a plain JSON Schema object (documented as written, not validated). */
  schema: Z | PlainSchemaObject;
  example?: unknown;
  examples?: Record<string, unknown>;
  /** Per-member encoding of a form body (e.g. a part's `contentType`); file members get one derived. */
  encoding?: Record<string, Record<string, unknown>>;
}

/**
 * A streamed response's media type (`text/event-stream`, `application/jsonl`): the schema of one item,
 * as OpenAPI 3.2's `itemSchema`; `handle()` returns an async iterable of them.
 */
export interface StreamMediaTypeConfig<Z = z.ZodType> {
  itemSchema: Z | PlainSchemaObject;
  schema?: undefined;
  example?: unknown;
  examples?: Record<string, unknown>;
  encoding?: undefined;
}

/** Bodies keyed by media type, as `contentJson()` produces. */
export type ContentObject<Z = z.ZodType> = Partial<Record<string, MediaTypeConfig<Z> | StreamMediaTypeConfig<Z>>>;

/** `schema.request.body`. */
export interface RequestBodyConfig<Z = z.ZodType> {
  description?: string;
  content: ContentObject<Z>;
  /** Whether an empty body is rejected; defaults to true unless the schema accepts `undefined`. */
  required?: boolean;
}

/** `schema.request`: one object schema per request part. */
export interface RequestSchema<Z = z.ZodType> {
  body?: RequestBodyConfig<Z>;
  query?: Z;
  params?: Z;
  headers?: Z;
  cookies?: Z;
}

/** One entry of `schema.responses`. */
export interface ResponseConfig<Z = z.ZodType> {
  description: string;
  headers?: Z | Record<string, unknown>;
  content?: ContentObject<Z>;
  links?: Record<string, unknown>;
}

/** The `schema` of an endpoint: request contract, responses and documentation. */
export interface OpenAPIRouteSchema<Z = z.ZodType> {
  request?: RequestSchema<Z>;
  responses?: Record<string, ResponseConfig<Z>>;
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  /** Documented security requirements; `[]` marks the route public, opting out of its router's `auth`. */
  security?: SecurityRequirement[];
  /**
   * Enforced authentication, run before any other validation: one authenticator (`bearerAuth(...)`, ...)
   * or alternatives tried in order. Documented as this route's `security` unless that is given.
   */
  auth?: AuthOption;
  /**
   * The rate limit counting this route's requests (`rateLimit({...})`), in place of its router's;
   * `false` opts the route out of its routers'.
   */
  rateLimit?: RateLimitDeclaration;
  /**
   * Idempotency keys on this write (`idempotency({...})`): a retry with the same `Idempotency-Key` gets
   * the first answer; documented as the `Idempotency-Key` header with the 409 and 422.
   */
  idempotency?: IdempotencyPolicy;
  externalDocs?: { url: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  /**
   * OpenAPI Parameter Objects documented as written (a plain JSON Schema, a `$ref`), before the ones
   * `request` gives; they validate nothing, as in chanfana.
   */
  parameters?: Array<Record<string, unknown>>;
  /** Leave this route out of the generated document; a predicate decides per environment (it still validates). */
  "x-ignore"?: boolean | EnvPredicate;
  /** Same as `x-ignore`: leave this route out of the document, always or when the predicate holds. */
  hidden?: boolean | EnvPredicate;
  [extension: `x-${string}`]: unknown;
}

type Output<T> = SchemaOutput<T, undefined>;

// A plain JSON Schema object validates nothing: the handler gets whatever was sent.
type BodyOutput<T> = SchemaOutput<T, unknown>;

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
      ? { [M in keyof C]: C[M] extends { schema: infer T } ? BodyOutput<ZodPart<T>> : never }[keyof C]
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

type PrincipalOfAuth<A> = A extends Authenticator<infer P> ? P : never;

/**
 * What `getPrincipal()` resolves to for an endpoint schema `S`: the principal its `auth` verifies (a
 * union for alternatives), or `unknown` when the route declares no `auth` of its own.
 */
export type PrincipalOf<S> = S extends { auth: infer A }
  ? A extends ReadonlyArray<infer E>
    ? PrincipalOfAuth<E>
    : PrincipalOfAuth<A>
  : unknown;

/** What `getUnvalidatedData()` resolves to: each part as extracted and coerced, before parsing and defaults. */
export type UnvalidatedData = {
  body?: unknown;
  query?: Record<string, unknown>;
  params?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  cookies?: Record<string, unknown>;
};

/**
 * Any zod object schema (chanfana's name, from zod 3).
 *
 * @example
 * const query: AnyZodObject = z.object({ page: z.number() });
 */
export type AnyZodObject = z.ZodObject<any, any>;

/**
 * A media type a body can be declared under; known ones are suggested, any string is accepted.
 *
 * @example
 * const type: ZodMediaType = "application/json";
 */
export type ZodMediaType = "application/json" | "text/html" | "text/plain" | "application/xml" | (string & {});

/**
 * Bodies keyed by media type (chanfana's name for {@link ContentObject}).
 *
 * @example
 * const content: ZodContentObject = { "application/json": { schema: z.object({ id: z.number() }) } };
 */
export type ZodContentObject = ContentObject;

/**
 * `schema.request.body` (chanfana's name for {@link RequestBodyConfig}).
 *
 * @example
 * const body: ZodRequestBody = { content: { "application/json": { schema: z.object({ title: z.string() }) } } };
 */
export type ZodRequestBody = RequestBodyConfig;

/**
 * `schema.request` (chanfana's name for {@link RequestSchema}).
 *
 * @example
 * const request: RequestTypes = { query: z.object({ page: z.number() }) };
 */
export type RequestTypes = RequestSchema;

/**
 * The schema of one request part `coerceInputs` reads: an object, or a pipe from one, or none.
 *
 * @example
 * coerceInputs(new URLSearchParams("page=2"), z.object({ page: z.number() }) satisfies RouteParameter);
 */
export type RouteParameter = AnyZodObject | z.ZodPipe<AnyZodObject, any> | undefined;
