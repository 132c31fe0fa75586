import type { OpenAPIRouteSchema, PrincipalOf, UnvalidatedData, ValidatedData } from "./schema-types";

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
 * state (`args`, validated data) lives on that object and is never shared between requests.
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

  schema: OpenAPIRouteSchema = {};
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
    return this.schema;
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
   */
  handleError(error: unknown): unknown {
    return error;
  }
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
