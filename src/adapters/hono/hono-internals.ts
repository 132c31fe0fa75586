import type { ErrorHandler, Hono } from "hono";

/*
 * What specroute reads of Hono that Hono does not document as API, all of it here.
 * Checked on Hono 4.6.0 (the lowest `peerDependencies` accepts) and 4.13.19; the mount suite
 * (test/adapters/hono-mounts.case.ts) runs on both in `npm test`.
 *
 * - `app.errorHandler`: the handler `onError()` sets. Hono's own `route()` reads it to answer the
 *   errors of a nested app's routes with that app's handler; a mount of specroute does the same.
 * - The mark Hono's `route()` puts on a handler it wrapped with an app's `onError`, holding the
 *   handler inside: the key `"__COMPOSED_HANDLER"` (4.7 on), a module-private `Symbol("composedHandler")`
 *   before. Read only to refuse a mount that would hide a route from its parent's security
 *   (see `hiddenFrameworkHandler`).
 */

type AnyHono = Hono<any, any, any>;

/** Default `errorHandler` of each Hono class, by the prototype that declares `route()`. */
const defaults = new WeakMap<object, ErrorHandler<any>>();

/**
 * The handler `app.onError()` set, or undefined when the app answers errors Hono's default way (then
 * an error thrown in one of its routes reaches the app it is mounted in, as with Hono's `route()`).
 */
export function ownErrorHandler(app: AnyHono): ErrorHandler<any> | undefined {
  const handler = (app as unknown as { errorHandler?: ErrorHandler<any> }).errorHandler;
  if (typeof handler !== "function") return undefined;
  return handler === defaultErrorHandler(app) ? undefined : handler;
}

/**
 * The error handler a new app of `app`'s Hono starts with: Hono's module-private default, read from an
 * instance of the base class (which takes no required argument, unlike an app's own subclass might).
 */
function defaultErrorHandler(app: AnyHono): ErrorHandler<any> | undefined {
  let base: object | null = Object.getPrototypeOf(app);
  while (base !== null && !Object.hasOwn(base, "route")) base = Object.getPrototypeOf(base);
  if (base === null) return undefined;
  let found = defaults.get(base);
  if (found === undefined) {
    const BaseHono = (base as { constructor: new () => AnyHono }).constructor;
    found = (new BaseHono() as unknown as { errorHandler: ErrorHandler<any> }).errorHandler;
    defaults.set(base, found);
  }
  return found;
}

// Hono's mark on a handler its route() wrapped with a nested app's onError ("hono/utils/constants").
const COMPOSED_HANDLER = "__COMPOSED_HANDLER";

/** The handler Hono's `route()` wrapped in `handler`, under either of its marks; undefined for another. */
function composedInner(handler: unknown): unknown {
  if (typeof handler !== "function") return undefined;
  const marked = handler as unknown as Record<string | symbol, unknown>;
  if (COMPOSED_HANDLER in marked) return marked[COMPOSED_HANDLER];
  const symbol = Object.getOwnPropertySymbols(handler).find((key) => key.description === "composedHandler");
  return symbol === undefined ? undefined : marked[symbol];
}

/**
 * The first handler inside Hono's `onError` wrappers around `handler` that `isFramework` recognises:
 * one of specroute's handlers that Hono's own `route()` (not a specroute router's) mounted into an app
 * with an `onError`, where no mount can see it. Undefined when there is none.
 */
export function hiddenFrameworkHandler(
  handler: unknown,
  isFramework: (handler: unknown) => boolean,
): unknown | undefined {
  let inner = composedInner(handler);
  for (let depth = 0; typeof inner === "function" && depth < 32; depth++) {
    if (isFramework(inner)) return inner;
    inner = composedInner(inner);
  }
  return undefined;
}
