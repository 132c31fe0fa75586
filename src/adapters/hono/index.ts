import type { Context, Hono, Next } from "hono";
import type { BlankEnv, BlankSchema, Env, Schema } from "hono/types";
import { keepCachedBody } from "../../core/kept-body";
import type { Failure } from "../../core/pipeline";
import { requestOf } from "../../core/request-like";
import type { OpenAPIRouteClass } from "../../core/route";
import type { OpenAPIDocument } from "../../openapi/types";
import type { ResolvedRouterOptions, RouterOptions } from "../options";
import {
  DOCUMENTED_METHODS,
  exposeRouter,
  isRouterWrapper,
  type RouteEntry,
  RouterBase,
  type RouterHandler,
} from "../router-base";

/** Route registration as the wrapper offers it: endpoint classes, middleware and plain handlers. */
type RegisterMethod<R> = (path: string, ...handlers: Array<OpenAPIRouteClass | RouterHandler>) => R;

/** The wrapper `fromHono` returns: the Hono app's own API plus endpoint registration and the document. */
export type HonoOpenAPIRouterType<
  E extends Env = BlankEnv,
  S extends Schema = BlankSchema,
  BasePath extends string = "/",
> = {
  get: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  head: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  post: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  put: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  patch: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  delete: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  all: RegisterMethod<HonoOpenAPIRouterType<E, S, BasePath>>;
  on(
    method: string | string[],
    path: string,
    ...handlers: Array<OpenAPIRouteClass | RouterHandler>
  ): HonoOpenAPIRouterType<E, S, BasePath>;
  /** Mounts another specroute router (its routes join this document) or a plain Hono app. */
  route(
    path: string,
    app: HonoOpenAPIRouterType<any, any, any> | Hono<any, any, any>,
  ): HonoOpenAPIRouterType<E, S, BasePath>;
  basePath(path: string): HonoOpenAPIRouterType<E, S, BasePath>;
  /** The wrapped Hono app. */
  original: Hono<E, S, BasePath>;
  options: ResolvedRouterOptions;
  /** The generated document (cached). */
  readonly schema: OpenAPIDocument;
  getGeneratedSchema(version?: "3" | "3.1"): OpenAPIDocument;
  /** Documented routes, in registration order. */
  readonly routeTable: readonly RouteEntry[];
  readonly isSpecroute: true;
} & Omit<
  Hono<E, S, BasePath>,
  "get" | "head" | "post" | "put" | "patch" | "delete" | "all" | "on" | "route" | "basePath"
>;

// Loaded when fromHono() is first called, so importing specroute never needs hono installed.
let httpExceptionModule: Promise<typeof import("hono/http-exception")> | undefined;
const loadHttpException = () => {
  httpExceptionModule ??= import("hono/http-exception");
  return httpExceptionModule;
};

class HonoRouter extends RouterBase {
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

  /** Failures reach Hono's `onError` as HTTPExceptions carrying the formatted response. */
  protected async deliverFailure(failure: Failure): Promise<Response> {
    const { HTTPException } = await loadHttpException();
    throw new HTTPException(failure.exception.status as 400, { res: failure.response, cause: failure.error });
  }

  /** Registers the document and docs pages; a mounted router's copies fall through to the next handler. */
  registerDocsRoutes(app: Hono<any, any, any>): void {
    for (const [path, handler] of this.docsRoutes()) {
      app.get(path, async (c: Context, next: Next) => {
        const response = await handler([c]);
        if (response) return response;
        await next();
      });
    }
  }
}

/**
 * Wraps a Hono app so endpoint classes can be registered on it; the app keeps working as before.
 *
 * @example
 * const app = new Hono();
 * const openapi = fromHono(app, { schema: { info: { title: "Tasks", version: "1.0.0" } } });
 * openapi.get("/tasks/:id", GetTask);
 * export default app;
 */
export function fromHono<M extends Hono<any, any, any>>(
  app: M,
  options?: RouterOptions,
): M extends Hono<infer E, infer S, infer BP> ? HonoOpenAPIRouterType<E, S, BP> : never {
  void loadHttpException();
  const core = new HonoRouter(options);
  core.registerDocsRoutes(app);
  return facade(core, app, "") as any;
}

/** The object users hold: inherits the Hono app's own members and overrides registration. */
function facade(core: HonoRouter, app: Hono<any, any, any>, prefix: string): HonoOpenAPIRouterType<any, any, any> {
  const wrapper = Object.create(app) as any;
  const register = (method: string, path: string, handlers: unknown[], documented: boolean) => {
    const mapped = core.registerRoute(method, prefix + path, handlers, documented);
    app.on(method.toUpperCase(), path, ...(mapped as [any]));
    return wrapper;
  };
  for (const method of DOCUMENTED_METHODS) {
    wrapper[method] = (path: string, ...handlers: unknown[]) => register(method, path, handlers, true);
  }
  wrapper.all = (path: string, ...handlers: unknown[]) => {
    app.all(path, ...(core.registerRoute("all", prefix + path, handlers, false) as [any]));
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
      core.mountRouter(prefix + path, sub.core, "relative");
      app.route(path, sub.original);
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
