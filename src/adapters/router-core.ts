import { FetchIncoming, type IncomingRequest, requestOf } from "../core/request/incoming";
import type { FailureAs } from "../core/route/failure";
import { isRouteClass, type OpenAPIRouteClass } from "../core/route/open-api-route";
import type { EnvPredicate } from "../core/schema-types";
import type { OpenAPIDocument, OpenAPIVersion } from "../openapi/types";
import { derivable, docsRoute, Mount, type RouterHandler } from "./mount";
import { type DocumentContext, type ResolvedRouterOptions, type RouterOptions, resolveOptions } from "./options";
import { messageOf, registryOf, ServedDocument } from "./served-document";
import { type Registration, RouteDefinition, type RouteHost, type ServedRoute, toPredicates } from "./served-route";

/** Methods that register a documented operation. */
export const DOCUMENTED_METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

/**
 * What every router adapter shares: the route table, registration (routes are compiled when first
 * needed), serving a request and delivering its failure, and the cached document. An adapter supplies
 * how to read its handler arguments and how its router takes a failure; it registers handlers through
 * its router's public API.
 */
export abstract class RouterCore implements RouteHost {
  readonly options: ResolvedRouterOptions;
  /** Documented routes, nested routers' included, in registration order. */
  readonly routes: ServedRoute[] = [];
  /** The router's `hidden` option as predicates, which routes it serves (and mounts of it) inherit. */
  readonly hiddenPredicates: readonly EnvPredicate[];
  readonly document: ServedDocument;
  /**
   * The fetch of the app the router was attached to (Hono registers on `app.basePath(base)` with the
   * `base` option): a request the app builds itself (specroute/mcp's tool calls) is dispatched there, so
   * it meets the app's own `onError` as an HTTP request does. Unset: the router's own fetch.
   */
  entryFetch: ((request: Request, ...rest: unknown[]) => unknown) | undefined;
  /** Every route this router serves, documented or not, mounted ones included: what `compile()` compiles. */
  private readonly served: ServedRoute[] = [];
  /** Routes registered but not yet checked: checked once the adapter has settled the router's base. */
  private readonly unchecked: RouteDefinition[] = [];
  /** What the router's error hook is thrown for a failure (see `FailureAs`); unset: the rendered response answers. */
  readonly failureAs: FailureAs | undefined = undefined;

  constructor(options?: RouterOptions) {
    this.options = resolveOptions(options);
    this.hiddenPredicates = toPredicates(this.options.hidden);
    this.document = new ServedDocument(this);
  }

  /** The fetch Request of a call. */
  abstract getRequest(args: unknown[]): Request;
  /** The URL parameters the router matched for a call. */
  abstract getUrlParams(args: unknown[]): Record<string, string | undefined>;
  /** The environment bindings of a call (Workers `env`). */
  abstract getBindings(args: unknown[]): Record<string, unknown> | undefined;
  /** A call's request, as the core reads it: a plain function, which a route's handler holds and calls itself. */
  abstract readonly incomingOf: (args: unknown[]) => IncomingRequest;

  /** The client's address as the runtime gives it for a call (the socket's, Bun's `requestIP`, Deno's `remoteAddr`). */
  clientAddress(args: unknown[]): string | null | undefined {
    return this.incomingOf(args).clientAddress();
  }
  /**
   * What the router's `fetch` was given after the Request for a call (itty-router hands them on as they
   * are): a request the app builds itself is dispatched again with them (`specroute/mcp`'s tool calls).
   */
  fetchArgs(args: unknown[]): unknown[] {
    return args.slice(1);
  }
  /** `request` read for `validateRequest()`, with the path parameters of the call `args` (if any). */
  incomingFor(request: Request, args: unknown[]): IncomingRequest {
    return new FetchIncoming(requestOf(request), args, args.length > 0 ? this.getUrlParams(args) : {});
  }
  /**
   * Records the endpoint classes among `handlers` for `method path` (relative to the base) and returns
   * the handlers to give the router; other handlers (middleware) pass through unchanged.
   */
  registerRoute(method: string, path: string, handlers: unknown[], documented = true): RouterHandler[] {
    const registration: Registration = { method, path, documented };
    return handlers.map((handler) => {
      if (!isRouteClass(handler)) return handler as RouterHandler;
      const definition = new RouteDefinition(this, handler as OpenAPIRouteClass, registration);
      this.unchecked.push(definition);
      this.addServed(definition.served);
      return this.handlerFor(definition.served);
    });
  }

  /** Runs the registration checks of the routes registered since the last call (see `RouteDefinition`). */
  checkRegistrations(): void {
    for (const definition of this.unchecked.splice(0)) definition.checkRegistration();
  }

  /** Adds a route this router serves: its own, or one derived for a mount. */
  addServed(served: ServedRoute): void {
    this.served.push(served);
    if (!served.definition.documented) return;
    this.routes.push(served);
    this.document.invalidate();
  }

  /**
   * Marks a handler the router serves for itself, as its docs pages are (`specroute/mcp`'s endpoint): a
   * mount leaves it out. Asked of the router, so the mark is the one its own copy of specroute reads.
   */
  ownHandler<H extends RouterHandler>(handler: H): H {
    return docsRoute(handler);
  }

  /** The handler serving `served`; a mount registers its own version of it. */
  handlerFor(served: ServedRoute): RouterHandler {
    return derivable(served.handler(), (mount, path) => this.handlerFor(mount.mounted(served, path)));
  }

  /**
   * A mount of `nested` under this router (see `Mount`); its registry's components join this one's, as
   * chanfana merges a nested router's registry into its parent's when it is mounted.
   */
  mountOf(nested: RouterCore, documentPath: (path: string) => string, routingPrefix?: string): Mount {
    registryOf(this).merge(registryOf(nested));
    return new Mount(this, documentPath, routingPrefix);
  }

  /**
   * Compiles every route now and builds the document (at start-up, in a test, the CLI), so a route
   * that cannot be served or documented fails here, named, instead of at its first request; otherwise
   * each route is compiled on first use. Throws the route's own error, or one listing every route.
   */
  compile(): void {
    this.checkRegistrations();
    const failures: unknown[] = [];
    for (const served of this.served) {
      try {
        served.compiledRoute();
      } catch (err) {
        failures.push(err);
      }
    }
    // What only the document finds (a schema zod cannot write, two schemas sharing an id) fails here too.
    if (failures.length === 0) {
      const { failures: left } = this.document.get(this.options.openapiVersion, () => ({ env: {}, args: [] }));
      for (const { route, error } of left) failures.push(new Error(`${route}: ${messageOf(error)}`, { cause: error }));
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new Error(
        `${failures.length} routes cannot be served or documented:\n${failures.map(messageOf).join("\n")}`,
      );
    }
  }

  /**
   * The OpenAPI document of every documented route, built once and cached; `env` gives the document that
   * environment sees (`schema` functions, hidden predicates).
   */
  getGeneratedSchema(version: OpenAPIVersion = this.options.openapiVersion, env: Record<string, unknown> = {}) {
    return this.document.get(version, () => ({ env, args: [] })).doc as OpenAPIDocument;
  }

  /** Drops the cached document, for changes the route table does not see (components added to `registry`). */
  invalidateDocument(): void {
    this.document.invalidate();
  }

  /** @internal How many documents were built: what the environment tests count. */
  get documentBuilds(): number {
    return this.document.builds;
  }

  /** What a document built for this call sees. */
  contextOf(args: unknown[]): DocumentContext {
    return { env: this.getBindings(args) ?? {}, request: this.getRequest(args), args };
  }
}

const SPECROUTE = Symbol.for("specroute.router");

/** Gives an adapter's wrapper the members every specroute router shares, and marks it as one. */
export function exposeRouter<W extends object>(wrapper: W, core: RouterCore, original: unknown): W {
  return Object.defineProperties(wrapper, {
    [SPECROUTE]: { value: true },
    isSpecroute: { value: true },
    core: { value: core },
    original: { value: original },
    options: { value: core.options },
    registry: { value: registryOf(core) },
    // Older wrangler versions read `middleware` off the exported router (cloudflare/workers-sdk#5420).
    middleware: { get: () => [] },
    routeTable: { get: () => core.routes },
    schema: { get: () => core.getGeneratedSchema() },
    getGeneratedSchema: {
      value: (version?: OpenAPIVersion, env?: Record<string, unknown>) => core.getGeneratedSchema(version, env),
    },
    compile: {
      value: () => {
        core.compile();
        return wrapper;
      },
    },
  });
}

/** Whether a value is a wrapper made by fromHono()/fromIttyRouter() (by its marker, so copies agree). */
export function isRouterWrapper(value: unknown): value is { core: RouterCore; original: any; fetch?: any } {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SPECROUTE] === true;
}
