/**
 * Which specroute router was attached to a Hono app, an itty-router router or their `fetch`, so the
 * CLI finds the router behind `export default app` or `export default { fetch: app.fetch }`. One
 * WeakMap per realm under a global symbol: the CLI and the app module may load different copies of
 * specroute, and the app objects themselves are left as they are.
 */
const ATTACHED = Symbol.for("specroute.attached-routers");

function attached(): WeakMap<object, object> {
  const holder = globalThis as unknown as Record<symbol, WeakMap<object, object> | undefined>;
  holder[ATTACHED] ??= new WeakMap();
  return holder[ATTACHED];
}

/** Records `router` as the one attached to each of `targets`; the first router attached to a target keeps it. */
export function attachRouter(router: object, ...targets: unknown[]): void {
  const map = attached();
  for (const target of targets) {
    if ((typeof target === "object" && target !== null) || typeof target === "function") {
      if (!map.has(target)) map.set(target, router);
    }
  }
}

/**
 * The router attached to `value`, or to its `fetch` (a Workers-style `{ fetch }` object), if any.
 *
 * @example
 * const app = new Hono();
 * const openapi = fromHono(app);
 * attachedRouter(app) === openapi; // true
 */
export function attachedRouter(value: unknown): object | undefined {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return undefined;
  const map = attached();
  const own = map.get(value);
  if (own !== undefined) return own;
  const fetch = (value as { fetch?: unknown }).fetch;
  return typeof fetch === "function" ? map.get(fetch) : undefined;
}
