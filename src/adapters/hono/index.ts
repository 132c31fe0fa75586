import type { Context, Hono, Next } from "hono";
import type { BlankEnv, BlankSchema, Env, MergePath, MergeSchemaPath, RouterRoute, Schema } from "hono/types";
import type { Mounted, WithRoute } from "../../client/route-types";
import { keepCachedBody } from "../../core/kept-body";
import type { Failure } from "../../core/pipeline";
import { requestOf } from "../../core/request-like";
import type { OpenAPIRouteClass } from "../../core/route";
import type { ErrorFormat } from "../../errors/render";
import type { OpenAPIRegistryMerger } from "../../openapi/registry";
import type { OpenAPIDocument } from "../../openapi/types";
import type { ResolvedRouterOptions, RouterOptions } from "../options";
import {
  asDocsRoute,
  DOCUMENTED_METHODS,
  exposeRouter,
  isRouterWrapper,
  joinPaths,
  type Mount,
  type RouteEntry,
  RouterBase,
  type RouterHandler,
  remountable,
} from "../router-base";

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
  getGeneratedSchema(version?: "3" | "3.1", env?: Record<string, unknown>): OpenAPIDocument;
  /** Documented routes, in registration order. */
  readonly routeTable: readonly RouteEntry[];
  readonly isSpecroute: true;
  /** Type-only: the route map, which `createClient<typeof routes>` reads. Undefined at run time. */
  readonly "~routes"?: S;
  // The Hono app type itself (not a copy of its members), so `hc<typeof routes>` accepts the wrapper.
} & Hono<E, S, BasePath>;

// Loaded when fromHono() is first called, so importing specroute never needs hono installed.
let httpExceptionModule: Promise<typeof import("hono/http-exception")> | undefined;
const loadHttpException = () => {
  httpExceptionModule ??= import("hono/http-exception");
  return httpExceptionModule;
};

/** The router core behind `fromHono()` wrappers (chanfana's `HonoOpenAPIHandler`); an endpoint's `params.router`. */
export class HonoRouter extends RouterBase {
  /** Whether `base` is settled: the app's own `basePath()` is read from the first route registered on it. */
  private baseSettled = false;

  getRequest(args: unknown[]): Request {
    const { req } = args[0] as Context;
    // A middleware that read the body through c.req consumed the stream: Hono's copy is read instead.
    for (const _ in req.bodyCache) {
      if (req.raw.bodyUsed) keepCachedBody(req.raw, req.bodyCache as Record<string, Promise<unknown>>);
      break;
    }
    return requestOf(req.raw);
  }

  getUrlParams(args: unknown[]): Record<string, string | undefined> {
    return (args[0] as Context).req.param() as Record<string, string | undefined>;
  }

  getBindings(args: unknown[]): Record<string, unknown> | undefined {
    return (args[0] as Context).env;
  }

  /** Framework failures reach Hono's `onError` as HTTPExceptions whose `getResponse()` is the formatted answer. */
  protected async deliverFailure(failure: Failure): Promise<Response> {
    const { HTTPException } = await loadHttpException();
    throw new HTTPException(failure.exception.status as 400, { res: failure.response, cause: failure.error });
  }

  /**
   * Settles `base` from the route just registered on `app` (under `prefix`): Hono records the base path
   * it applied on the public `app.routes`, which is how an app made with `basePath()` is recognised.
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
    for (const [path, handler] of this.docsRoutes()) {
      app.get(
        path,
        asDocsRoute(async (c: Context, next: Next) => {
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
  core.registerDocsRoutes(based);
  return facade(core, based, "") as any;
}

/** The object users hold: inherits the Hono app's own members and overrides registration. */
function facade(core: HonoRouter, app: Hono<any, any, any>, prefix: string): HonoOpenAPIRouterType<any, any, any> {
  const wrapper = Object.create(app) as any;
  const register = (method: string, path: string, handlers: unknown[], documented: boolean) => {
    const mapped = core.registerRoute(method, prefix + path, handlers, documented);
    app.on(method.toUpperCase(), path, ...(mapped as [any]));
    core.noteRegistration(app, prefix);
    return wrapper;
  };
  for (const method of DOCUMENTED_METHODS) {
    wrapper[method] = (path: string, ...handlers: unknown[]) => register(method, path, handlers, true);
  }
  wrapper.all = (path: string, ...handlers: unknown[]) => {
    app.all(path, ...(core.registerRoute("all", prefix + path, handlers, false) as [any]));
    core.noteRegistration(app, prefix);
    return wrapper;
  };
  wrapper.on = (methods: string | string[], path: string, ...handlers: unknown[]) => {
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      const lower = method.toLowerCase();
      register(lower, path, handlers, (DOCUMENTED_METHODS as readonly string[]).includes(lower));
    }
    return wrapper;
  };
  wrapper.route = (path: string, sub: any) => {
    if (isRouterWrapper(sub)) {
      // A nested app's own base path is part of where Hono serves its routes, so of where they are documented.
      const mountedAt = joinPaths(prefix + path, sub.core.options.base);
      const view = mountedView(sub.original, core.mountRouter(mountedAt, sub.core, "relative"));
      const added = app.routes.length;
      app.route(path, view);
      keepRemountable(app.routes.slice(added), view);
    } else {
      app.route(path, sub);
    }
    return wrapper;
  };
  wrapper.basePath = (path: string) => facade(core, app.basePath(path), prefix + path);
  // Hono's prototype methods use private fields, so they must run on the app itself.
  wrapper.mount = app.mount.bind(app);
  return exposeRouter(wrapper, core, app);
}

/**
 * The nested app as one mount serves it, for Hono's `route()`, which copies an app's public `routes`:
 * the same app with the framework's handlers replaced by the mount's and its docs routes left out.
 */
function mountedView(nested: Hono<any, any, any>, mount: Mount): Hono<any, any, any> {
  const routes = nested.routes.flatMap((route) => {
    const handler = mount.handler(route.handler);
    return handler ? [{ ...route, handler }] : [];
  });
  // Everything else (the nested app's error handler included) is the nested app's own.
  return Object.create(nested, { routes: { value: routes } });
}

/**
 * Hono wraps each handler of an app that has its own onError; such a wrapper around one of the
 * framework's handlers stays remountable, so a mount further out still derives the route inside it,
 * wrapped again by Hono the same way. `added` are the routes `route()` added for `view`'s, in order.
 */
function keepRemountable(added: RouterRoute[], view: Hono<any, any, any>): void {
  added.forEach((route, index) => {
    const inner = view.routes[index];
    if (!inner || route.handler === inner.handler) return;
    remountable(route.handler, (mount) => {
      const handler = mount.handler(inner.handler);
      if (!handler || handler === inner.handler) return handler && route.handler;
      // Hono's own route() does the wrapping (with the nested app's onError), on a scratch app.
      const one = Object.create(view, { routes: { value: [{ ...inner, handler }] } }) as Hono<any, any, any>;
      const scratch: Hono<any, any, any> = new (view.constructor as new () => Hono<any, any, any>)();
      scratch.route("/", one);
      keepRemountable(scratch.routes, one);
      return scratch.routes[0]!.handler as RouterHandler;
    });
  });
}
