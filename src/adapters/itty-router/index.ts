import type { Mounted, WithRoute } from "../../client/route-types";
import { requestOf } from "../../core/request/incoming";
import type { OpenAPIRouteClass } from "../../core/route/open-api-route";
import type { ErrorFormat } from "../../errors/render";
import type { OpenAPIRegistryMerger } from "../../openapi/registry";
import type { OpenAPIDocument, OpenAPIVersion } from "../../openapi/types";
import { attachRouter } from "../attached-routers";
import { docsRoutes } from "../docs-routes";
import { derivable, docsRoute, joinPaths, type Mount, type RouterHandler, stripBase } from "../mount";
import type { ResolvedRouterOptions, RouterOptions } from "../options";
import { DOCUMENTED_METHODS, exposeRouter, isRouterWrapper, RouterCore } from "../router-core";
import type { ServedRoute } from "../served-route";
import { type IttyRequest, ittyIncoming, ittyUrlParams } from "./incoming";

/** The part of an itty-router router the adapter uses (v5 and v6 `Router`, `AutoRouter`, `IttyRouter`). */
interface IttyLike {
  fetch: (request: Request, ...args: any[]) => Promise<any>;
  routes: unknown[];
  [method: string]: any;
}

/** What registration accepts: endpoint classes, middleware and plain handlers (the endpoint class last). */
type Handlers = readonly [OpenAPIRouteClass | RouterHandler, ...Array<OpenAPIRouteClass | RouterHandler>];

/**
 * Registers `method path`; the endpoint class among `handlers` is recorded in the route map `S`
 * (types only: nothing is computed until a client looks the route up).
 */
type RegisterMethod<R, S, F extends ErrorFormat, M extends string> = <P extends string, H extends Handlers>(
  path: P,
  ...handlers: H
) => IttyOpenAPIRouterType<R, WithRoute<S, M, P, H, F>, F>;

/**
 * The wrapper `fromIttyRouter` returns: the router's own API plus endpoint registration and the document.
 * `S` is the route map registrations build (paths as registered, relative to the router's base), which
 * `createClient<typeof router>` reads; `F` the error format in force, which types error answers.
 */
export type IttyOpenAPIRouterType<R = IttyLike, S = {}, F extends ErrorFormat = "envelope"> = {
  get: RegisterMethod<R, S, F, "get">;
  head: RegisterMethod<R, S, F, "head">;
  post: RegisterMethod<R, S, F, "post">;
  put: RegisterMethod<R, S, F, "put">;
  patch: RegisterMethod<R, S, F, "patch">;
  delete: RegisterMethod<R, S, F, "delete">;
  /** `all(path, router)` mounts a specroute router (chanfana style, the nested router carries its own `base`). */
  all: ((path: string, ...handlers: Array<OpenAPIRouteClass | RouterHandler>) => IttyOpenAPIRouterType<R, S, F>) &
    ((path: string, router: IttyOpenAPIRouterType<any, any, any>) => IttyOpenAPIRouterType<R, S, F>);
  /**
   * Mounts another specroute router's endpoints under `path` (its routes join this route map), with its
   * own `before`, `catch` and `finally` around them, as `all()` mounts one.
   */
  route<Prefix extends string, Sub>(
    path: Prefix,
    router: IttyOpenAPIRouterType<any, Sub, any>,
  ): IttyOpenAPIRouterType<R, S & Mounted<Sub, Prefix>, F>;
  fetch: (request: Request, ...args: any[]) => Promise<any>;
  original: R;
  options: ResolvedRouterOptions;
  /** Components added here join the document (chanfana's way to declare security schemes). */
  registry: OpenAPIRegistryMerger;
  readonly schema: OpenAPIDocument;
  getGeneratedSchema(version?: OpenAPIVersion, env?: Record<string, unknown>): OpenAPIDocument;
  readonly routeTable: readonly ServedRoute[];
  /** Compiles every route now (each is otherwise compiled on its first request or the first document). */
  compile(): IttyOpenAPIRouterType<R, S, F>;
  readonly isSpecroute: true;
  /** Type-only: the route map, which `createClient<typeof router>` reads. Undefined at run time. */
  readonly "~routes"?: S;
} & Omit<R, "get" | "head" | "post" | "put" | "patch" | "delete" | "all" | "route" | "fetch">;

/** The router core behind `fromIttyRouter()` wrappers (chanfana's `IttyRouterOpenAPIHandler`); an endpoint's `params.router`. */
export class IttyRouter extends RouterCore {
  getRequest(args: unknown[]): Request {
    return requestOf(args[0]);
  }

  getUrlParams(args: unknown[]): Record<string, string | undefined> {
    return ittyUrlParams(args);
  }

  getBindings(args: unknown[]): Record<string, unknown> | undefined {
    return args[1] as Record<string, unknown> | undefined;
  }

  readonly incomingOf = ittyIncoming;

  /**
   * Registers the docs routes; a mount leaves them out, so they never answer for a parent. As in
   * chanfana, `base` prefixes the document (and the pages' files) but not the pages; when the router
   * was made with that same `base` itself, the document is not prefixed twice. itty-router tries its
   * routes one by one, so the docs routes are one entry of its public `routes`, whose pattern is theirs
   * joined: every other GET tests one pattern for them, not one each.
   */
  registerDocsRoutes(router: IttyLike): void {
    const { base, docs_url, redoc_url, scalar_url } = this.options;
    const pages = new Set([docs_url, redoc_url, scalar_url]);
    const first = router.routes.length;
    for (const [path, handler] of docsRoutes(this)) {
      const serve = (...args: unknown[]) => handler(args);
      router.get(path, serve);
      if (!base || pages.has(path)) continue;
      // itty-router records each route's full path in its public `routes`: when its own base already
      // puts this route at base + path, it is where the pages link it; otherwise register it there.
      const linked = joinPaths(base, path);
      const recorded = (router.routes.at(-1) as unknown[] | undefined)?.[3];
      if (recorded === linked) continue;
      router.routes.pop();
      router.get(linked, serve);
    }
    const entries = router.routes.splice(first) as IttyRouteEntry[];
    if (entries.length === 0) return;
    // Joined without their parameter names (the docs routes read none; a name may not repeat in one pattern).
    const pattern = new RegExp(entries.map(([, regex]) => regex.source.replace(/\(\?<\w+>/g, "(?:")).join("|"));
    const dispatch = docsRoute((...args: unknown[]) => {
      const request = args[0] as IttyRequest & { route?: string };
      const { pathname } = new URL(request.url);
      const entry = entries.find(([, regex]) => regex.test(pathname))!;
      request.route = entry[3];
      return (entry[2][0] as RouterHandler)(...args);
    });
    router.routes.push(["GET", pattern, [dispatch], entries[0]![3]]);
  }
}

/** One entry of an itty-router `routes` array. */
type IttyRouteEntry = [method: string, pattern: RegExp, handlers: unknown[], path: string];

/**
 * Wraps an itty-router router so endpoint classes can be registered on it.
 *
 * @example
 * const router = fromIttyRouter(Router());
 * router.get("/tasks/:id", GetTask);
 * export default { fetch: router.fetch };
 */
export function fromIttyRouter<R extends IttyLike, F extends ErrorFormat = "envelope">(
  router: R,
  options?: RouterOptions & { errorFormat?: F },
): IttyOpenAPIRouterType<R, {}, F> {
  // raiseOnError is off whatever is passed, as chanfana strips it: framework errors are answered here.
  const core = new IttyRouter({ ...options, raiseOnError: false });
  core.registerDocsRoutes(router);
  const wrapper = Object.create(router) as any;
  const register = (method: string, path: string, handlers: unknown[], documented: boolean) => {
    router[method](path, ...core.registerRoute(method, path, handlers, documented));
    core.checkRegistrations();
    return wrapper;
  };
  for (const method of DOCUMENTED_METHODS) {
    wrapper[method] = (path: string, ...handlers: unknown[]) => register(method, path, handlers, true);
  }
  wrapper.all = (path: string, ...handlers: unknown[]) => {
    const nested = handlers.length === 1 ? (handlers[0] as any) : undefined;
    if (!isRouterWrapper(nested)) return register("all", path, handlers, false);
    // chanfana's style: the nested router has its own base, so its paths are where the parent serves them.
    const mount = core.mountOf(nested.core, (nestedPath) => stripBase(nestedPath, core.options.base));
    router.all(path, mountedRouter(recordOf(nested.original), mount));
    return wrapper;
  };
  wrapper.route = (prefix: string, nested: any) => {
    if (!isRouterWrapper(nested)) throw new TypeError("route() takes a router made by fromIttyRouter()");
    // A router of routes it holds (its own steps', or a nested one's) routes them at their full paths,
    // under the prefix as this router routes it: its own base included.
    const mount = core.mountOf(nested.core, (nestedPath) => joinPaths(prefix, nestedPath), routedPath(router, prefix));
    const record = recordOf(nested.original);
    // Its own before/catch/finally guard and answer every request under the prefix, as all() mounts it.
    if (hasOwnSteps(record)) {
      router.all(joinPaths(prefix, "*"), mountedRouter(record, mount));
      return wrapper;
    }
    // Otherwise its routes are registered again here (itty-router cannot re-base another router's
    // compiled routes), each derived for this mount, under the prefix: no second router to pass through.
    for (const [method, path, handlers] of record.routes) {
      const derived = mount.handlers(handlers, path);
      if (derived.length > 0) router[method.toLowerCase()](joinPaths(prefix, path), ...derived);
    }
    return wrapper;
  };
  // Workers modules export `{ fetch: router.fetch }`: the CLI finds this router through that fetch.
  attachRouter(wrapper, router, router.fetch);
  return exposeRouter(wrapper, core, router);
}

// Loaded when a router is first mounted with all(), so importing specroute never needs itty-router
// installed. The `.catch` on the import itself tells a bundler (esbuild, wrangler) to leave it to run
// time where itty-router is not installed, instead of failing the build of a Hono app.
let ittyModule: Promise<typeof import("itty-router")> | undefined;
const loadItty = () => {
  ittyModule ??= import("itty-router").catch((cause: unknown) => {
    throw new Error("Mounting an itty-router router needs the itty-router package installed", { cause });
  });
  return ittyModule;
};

/** One route of an itty-router router, as its public `routes` records it (path included, pattern left out). */
type RouteRecord = [method: string, path: string, handlers: readonly unknown[]];

/** What a mount carries over of an itty-router router: its routes and its own before/catch/finally. */
interface RouterRecord {
  routes: RouteRecord[];
  before?: unknown;
  catch?: unknown;
  finally?: unknown;
}

/** A router's routes (a snapshot) and its own options, read only when set: any other property registers a route. */
function recordOf(router: IttyLike): RouterRecord {
  const routes = (router.routes as IttyRouteEntry[]).map(
    ([method, , handlers, path]): RouteRecord => [method, path, handlers],
  );
  const own = (key: string) => (Object.hasOwn(router, key) ? router[key] : undefined);
  return { routes, before: own("before"), catch: own("catch"), finally: own("finally") };
}

/** `path` as `router` routes it: under its own `base`, which itty-router adds to each route it records but does not expose. */
function routedPath(router: IttyLike, path: string): string {
  router.all(path, () => undefined);
  return (router.routes.pop() as IttyRouteEntry)[3];
}

/** Whether a router has its own `before`, `catch` or `finally`, which a mount must keep around its routes. */
function hasOwnSteps({ before, catch: onError, finally: after }: RouterRecord): boolean {
  return before !== undefined || onError !== undefined || after !== undefined;
}

/**
 * A router mounted with `all(path, router)` (or `route()`, when it has its own steps) as one mount serves it: an itty-router `Router` over the
 * nested router's routes, each derived for the mount (its docs routes left out), with the nested
 * router's own `before`, `catch` and `finally`.
 */
function mountedRouter(nested: RouterRecord, mount: Mount): RouterHandler {
  const routes = nested.routes.flatMap(([method, path, handlers]): RouteRecord[] => {
    const derived = mount.handlers(handlers, path);
    return derived.length > 0 ? [[method, joinPaths(mount.routingPrefix, path), derived]] : [];
  });
  const record: RouterRecord = { ...nested, routes };
  // Started now so the first request rarely waits; a failure surfaces on that request, not as an unhandled rejection.
  loadItty().catch(() => undefined);
  let fetch: ((...args: unknown[]) => Promise<unknown>) | undefined;
  return derivable(
    async (...args: unknown[]) => {
      fetch ??= routerOf((await loadItty()).Router, record);
      return fetch(...args);
    },
    (outer) => mountedRouter(record, outer),
  );
}

/** An itty-router `Router` with `record`'s routes, registered through its own API. */
function routerOf(
  Router: typeof import("itty-router").Router,
  record: RouterRecord,
): (...args: unknown[]) => Promise<unknown> {
  const { before, catch: onError, finally: after } = record;
  const router = Router({ before, catch: onError, finally: after } as any) as any;
  for (const [method, path, handlers] of record.routes) router[method.toLowerCase()](path, ...handlers);
  return router.fetch;
}
