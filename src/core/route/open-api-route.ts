import type { z } from "zod";
import type { MultiException } from "../../errors/exceptions";
import type { OpenAPIRouteSchema, PrincipalOf, SchemaType, UnvalidatedData, ValidatedData } from "../schema-types";
import type { EndpointHost } from "./host";
import { ResponsePlan } from "./respond";
import type { ValidationFailures } from "./route-plan";

/** What the router hands an endpoint when it is registered (chanfana's `RouteOptions`). */
export interface RouteOptions {
  /** The router serving the endpoint, as endpoints may use it (see `EndpointHost`). */
  router: EndpointHost;
  raiseUnknownParameters: boolean;
  /** The registered path in OpenAPI form, e.g. `/users/{userId}`. */
  route: string;
  /**
   * The URL parameter names of the route as registered on its router, the router's base included, in order;
   * for a class `compiledPerPath` served under a mount, those of the full path the mount serves it at.
   */
  urlParams: string[];
  /** The lower-case HTTP method the route was registered with (e.g. PUT or PATCH for updates). */
  method?: string;
}

/** The options of an endpoint built by hand, outside any router (a unit test): no router to ask. */
type HandBuiltOptions = Omit<RouteOptions, "router"> & { router: null };

/**
 * Base class of every endpoint: declare `schema` and implement `handle`.
 *
 * The class is constructed once, when its route is first needed (its first request, the first document,
 * or `router.compile()`); each request runs on a light object that inherits from that instance, so
 * class-field schemas cost nothing per request. Per-request
 * state (`args`, validated data, fields `handle` assigns) lives on that object, and class fields
 * holding an array, plain object, Map or Set are copied onto it: nothing is shared between requests.
 *
 * @example
 * class GetTask extends OpenAPIRoute {
 *   schema = { request: { params: z.object({ id: z.coerce.number() }) }, responses: {} };
 *   async handle() {
 *     const { params } = await this.getValidatedData();
 *     return { id: params.id };
 *   }
 * }
 */
export abstract class OpenAPIRoute<HandleArgs extends Array<object> = any> {
  static isRoute = true;
  /**
   * Class fields that configure the endpoint rather than hold state (`filterFields`, `_meta`, ...):
   * read by requests, never written by them, so shared instead of copied per request. Each class lists
   * its own; those of its parent classes count too.
   */
  static readonly configurationFields: readonly string[] = [];
  /**
   * Whether registering the class compiles its route at once, so that what `prepareRoute()` and
   * `getSchema()` check fails the registration (the auto endpoints check their Meta and list options
   * against the path and the model, as chanfana does). Otherwise the route is compiled when first
   * needed, which keeps start-up free of the schemas' cost.
   */
  static readonly compiledAtRegistration: boolean = false;
  /**
   * Whether the route depends on every URL parameter of the path serving it, a mount's prefix included:
   * mounted where the full path has other parameters than the path it was registered at, the class is
   * constructed and compiled again for that full path (the auto endpoints' collections are scoped by
   * them). Otherwise `params.urlParams` are those of the path it was registered at, as in chanfana.
   */
  static readonly compiledPerPath: boolean = false;
  /**
   * When a request that fails validation is answered: `"when-asked"` raises its 400 where `handle()` asks
   * for its data, as chanfana does, so what the handler throws first (a 401, a 404) is the answer;
   * `"before-handle"` answers it before `handle()` runs. Unset, the router's `validationFailures` decides;
   * either can only make the order stricter. The auto endpoints set `"before-handle"`.
   */
  static readonly validationFailures: ValidationFailures | undefined = undefined;

  /** The endpoint's contract; declared with zod's core schema type, so checking a subclass's field stays cheap. */
  schema: OpenAPIRouteSchema<SchemaType> = {};
  params: RouteOptions;
  /** The arguments the router passed for the current request (e.g. Hono's context). */
  args: HandleArgs = [] as unknown as HandleArgs;

  /** @internal Set per request by the framework before `handle` runs; read it with getValidatedData(). */
  validatedData: Record<string, unknown> | undefined = undefined;
  /** @internal Set per request; read it with getUnvalidatedData(). */
  unvalidatedData: UnvalidatedData | undefined = undefined;
  /** @internal Set per request when the route enforces `auth`; read it with getPrincipal(). */
  authPrincipal: unknown = undefined;

  constructor(params: RouteOptions | HandBuiltOptions) {
    // Built by hand (a unit test), an endpoint has no router; chanfana typed it `any`, so such tests compile.
    this.params = params as RouteOptions;
  }

  /** The endpoint's logic. Return a plain object (200 JSON), a `Response`, a string, or nothing (204). */
  abstract handle(...args: HandleArgs): unknown;

  /** The schema the route is compiled and documented from; override to derive it. Computes and returns, nothing else. */
  getSchema(): OpenAPIRouteSchema {
    // Every zod v4 schema is a z.ZodType; the field is declared with the core type only for the editor's sake.
    return this.schema as OpenAPIRouteSchema;
  }

  /**
   * Called once, right after the class is constructed for its route and before `getSchema()`: compute
   * here the runtime state requests will read (lookup tables, derived field lists), and throw for a
   * route it cannot serve. Requests inherit that state from this instance.
   */
  prepareRoute(): void {}

  /**
   * The validated request, typed from this class's own `schema`.
   *
   * @example
   * const { body, query } = await this.getValidatedData();
   */
  async getValidatedData<S = never>(this: { schema: S }): Promise<ValidatedData<S>> {
    raiseHeldFailure(this as unknown as RequestContext);
    const data = (this as unknown as OpenAPIRoute).validatedData;
    if (data === undefined) throw new Error("getValidatedData() can only be called while a request is handled");
    return data as ValidatedData<S>;
  }

  /**
   * The principal the route's `auth` verified (its router's, when the route declares none), typed from
   * this class's own `schema.auth`; `undefined` on a route without authentication.
   *
   * @example
   * schema = { auth: bearerAuth({ verify: async (token) => users.byToken(token) }), responses: {} };
   * async handle() {
   *   const user = await this.getPrincipal(); // typed as users.byToken's result, without null
   * }
   */
  async getPrincipal<S = never>(this: { schema: S }): Promise<PrincipalOf<S>> {
    const self = this as unknown as RequestContext;
    // A request whose validation failed was still authenticated: its principal is known.
    if (self.validatedData === undefined && self.heldFailure === undefined)
      throw new Error("getPrincipal() can only be called while a request is handled");
    return self.authPrincipal as PrincipalOf<S>;
  }

  /** The request as extracted and coerced, before parsing and defaults (what the client actually sent). */
  async getUnvalidatedData(): Promise<UnvalidatedData> {
    if (this.unvalidatedData === undefined) {
      throw new Error("getUnvalidatedData() can only be called while a request is handled");
    }
    return this.unvalidatedData;
  }

  /**
   * Called with anything thrown while the request is handled (validation included). Return a
   * `Response` to answer with it, or return (or throw) an error to have it rendered.
   *
   * @example
   * protected handleError(error: unknown): unknown {
   *   return error instanceof MyDomainError ? new ConflictException(error.message) : error;
   * }
   */
  protected handleError(error: unknown): unknown {
    return error;
  }

  /**
   * The schema with chanfana's default 200 response ("Successful response", any JSON) when it declares
   * no `responses`; a shallow copy of `getSchema()`.
   *
   * @example
   * const { responses } = this.getSchemaZod();
   */
  getSchemaZod(): OpenAPIRouteSchema {
    const schema = { ...this.getSchema() };
    // The plain `{}` is not a zod schema, so nothing validates against it (as in chanfana).
    schema.responses ??= {
      "200": { description: "Successful response", content: { "application/json": { schema: {} as z.ZodType } } },
    };
    return schema;
  }

  /**
   * Runs this registered endpoint for the router's handler arguments and returns its Response, as the
   * router does (validation, `handle`, errors rendered or raised per the router's options).
   *
   * @example
   * app.get("/legacy", (c) => endpoint.execute(c));
   */
  async execute(...args: HandleArgs): Promise<Response> {
    return servedOf(this, "execute").serve(args);
  }

  /**
   * The request validated against this route's compiled schema: `{ params, query, headers, cookies, body }`
   * as declared. For the request being handled it returns what was already validated.
   *
   * @example
   * const data = await this.validateRequest(request);
   */
  async validateRequest(request: Request): Promise<Record<string, unknown>> {
    const served = servedOf(this, "validateRequest");
    if (served.requestOf(this.args) === request) {
      raiseHeldFailure(this as unknown as RequestContext);
      if (this.validatedData !== undefined) return this.validatedData;
    }
    return served.validateRequest(request, this.args);
  }

  /**
   * The zod schema of the JSON response declared for `status`, else of the `default` response;
   * `undefined` when neither declares one.
   *
   * @example
   * const okSchema = this.getResponseSchema(200);
   */
  getResponseSchema(status: number): z.ZodType | undefined {
    return responsePlanOf(this).responseSchema(status);
  }

  /**
   * Checks and strips what `handle` returned against the declared response schemas (the router's
   * `validateResponse` option calls an override of it, else checks with the same plan): a JSON `Response` against its status's schema, a plain
   * object against the 200 one; anything without a zod schema passes unchanged. Throws the ZodError.
   *
   * @example
   * const checked = await this.validateResponse({ id: 1, secret: "x" }); // { id: 1 }
   */
  async validateResponse(resp: unknown): Promise<unknown> {
    return responsePlanOf(this).validateResponse(resp);
  }
}

/**
 * How the router serving an endpoint runs it (the mount's version, for a mounted route): what
 * `execute()`, `validateRequest()` and the response helpers use.
 */
export interface ServedEndpoint {
  readonly responses: ResponsePlan;
  /** The fetch Request among the router's handler arguments. */
  requestOf(args: unknown[]): Request;
  /** Runs the route for the router's handler arguments, as the router does. */
  serve(args: unknown[]): Response | Promise<Response>;
  /** `request` validated against the route's plan; `args` are the router arguments of the request being handled. */
  validateRequest(request: Request, args: unknown[]): Promise<Record<string, unknown>>;
}

/** @internal Where an endpoint instance (and each request's object) keeps how it is served. */
export const SERVED = Symbol("specroute.served");

/** Links an endpoint instance to the route its router compiled for it, once. */
export function linkServed(endpoint: OpenAPIRoute, served: ServedEndpoint): void {
  // A symbol key, not enumerable: off the instance's own fields (and out of per-request copies).
  // Writable, so each request's object (which inherits from the instance) can hold its own.
  Object.defineProperty(endpoint, SERVED, { value: served, writable: true });
}

/**
 * The request header `name` as the request `endpoint` handles sent it ("" when absent), whatever its
 * schema made of it: for headers the framework derives (If-Match), whose rule must hold however the app
 * declared its own headers.
 */
export function sentHeader(endpoint: OpenAPIRoute, name: string): string {
  return servedOf(endpoint, "sentHeader").requestOf(endpoint.args).headers.get(name) ?? "";
}

function servedOf(endpoint: OpenAPIRoute, method: string): ServedEndpoint {
  const served = (endpoint as unknown as { [SERVED]?: ServedEndpoint })[SERVED];
  if (!served) throw new Error(`${method}() needs the endpoint registered on a router first`);
  return served;
}

function responsePlanOf(endpoint: OpenAPIRoute): ResponsePlan {
  // An endpoint used outside a router compiles its responses on demand.
  return (
    (endpoint as unknown as { [SERVED]?: ServedEndpoint })[SERVED]?.responses ??
    new ResponsePlan(endpoint.getSchemaZod(), false)
  );
}

/** Internal access to the per-request fields, for the request pipeline only. */
export interface RequestState {
  args: unknown[];
  validatedData: Record<string, unknown> | undefined;
  unvalidatedData: UnvalidatedData | undefined;
  authPrincipal: unknown;
  /** The request's validation failure (a 400), held for `handle()` on routes that raise it when asked. */
  heldFailure: MultiException | undefined;
  /** The route as the router serving this request serves it (a mount's, when mounted). */
  [SERVED]: ServedEndpoint;
}

/** Throws the request's held validation failure, if any: the 400 a handler meets where it asks for its data. */
function raiseHeldFailure(ctx: RequestContext): void {
  if (ctx.heldFailure !== undefined) throw ctx.heldFailure;
}

/** A request's own object: inherits from the endpoint instance, holds the request's state. */
export type RequestContext = OpenAPIRoute & RequestState;

/** One own field of an endpoint that each request gets a shallow copy of. */
export type PerRequestField = readonly [name: string, copy: (value: any) => unknown];

/**
 * Makes a route's per-request objects: each inherits from `endpoint`, holds the request's state and its
 * own copy of each of `fields`. One constructor per route, so every request's object has the same shape.
 */
export function requestStateFactory(
  endpoint: OpenAPIRoute,
  fields: readonly PerRequestField[],
): (args: unknown[], served: ServedEndpoint) => RequestContext {
  const source = endpoint as unknown as Record<string | symbol, unknown>;
  function State(this: Record<string | symbol, unknown>, args: unknown[], served: ServedEndpoint) {
    this.args = args;
    this.validatedData = undefined;
    this.unvalidatedData = undefined;
    this.authPrincipal = undefined;
    this.heldFailure = undefined;
    this[SERVED] = served;
    for (const [name, copy] of fields) this[name] = copy(source[name]);
  }
  State.prototype = endpoint;
  // A constructor (rather than Object.create and assignments) gives the objects one fixed, fast shape.
  const Constructor = State as unknown as new (args: unknown[], served: ServedEndpoint) => RequestContext;
  return (args, served) => new Constructor(args, served);
}

/** Calls an endpoint's protected `handleError` hook, for the request pipeline. */
export function callHandleError(endpoint: OpenAPIRoute, error: unknown): unknown {
  return (endpoint as unknown as { handleError(error: unknown): unknown }).handleError(error);
}

/** An endpoint class as registration accepts it. */
export type OpenAPIRouteClass = (new (
  params: RouteOptions,
) => OpenAPIRoute) & {
  isRoute?: boolean;
  compiledAtRegistration?: boolean;
  compiledPerPath?: boolean;
  validationFailures?: ValidationFailures;
};

/** Whether a value is an endpoint class (by shape, so two loaded copies still agree). */
export function isRouteClass(value: unknown): value is OpenAPIRouteClass {
  return typeof value === "function" && (value as { isRoute?: unknown }).isRoute === true;
}
