import { essenceOf } from "../core/media-type";
import type { RateLimitDeclaration } from "../core/ops/rate-limit";
import type { Serializer } from "../core/route/negotiate";
import { checkedValidationFailures, type ValidationFailures } from "../core/route/route-plan";
import type { Tracing } from "../core/route/tracing";
import type { DocumentContext, EnvPredicate } from "../core/schema-types";
import type { AuthOption, SecurityRequirement } from "../core/security/auth";
import type { DocsAssetFile } from "../docs-ui";
import type { ErrorFormat, HandlerZodErrors } from "../errors/render";
import type { DocumentSchema, OpenAPIVersion } from "../openapi/types";

export type { DocumentContext, EnvPredicate, ValidationFailures };

/**
 * Where the docs pages load Swagger UI, ReDoc and Scalar from: a CDN (default), or the app itself,
 * which serves each file under `baseUrl` with `load` (see `nodeDocsAssets()` from "specroute/node").
 */
export type DocsAssetsOption =
  | { kind: "cdn" }
  | { kind: "self-hosted"; baseUrl: string; load(asset: DocsAssetFile): Promise<Uint8Array | string | null> };

/** Options of `fromHono` / `fromIttyRouter`, as chanfana 3 has them plus specroute's own. */
export interface RouterOptions {
  /**
   * Path prefix of the router, e.g. "/api". On Hono it is applied with `basePath()`, so routes and docs
   * are served under it (an app made with `basePath()` is detected instead); on itty-router it prefixes
   * the documented paths and the document's URL.
   */
  base?: string;
  /**
   * Document-level OpenAPI fields: info, servers, components (incl. securitySchemes), security, tags; or
   * a function of the request's environment returning them (one document is built and cached per
   * distinct result), e.g. `({ env }) => ({ servers: [{ url: env.PUBLIC_URL }] })`.
   */
  schema?: DocumentSchema | ((ctx: DocumentContext) => DocumentSchema);
  /**
   * Whether the document and docs pages answer for a request; when false they answer as if absent
   * (the router moves on). Default: always. Called with the route's own path (`docs_url`,
   * `openapi_url`, ...) so each can be gated: `({ env }, path) => path === "/docs" || env.DEBUG === "1"`.
   */
  docsEnabled?: (ctx: DocumentContext, path: string) => boolean;
  /**
   * Leave every route of this router out of the document (its own and, once mounted, its parent's);
   * a boolean or a predicate on the environment. The routes still validate and answer. Default false.
   */
  hidden?: boolean | EnvPredicate;
  /** Swagger UI page; `null` disables it. Default `/docs`. */
  docs_url?: string | null;
  /** ReDoc page; `null` disables it. Default `/redocs`. */
  redoc_url?: string | null;
  /** Scalar page; `null` disables it. Default `/scalar`. */
  scalar_url?: string | null;
  /** The JSON document (YAML at the same path ending in `.yaml`); `null` disables it and the pages. */
  openapi_url?: string | null;
  /** Version of the served document: "3" (3.0.3), "3.1" or "3.2" (streams with `itemSchema`). Default "3.1". */
  openapiVersion?: OpenAPIVersion;
  /** Give routes without an `operationId` one of the form `<method>_<ClassName>`. Default true. */
  generateOperationIds?: boolean;
  /** Answer 400 for query parameters the endpoint does not declare. Default true. */
  raiseUnknownParameters?: boolean;
  /** Check 200 JSON results against the declared response schema (500 on mismatch). Default false. */
  validateResponse?: boolean;
  /**
   * Accepted for chanfana compatibility; the adapter fixes it: always on for Hono (errors reach
   * `onError`), always off for itty-router (which has no error hook).
   */
  raiseOnError?: boolean;
  /** Let errors, validation failures included, reach the router's error handling unformatted. Default false. */
  passthroughErrors?: boolean;
  /**
   * When a request that fails validation is answered. `"when-asked"` (default, chanfana's order): the 400
   * is raised where `handle()` calls `getValidatedData()`, so an error the handler throws before that (a
   * 401, a 404) is the answer, and no code after it runs on invalid input; a handler that never asks,
   * or catches the 400, still answers it unless it answers an error of its own. `"before-handle"`: the
   * 400 is answered before `handle()` runs, so no handler code ever runs on invalid input. A router
   * mounted under one with `"before-handle"` keeps it.
   */
  validationFailures?: ValidationFailures;
  /** Error bodies: the spec's envelope, or RFC 9457 `application/problem+json`. Default "envelope". */
  errorFormat?: ErrorFormat;
  /**
   * What a ZodError thrown by your own code (`schema.parse(...)` in `handle()`) answers: `"validation"`, a
   * 400 naming its fields, as chanfana does (default); `"internal"`, a hidden 500 (`Internal Error`, its id
   * in `x-request-id` and the log), so internal field names and rules stay internal. The request's own
   * validation answers 400 either way.
   */
  handlerZodErrors?: HandlerZodErrors;
  /**
   * Writers of media types other than JSON, by media type: where a route's 200 declares several media
   * types and `handle()` returns data, the request's `Accept` chooses among JSON and these (406 when it
   * takes none).
   *
   * @example
   * serializers: { "text/csv": (rows) => toCsv(rows as object[]) }
   */
  serializers?: Record<string, Serializer>;
  /** Largest accepted request body in bytes. Default 1 MiB. */
  maxBodySize?: number;
  /**
   * Read a body sent as `text/plain` (or without a Content-Type) as JSON where a route declares a JSON body
   * and not `text/plain`, as chanfana does: `fetch(url, { method: "POST", body: JSON.stringify(data) })`
   * labels its body so. Never on a route whose security reads a cookie (or other credentials a browser
   * sends on its own), since a page on another site can send either with them. `false` answers 415 for
   * both everywhere: the fix for a session cookie a middleware checks. Default true.
   */
  readTextPlainAsJson?: boolean;
  /**
   * Document the answers the framework gives on its own (400, 401 with `WWW-Authenticate`, 403, 404,
   * 409, 413, 415) in each operation's `responses`; `false` for a hand-written document. Default true.
   */
  automaticResponses?: boolean;
  /** Where the docs pages' scripts and styles come from. Default: a CDN. */
  docsAssets?: DocsAssetsOption;
  /** The database SQL-backed endpoints use when they name none: a driver such as `betterSqlite3Driver(db)`. */
  db?: unknown;
  /**
   * Authentication every route of this router (and of routers mounted under it) enforces unless it
   * declares its own `auth` or `security: []`: `bearerAuth(...)`, `apiKeyAuth(...)`, or alternatives.
   */
  auth?: AuthOption;
  /**
   * Security requirements documented for every route of this router (and of routers mounted under
   * it) that declares none; `[]` marks them public, opting out of an outer router's `auth`.
   */
  security?: SecurityRequirement[];
  /**
   * Traces every request of this router (and of routers mounted under it that have none of their own):
   * `openTelemetry()` from "specroute/otel". Unset, no tracing code runs.
   *
   * @example
   * fromHono(app, { tracing: openTelemetry() });
   */
  tracing?: Tracing;
  /**
   * The rate limit (`rateLimit({...})`) counting every route of this router (and of routers mounted
   * under it) that declares none; `false` opts them out of an outer router's. Routes under one policy
   * share its buckets.
   */
  rateLimit?: RateLimitDeclaration;
}

/** Router options with every default applied. */
export interface ResolvedRouterOptions {
  base: string;
  /** The static document fields; `{}` when `schema` is a function (see `schemaFor`). */
  schema: DocumentSchema;
  /** `schema` when given as a function of the environment. */
  schemaFor?: (ctx: DocumentContext) => DocumentSchema;
  docsEnabled?: (ctx: DocumentContext, path: string) => boolean;
  hidden: boolean | EnvPredicate;
  docs_url: string | null;
  redoc_url: string | null;
  scalar_url: string | null;
  openapi_url: string | null;
  openapiVersion: OpenAPIVersion;
  generateOperationIds: boolean;
  raiseUnknownParameters: boolean;
  validateResponse: boolean;
  raiseOnError: boolean;
  passthroughErrors: boolean;
  validationFailures: ValidationFailures;
  errorFormat: ErrorFormat;
  handlerZodErrors: HandlerZodErrors;
  serializers: Readonly<Record<string, Serializer>>;
  maxBodySize: number;
  readTextPlainAsJson: boolean;
  automaticResponses: boolean;
  docsAssets: DocsAssetsOption;
  db: unknown;
  auth?: AuthOption;
  security?: SecurityRequirement[];
  tracing?: Tracing;
  rateLimit?: RateLimitDeclaration;
}

/** The serializers by lower-case media type, each checked to be a function. */
function serializersOption(given: Record<string, Serializer> | undefined): Readonly<Record<string, Serializer>> {
  const serializers: Record<string, Serializer> = Object.create(null);
  for (const [mediaType, serialize] of Object.entries(given ?? {})) {
    if (typeof serialize !== "function") throw new Error(`serializers["${mediaType}"] must be a function`);
    serializers[essenceOf(mediaType)] = serialize;
  }
  return Object.freeze(serializers);
}

function handlerZodErrorsOption(value: HandlerZodErrors | undefined): HandlerZodErrors {
  if (value === undefined) return "validation";
  if (value !== "validation" && value !== "internal") {
    throw new Error(`handlerZodErrors must be "validation" or "internal", got ${JSON.stringify(value)}`);
  }
  return value;
}

export function resolveOptions(options: RouterOptions = {}): ResolvedRouterOptions {
  const maxBodySize = options.maxBodySize ?? 1024 * 1024;
  if (!Number.isFinite(maxBodySize) || maxBodySize < 0) throw new Error("maxBodySize must be a non-negative number");
  if (options.openapiVersion !== undefined && !["3", "3.1", "3.2"].includes(options.openapiVersion)) {
    throw new Error(`openapiVersion must be "3", "3.1" or "3.2", got ${JSON.stringify(options.openapiVersion)}`);
  }
  if (options.rateLimit === true) throw new Error("rateLimit: true names no policy: give rateLimit({...}), or false");
  return {
    base: options.base ? validateBasePath(options.base) : "",
    schema: typeof options.schema === "function" ? {} : (options.schema ?? {}),
    schemaFor: typeof options.schema === "function" ? options.schema : undefined,
    docsEnabled: options.docsEnabled,
    hidden: options.hidden ?? false,
    docs_url: urlOption(options.docs_url, "/docs"),
    redoc_url: urlOption(options.redoc_url, "/redocs"),
    scalar_url: urlOption(options.scalar_url, "/scalar"),
    openapi_url: urlOption(options.openapi_url, "/openapi.json"),
    openapiVersion: options.openapiVersion ?? "3.1",
    generateOperationIds: options.generateOperationIds ?? true,
    raiseUnknownParameters: options.raiseUnknownParameters ?? true,
    validateResponse: options.validateResponse ?? false,
    raiseOnError: options.raiseOnError ?? false,
    passthroughErrors: options.passthroughErrors ?? false,
    validationFailures: checkedValidationFailures(options.validationFailures, "validationFailures") ?? "when-asked",
    errorFormat: options.errorFormat ?? "envelope",
    handlerZodErrors: handlerZodErrorsOption(options.handlerZodErrors),
    serializers: serializersOption(options.serializers),
    maxBodySize,
    readTextPlainAsJson: options.readTextPlainAsJson ?? true,
    automaticResponses: options.automaticResponses ?? true,
    docsAssets: options.docsAssets ?? { kind: "cdn" },
    db: options.db,
    auth: options.auth,
    security: options.security,
    tracing: tracingOption(options.tracing),
    rateLimit: options.rateLimit,
  };
}

function tracingOption(tracing: Tracing | undefined): Tracing | undefined {
  if (tracing !== undefined && typeof tracing?.request !== "function") {
    throw new Error('tracing must be a Tracing, such as openTelemetry() from "specroute/otel"');
  }
  return tracing;
}

function urlOption(value: string | null | undefined, fallback: string): string | null {
  return value === null ? null : (value ?? fallback);
}

/**
 * Checks a router `base`: it starts with "/" and does not end with one ("/" alone included); returns it.
 *
 * @example
 * validateBasePath("/api"); // "/api"
 * validateBasePath("api/"); // throws: base must start with "/"
 */
export function validateBasePath(base: string): string {
  if (!base.startsWith("/")) throw new Error(`base must start with "/", got ${JSON.stringify(base)}`);
  if (base.endsWith("/")) throw new Error(`base must not end with "/", got ${JSON.stringify(base)}`);
  return base;
}
