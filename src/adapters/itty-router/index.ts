import type { Failure } from "../../core/pipeline";
import { requestOf } from "../../core/request-like";
import type { OpenAPIRouteClass } from "../../core/route";
import type { OpenAPIDocument } from "../../openapi/types";
import type { ResolvedRouterOptions, RouterOptions } from "../options";
import {
  DOCUMENTED_METHODS,
  exposeRouter,
  isRouterWrapper,
  joinPaths,
  type RouteEntry,
  RouterBase,
  type RouterHandler,
} from "../router-base";

/** The part of an itty-router router the adapter uses (v5 and v6 `Router`, `AutoRouter`, `IttyRouter`). */
interface IttyLike {
  fetch: (request: Request, ...args: any[]) => Promise<any>;
  routes: unknown[];
  [method: string]: any;
}

/** A request as itty-router hands it to handlers: the fetch Request with `params` and `query`. */
type IttyRequest = Request & { params?: Record<string, string> };

type RegisterMethod<R> = (path: string, ...handlers: Array<OpenAPIRouteClass | RouterHandler>) => R;

/** The wrapper `fromIttyRouter` returns: the router's own API plus endpoint registration and the document. */
export type IttyOpenAPIRouterType<R = IttyLike> = {
  get: RegisterMethod<IttyOpenAPIRouterType<R>>;
  head: RegisterMethod<IttyOpenAPIRouterType<R>>;
  post: RegisterMethod<IttyOpenAPIRouterType<R>>;
  put: RegisterMethod<IttyOpenAPIRouterType<R>>;
  patch: RegisterMethod<IttyOpenAPIRouterType<R>>;
  delete: RegisterMethod<IttyOpenAPIRouterType<R>>;
  /** `all(path, router)` mounts a specroute router (chanfana style, the nested router carries its own `base`). */
  all: RegisterMethod<IttyOpenAPIRouterType<R>> &
    ((path: string, router: IttyOpenAPIRouterType<any>) => IttyOpenAPIRouterType<R>);
  /** Mounts another specroute router's endpoints under `path`. */
  route(path: string, router: IttyOpenAPIRouterType<any>): IttyOpenAPIRouterType<R>;
  fetch: (request: Request, ...args: any[]) => Promise<any>;
  original: R;
  options: ResolvedRouterOptions;
  readonly schema: OpenAPIDocument;
  getGeneratedSchema(version?: "3" | "3.1"): OpenAPIDocument;
  readonly routeTable: readonly RouteEntry[];
  readonly isSpecroute: true;
} & Omit<R, "get" | "head" | "post" | "put" | "patch" | "delete" | "all" | "route" | "fetch">;

class IttyRouter extends RouterBase {
  /** Handlers as given to the router, so a parent router can register them again under its prefix. */
  readonly registrations: Registration[] = [];

  getRequest(args: unknown[]): Request {
    return requestOf(args[0]);
  }

  /** itty-router leaves path parameters percent-encoded; they are decoded as Hono does (malformed ones kept as sent). */
  getUrlParams(args: unknown[]): Record<string, string | undefined> {
    const params = (args[0] as IttyRequest).params;
    if (!params) return {};
    const decoded: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(params)) decoded[key] = decodeParam(value);
    return decoded;
  }

  getBindings(args: unknown[]): Record<string, unknown> | undefined {
    return args[1] as Record<string, unknown> | undefined;
  }

  /** itty-router has no error hook of its own to feed, so failures are answered directly. */
  protected deliverFailure(failure: Failure): Response {
    return failure.response;
  }

  /** Docs handlers return undefined when this router is mounted, so itty-router moves on. */
  registerDocsRoutes(router: IttyLike): void {
    for (const [path, handler] of this.docsRoutes()) {
      router.get(path, (...args: unknown[]) => handler(args));
    }
  }
}

/**
 * Wraps an itty-router router so endpoint classes can be registered on it.
 *
 * @example
 * const router = fromIttyRouter(Router());
 * router.get("/tasks/:id", GetTask);
 * export default { fetch: router.fetch };
 */
export function fromIttyRouter<R extends IttyLike>(router: R, options?: RouterOptions): IttyOpenAPIRouterType<R> {
  const core = new IttyRouter(options);
  core.registerDocsRoutes(router);
  const wrapper = Object.create(router) as any;
  const register = (method: string, path: string, handlers: unknown[], documented: boolean) => {
    const mapped = core.registerRoute(method, path, handlers, documented);
    core.registrations.push({ method, path, handlers: mapped });
    router[method](path, ...mapped);
    return wrapper;
  };
  for (const method of DOCUMENTED_METHODS) {
    wrapper[method] = (path: string, ...handlers: unknown[]) => register(method, path, handlers, true);
  }
  wrapper.all = (path: string, ...handlers: unknown[]) => {
    const nested = handlers.length === 1 ? (handlers[0] as any) : undefined;
    if (isRouterWrapper(nested)) {
      core.mountRouter(path, nested.core, "absolute");
      router.all(path, nested.fetch);
      return wrapper;
    }
    return register("all", path, handlers, false);
  };
  wrapper.route = (prefix: string, nested: any) => {
    if (!isRouterWrapper(nested)) throw new TypeError("route() takes a router made by fromIttyRouter()");
    // itty-router cannot re-base another router's compiled routes, so its endpoints are registered again here.
    core.mountRouter(prefix, nested.core, "relative");
    for (const { method, path, handlers } of (nested.core as IttyRouter).registrations) {
      core.registrations.push({ method, path: joinPaths(prefix, path), handlers });
      router[method](joinPaths(prefix, path), ...handlers);
    }
    return wrapper;
  };
  return exposeRouter(wrapper, core, router);
}

interface Registration {
  method: string;
  path: string;
  handlers: RouterHandler[];
}

function decodeParam(value: string | undefined): string | undefined {
  if (value === undefined || !value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
