import type { Context, ErrorHandler, Hono, Next } from "hono";
import type { BlankEnv, BlankSchema, Env, MergePath, MergeSchemaPath, RouterRoute, Schema } from "hono/types";
import type { Mounted, WithRoute } from "../../client/route-types";
import type { Failure } from "../../core/route/failure";
import type { OpenAPIRouteClass } from "../../core/route/open-api-route";
import { withoutStackTrace } from "../../errors/exceptions";
import type { ErrorFormat } from "../../errors/render";
import type { OpenAPIRegistryMerger } from "../../openapi/registry";
import type { OpenAPIDocument, OpenAPIVersion } from "../../openapi/types";
import { attachRouter } from "../attached-routers";
import { docsRoutes } from "../docs-routes";
import { derivable, docsRoute, isDerivable, joinPaths, Mount, type RouterHandler } from "../mount";
import type { ResolvedRouterOptions, RouterOptions } from "../options";
import { DOCUMENTED_METHODS, exposeRouter, isRouterWrapper, RouterCore } from "../router-core";
import type { ServedRoute } from "../served-route";
import { hiddenFrameworkHandler, ownErrorHandler } from "./hono-internals";
import { honoIncoming } from "./incoming";

/** What registration accepts: endpoint classes, middleware and plain handlers (the endpoint class last). */
type Handlers = readonly [OpenAPIRouteClass | RouterHandler, ...Array<OpenAPIRouteClass | RouterHandler>];

/**
 * Registers `method path`; the endpoint class among `handlers` is recorded in the route map `S`
 * (types only: nothing is computed until a client looks the route up).
 */
type RegisterMethod<
  E extends Env,
  S extends Schema,
  BasePath extends string,
  F extends ErrorFormat,
  M extends string,
> = <P extends string, H extends Handlers>(
  path: P,
  ...handlers: H
) => HonoOpenAPIRouterType<E, WithRoute<S, M, MergePath<BasePath, P>, H, F>, BasePath, F>;

/**
 * The wrapper `fromHono` returns: the Hono app's own API plus endpoint registration and the document.
 * `S` is the route map registrations build (Hono's route schema shape, so `hc<typeof routes>` is typed);
 * `F` the error format in force, which types error answers.
 */
export type HonoOpenAPIRouterType<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = "/",
  F extends ErrorFormat = "envelope",
> = {
  get: RegisterMethod<E, S, BasePath, F, "get">;
  head: RegisterMethod<E, S, BasePath, F, "head">;
  post: RegisterMethod<E, S, BasePath, F, "post">;
  put: RegisterMethod<E, S, BasePath, F, "put">;
  patch: RegisterMethod<E, S, BasePath, F, "patch">;
  delete: RegisterMethod<E, S, BasePath, F, "delete">;
  /** Registers for every method; undocumented, so not in the route map. */
  all(path: string, ...handlers: Array<OpenAPIRouteClass | RouterHandler>): HonoOpenAPIRouterType<E, S, BasePath, F>;
  on<const M extends string | readonly string[], P extends string, H extends Handlers>(
    method: M,
    path: P,
    ...handlers: H
  ): HonoOpenAPIRouterType<
    E,
    WithRoute<S, Lowercase<M extends readonly (infer One)[] ? One & string : M & string>, MergePath<BasePath, P>, H, F>,
    BasePath,
    F
  >;
  /** Mounts another specroute router (its routes join this document and this route map) or a plain Hono app. */
  route<SubPath extends string, Sub extends Schema>(
    path: SubPath,
    app: { "~routes"?: Sub; isSpecroute: true },
  ): HonoOpenAPIRouterType<E, S & Mounted<Sub, MergePath<BasePath, SubPath>>, BasePath, F>;
  route<SubPath extends string, Sub extends Schema>(
    path: SubPath,
    app: Hono<any, Sub, any>,
  ): HonoOpenAPIRouterType<E, S & MergeSchemaPath<Sub, MergePath<BasePath, SubPath>>, BasePath, F>;
  basePath<SubPath extends string>(path: SubPath): HonoOpenAPIRouterType<E, S, MergePath<BasePath, SubPath>, F>;
  /** The wrapped Hono app (with the `base` option: the app `basePath(base)` returned, which routes are registered on). */
  original: Hono<E, S, BasePath>;
  options: ResolvedRouterOptions;
  /** Components added here join the document (chanfana's way to declare security schemes). */
  registry: OpenAPIRegistryMerger;
  /** The generated document (cached). */
  readonly schema: OpenAPIDocument;
  getGeneratedSchema(version?: OpenAPIVersion, env?: Record<string, unknown>): OpenAPIDocument;
  /** Documented routes, in registration order. */
  readonly routeTable: readonly ServedRoute[];
  /** Compiles every route now (each is otherwise compiled on its first request or the first document). */
  compile(): HonoOpenAPIRouterType<E, S, BasePath, F>;
  readonly isSpecroute: true;
  /** Type-only: the route map, which `createClient<typeof routes>` reads. Undefined at run time. */
  readonly "~routes"?: S;
  // The Hono app type itself (not a copy of its members), so `hc<typeof routes>` accepts the wrapper.
} & Hono<E, S, BasePath>;

// Loaded when fromHono() is first called, so importing specroute never needs hono installed. The
// `.catch` on the import itself tells a bundler (esbuild, wrangler) to leave it to run time where hono
// is not installed, instead of failing the build of an itty-router app.
let httpExceptionModule: Promise<typeof import("hono/http-exception")> | undefined;
const loadHttpException = () => {
  httpExceptionModule ??= import("hono/http-exception").catch((cause: unknown) => {
    throw new Error("fromHono() needs the hono package installed", { cause });
  });
  return httpExceptionModule;
};

/** A rendered failure as Hono's `onError` takes it: an HTTPException answering with the rendered response. */
async function httpExceptionOf(failure: Failure): Promise<unknown> {
  const { HTTPException } = await loadHttpException();
  // Its stack would name only specroute's frames; the error it carries as `cause` keeps its own.
  const { status } = failure.exception;
  return withoutStackTrace(() => new HTTPException(status as 400, { res: failure.response, cause: failure.error }));
}

/** The router core behind `fromHono()` wrappers (chanfana's `HonoOpenAPIHandler`); an endpoint's `params.router`. */
export class HonoRouter extends RouterCore {
  /** Whether `base` is settled: the app's own `basePath()` is read from the first route registered on it. */
  private baseSettled = false;

  getRequest(args: unknown[]): Request {
    return (args[0] as Context).req.raw;
  }

  getUrlParams(args: unknown[]): Record<string, string | undefined> {
    return (args[0] as Context).req.param() as Record<string, string | undefined>;
  }

  getBindings(args: unknown[]): Record<string, unknown> | undefined {
    return (args[0] as Context).env;
  }

  readonly incomingOf = honoIncoming;

  /** Hono's `fetch(request, env, executionCtx)`: the environment, and the execution context where there is one. */
  fetchArgs(args: unknown[]): unknown[] {
    const c = args[0] as Context;
    let executionCtx: unknown;
    try {
      executionCtx = c.executionCtx;
    } catch {
      // Hono's getter throws where the runtime gave none (Node, Bun): there is none to hand on.
    }
    return [c.env, executionCtx];
  }

  /** Framework failures reach Hono's `onError` as HTTPExceptions whose `getResponse()` is the formatted answer. */
  override readonly failureAs = httpExceptionOf;

  /**
   * Settles `base` from the route just registered on `app` (under `prefix`), before any route is prepared:
   * Hono records the base path it applied on the public `app.routes`, which is how an app made with
   * `basePath()` is recognised.
   */
  noteRegistration(app: Hono<any, any, any>, prefix = ""): void {
    if (this.baseSettled) return;
    this.baseSettled = true;
    let applied = (app.routes.at(-1)?.basePath ?? "/").replace(/\/+$/, "");
    if (prefix && applied.endsWith(prefix)) applied = applied.slice(0, -prefix.length);
    const given = this.options.base;
    if (given && applied !== given) {
      const own = applied.endsWith(given) ? applied.slice(0, -given.length) : applied;
      throw new Error(
        `fromHono(): the Hono app already has basePath("${own}"), so the base option is no longer needed; ` +
          `base "${given}" would prefix every route a second time. Remove the base option.`,
      );
    }
    this.options.base = applied;
  }

  /** Registers the document and docs pages; a mount leaves them out, so they never answer for a parent. */
  registerDocsRoutes(app: Hono<any, any, any>): void {
    for (const [path, handler] of docsRoutes(this)) {
      app.get(
        path,
        docsRoute(async (c: Context, next: Next) => {
          const response = await handler([c]);
          if (response) return response;
          await next();
        }),
      );
      this.noteRegistration(app);
    }
  }
}

/**
 * Wraps a Hono app so endpoint classes can be registered on it; the app keeps working as before.
 * Routes and docs are served under the app's `basePath()`, or under the `base` option (not both).
 *
 * @example
 * const app = new Hono().basePath("/api");
 * const openapi = fromHono(app, { schema: { info: { title: "Tasks", version: "1.0.0" } } });
 * openapi.get("/tasks/:id", GetTask); // served and documented at /api/tasks/{id}, docs at /api/docs
 * export default app;
 */
export function fromHono<M extends Hono<any, any, any>, F extends ErrorFormat = "envelope", Base extends string = "">(
  app: M,
  options?: RouterOptions & { errorFormat?: F; base?: Base },
  // Inferring from a Hono subclass instance adds "" to the base path candidates; Hono's own base is never "".
): M extends Hono<infer E, infer S, infer BP>
  ? HonoOpenAPIRouterType<E, S, MergePath<Exclude<BP, "">, Base>, F>
  : never {
  void loadHttpException();
  // Errors always go to Hono's onError (chanfana fixes raiseOnError on for Hono).
  const core = new HonoRouter({ ...options, raiseOnError: true });
  const based = core.options.base ? app.basePath(core.options.base) : app;
  // What the app serves (not a basePath() clone of it), so its own onError, set before or after, applies.
  core.entryFetch = (request, ...rest) => app.fetch(request, ...(rest as [any, any]));
  core.registerDocsRoutes(based);
  const router = facade(core, based, "");
  // Modules export the app (`export default app`): the CLI finds this router through it or its fetch.
  attachRouter(router, app, app.fetch);
  return router as any;
}

/** The object users hold: inherits the Hono app's own members and overrides registration. */
function facade(core: HonoRouter, app: Hono<any, any, any>, prefix: string): HonoOpenAPIRouterType<any, any, any> {
  const wrapper = Object.create(app) as any;
  const register = (methods: readonly string[], path: string, handlers: unknown[], documented: boolean) => {
    for (const method of methods) {
      const lower = method.toLowerCase();
      const listed = documented && (DOCUMENTED_METHODS as readonly string[]).includes(lower);
      app.on(method.toUpperCase(), path, ...(core.registerRoute(lower, prefix + path, handlers, listed) as [any]));
    }
    // The base is settled before the routes are checked: their paths include it.
    core.noteRegistration(app, prefix);
    core.checkRegistrations();
    return wrapper;
  };
  for (const method of DOCUMENTED_METHODS) {
    wrapper[method] = (path: string, ...handlers: unknown[]) => register([method], path, handlers, true);
  }
  wrapper.all = (path: string, ...handlers: unknown[]) => register(["all"], path, handlers, false);
  wrapper.on = (methods: string | string[], path: string, ...handlers: unknown[]) =>
    register(Array.isArray(methods) ? methods : [methods], path, handlers, true);
  wrapper.route = (path: string, sub: any) => {
    const documentPath = (nestedPath: string) => joinPaths(prefix + path, nestedPath);
    // A plain Hono app is mounted the same way: endpoints a specroute router put into it get this router's security.
    if (isRouterWrapper(sub)) mountRouter(core.mountOf(sub.core, documentPath), app, path, sub.original);
    else mountRouter(new Mount(core, documentPath), app, path, sub);
    return wrapper;
  };
  wrapper.basePath = (path: string) => facade(core, app.basePath(path), prefix + path);
  // Hono's prototype methods use private fields, so they must run on the app itself.
  wrapper.mount = app.mount.bind(app);
  return exposeRouter(wrapper, core, app);
}

/**
 * Mounts a specroute router's app under `path` as Hono's `route()` would, through Hono's public API:
 * each route of the nested app is registered again on `app.basePath(path)`, a handler the framework
 * registered derived for this mount (with this router's security, docs routes left out), and each
 * wrapped in the nested app's `onError` when it has one. What this registers is derivable again, so
 * a mount further out derives it the same way, at any depth.
 */
function mountRouter(mount: Mount, app: Hono<any, any, any>, path: string, nested: Hono<any, any, any>) {
  const onError = ownErrorHandler(nested);
  const under = app.basePath(path);
  for (const route of nested.routes) {
    const handler = mount.handler(route.handler, route.path);
    if (handler === undefined) continue;
    if (handler === route.handler && mount.addsLayer) refuseHidden(route);
    const registered = onError ? answeringErrors(handler, onError) : handler;
    under.on(route.method, [route.path], registered as Parameters<typeof under.on>[2]);
  }
}

/**
 * `handler` with its errors answered by a nested app's `onError`, as Hono's `route()` wraps the routes
 * of an app that has one: an Error thrown goes to `onError`, whose answer becomes the response. A
 * mount further out derives the handler inside and wraps it again.
 */
function answeringErrors(handler: RouterHandler, onError: ErrorHandler<any>): RouterHandler {
  const answering = async (c: Context, next: Next) => {
    let res: Response | undefined;
    let isError = false;
    try {
      res = (await handler(c, next)) as Response | undefined;
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      c.error = err;
      res = await onError(err, c);
      isError = true;
    }
    if (res && (c.finalized === false || isError)) c.res = res;
    return c.res;
  };
  return derivable(answering, (mount, path) => {
    const derived = mount.handler(handler, path);
    if (derived === undefined || derived === handler) return derived && answering;
    return answeringErrors(derived, onError);
  });
}

/**
 * A route Hono's own `route()` copied with a nested app's `onError` around one of the framework's
 * handlers cannot be derived for a mount: under a router with its own security it would be served
 * without it, so that mount is refused.
 */
function refuseHidden(route: RouterRoute): void {
  if (hiddenFrameworkHandler(route.handler, isDerivable) === undefined) return;
  throw new Error(
    `route(): ${route.method} ${route.path} was mounted into its app with Hono's own route(), around an onError, ` +
      "so this router's auth and options cannot reach it; mount specroute routers with route() on the router fromHono() returned",
  );
}
