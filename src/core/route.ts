import type { z } from "zod";
import type { CompiledRoute } from "./pipeline";
import { ResponsePlan } from "./respond";
import type { OpenAPIRouteSchema, PrincipalOf, SchemaType, UnvalidatedData, ValidatedData } from "./schema-types";

/** What the router hands an endpoint when it is registered (chanfana's `RouteOptions`). */
export interface RouteOptions {
  /** The router wrapper the endpoint is registered on. */
  router: any;
  raiseUnknownParameters: boolean;
  /** The registered path in OpenAPI form, e.g. `/users/{userId}`. */
  route: string;
  /** The URL parameter names of this route segment, in order. */
  urlParams: string[];
  /** The lower-case HTTP method the route was registered with (e.g. PUT or PATCH for updates). */
  method?: string;
}

/**
 * Base class of every endpoint: declare `schema` and implement `handle`.
 *
 * The class is constructed once when the route is registered; each request runs on a light object
 * that inherits from that instance, so class-field schemas cost nothing per request. Per-request
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

  constructor(params: RouteOptions) {
    this.params = params;
  }

  /** The endpoint's logic. Return a plain object (200 JSON), a `Response`, a string, or nothing (204). */
  abstract handle(...args: HandleArgs): unknown;

  /** The schema the route is compiled and documented from; override to derive it. Computes and returns, nothing else. */
  getSchema(): OpenAPIRouteSchema {
    // Every zod v4 schema is a z.ZodType; the field is declared with the core type only for the editor's sake.
    return this.schema as OpenAPIRouteSchema;
  }

  /**
   * Called once when the route is registered, before `getSchema()`: compute here the runtime state
   * requests will read (lookup tables, derived field lists). Requests inherit it from this instance.
   */
  prepareRoute(): void {}

  /**
   * The validated request, typed from this class's own `schema`.
   *
   * @example
   * const { body, query } = await this.getValidatedData();
   */
  async getValidatedData<S = never>(this: { schema: S }): Promise<ValidatedData<S>> {
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
    const self = this as unknown as OpenAPIRoute;
    if (self.validatedData === undefined)
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
    return registrationOf(this, "execute").serve(args);
  }

  /**
   * The request validated against this route's compiled schema: `{ params, query, headers, cookies, body }`
   * as declared. For the request being handled it returns what was already validated.
   *
   * @example
   * const data = await this.validateRequest(request);
   */
  async validateRequest(request: Request): Promise<Record<string, unknown>> {
    const state = this as unknown as RequestState;
    const { route, router } = registrationOf(this, "validateRequest");
    if (state.validatedData !== undefined && router.getRequest(state.args) === request) return state.validatedData;
    const urlParams = state.args.length > 0 ? router.getUrlParams(state.args) : {};
    return (await route.plan.validate({ request, urlParams }, state.args)).validated;
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
   * `validateResponse` option calls it): a JSON `Response` against its status's schema, a plain
   * object against the 200 one; anything without a zod schema passes unchanged. Throws the ZodError.
   *
   * @example
   * const checked = await this.validateResponse({ id: 1, secret: "x" }); // { id: 1 }
   */
  async validateResponse(resp: unknown): Promise<unknown> {
    return responsePlanOf(this).validate(resp);
  }
}

/** What registration attaches to an endpoint instance: its compiled route and how its router serves it. */
export interface Registration {
  route: CompiledRoute;
  router: {
    getRequest(args: unknown[]): Request;
    getUrlParams(args: unknown[]): Record<string, string | undefined>;
  };
  serve(args: unknown[]): Response | Promise<Response>;
}

// A symbol key keeps the link off the instance's own enumerable fields (and out of per-request copies).
const REGISTRATION = Symbol("specroute.registration");

/** Links an endpoint instance to its compiled route, once, at registration. */
export function register(endpoint: OpenAPIRoute, registration: Registration): void {
  Object.defineProperty(endpoint, REGISTRATION, { value: registration });
}

function registrationOf(endpoint: OpenAPIRoute, method: string): Registration {
  const registration = (endpoint as unknown as { [REGISTRATION]?: Registration })[REGISTRATION];
  if (!registration) throw new Error(`${method}() needs the endpoint registered on a router first`);
  return registration;
}

function responsePlanOf(endpoint: OpenAPIRoute): ResponsePlan {
  const registration = (endpoint as unknown as { [REGISTRATION]?: Registration })[REGISTRATION];
  // An endpoint used outside a router compiles its responses on demand.
  return registration?.route.responder ?? new ResponsePlan(endpoint.getSchemaZod(), false);
}

/** Fields the framework sets per request or compiles at registration: never copied per request. */
const FRAMEWORK_FIELDS: ReadonlySet<string> = new Set([
  "schema",
  "params",
  "args",
  "validatedData",
  "unvalidatedData",
  "authPrincipal",
]);

/** One own field of an endpoint that each request gets a shallow copy of. */
export type PerRequestField = readonly [name: string, copy: (value: any) => unknown];

/** What the class fields held right after construction, to tell them from state registration computed. */
export function fieldSnapshot(endpoint: OpenAPIRoute): ReadonlyMap<string, unknown> {
  return new Map(Object.entries(endpoint));
}

/**
 * The class fields holding a mutable container (array, plain object, Map, Set) that each request
 * gets a shallow copy of, so what `handle` adds to them never reaches the next request (chanfana
 * builds an instance per request; specroute builds one per route). Framework fields, the class's
 * `configurationFields`, zod schemas, frozen values and state `prepareRoute()` put in place are shared.
 */
export function perRequestFields(endpoint: OpenAPIRoute, constructed: ReadonlyMap<string, unknown>): PerRequestField[] {
  const fields: PerRequestField[] = [];
  const configuration = configurationFieldsOf(endpoint.constructor);
  for (const [name, value] of Object.entries(endpoint)) {
    if (FRAMEWORK_FIELDS.has(name) || configuration.has(name) || constructed.get(name) !== value) continue;
    const copy = copierOf(value);
    if (copy) fields.push([name, copy]);
  }
  return fields;
}

/** The `configurationFields` a class and every class above it declare. */
function configurationFieldsOf(endpointClass: Function): Set<string> {
  const fields = new Set<string>();
  // Each class's own list, so a subclass need not spread its parent's (a spread would keep unused classes in bundles).
  for (
    let current: any = endpointClass;
    current && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    if (Object.hasOwn(current, "configurationFields")) for (const name of current.configurationFields) fields.add(name);
  }
  return fields;
}

/**
 * Makes a route's per-request objects: each inherits from `endpoint`, holds the request's state and its
 * own copy of each of `fields`. One constructor per route, so every request's object has the same shape.
 */
export function requestStateFactory(
  endpoint: OpenAPIRoute,
  fields: readonly PerRequestField[],
): (args: unknown[]) => OpenAPIRoute & RequestState {
  const source = endpoint as unknown as Record<string, unknown>;
  function RequestContext(this: Record<string, unknown>, args: unknown[]) {
    this.args = args;
    this.validatedData = undefined;
    this.unvalidatedData = undefined;
    this.authPrincipal = undefined;
    for (const [name, copy] of fields) this[name] = copy(source[name]);
  }
  RequestContext.prototype = endpoint;
  // A constructor (rather than Object.create and assignments) gives the objects one fixed, fast shape.
  const Constructor = RequestContext as unknown as new (args: unknown[]) => OpenAPIRoute & RequestState;
  return (args) => new Constructor(args);
}

function copierOf(value: unknown): ((value: any) => unknown) | null {
  if (typeof value !== "object" || value === null || Object.isFrozen(value) || "_zod" in value) return null;
  if (Array.isArray(value)) return (array: unknown[]) => array.slice();
  if (value instanceof Map) return (map: Map<unknown, unknown>) => new Map(map);
  if (value instanceof Set) return (set: Set<unknown>) => new Set(set);
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype) return (object: object) => ({ ...object });
  if (proto === null) return (object: object) => Object.assign(Object.create(null), object);
  return null;
}

/** Calls an endpoint's protected `handleError` hook, for the request pipeline. */
export function callHandleError(endpoint: OpenAPIRoute, error: unknown): unknown {
  return (endpoint as unknown as { handleError(error: unknown): unknown }).handleError(error);
}

/** An endpoint class as registration accepts it. */
export type OpenAPIRouteClass = (new (params: RouteOptions) => OpenAPIRoute) & { isRoute?: boolean };

/** Whether a value is an endpoint class (by shape, so two loaded copies still agree). */
export function isRouteClass(value: unknown): value is OpenAPIRouteClass {
  return typeof value === "function" && (value as { isRoute?: unknown }).isRoute === true;
}

/** Internal access to the per-request fields, for the request pipeline only. */
export interface RequestState {
  args: unknown[];
  validatedData: Record<string, unknown> | undefined;
  unvalidatedData: UnvalidatedData | undefined;
  authPrincipal: unknown;
}
