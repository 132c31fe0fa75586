import type { ResolvedRouterOptions } from "./options";
import type { ServedRoute } from "./served-route";

/** What a mount needs of the router it mounts into. */
export interface MountParent {
  readonly options: ResolvedRouterOptions;
  readonly hiddenPredicates: ServedRoute["hiddenByRouters"];
  /** Adds a route the router serves (its path relative to the router's base). */
  addServed(served: ServedRoute): void;
}

/** A handler as the wrapped router calls it. */
export type RouterHandler = (...args: any[]) => unknown;

/**
 * How a handler the framework registered is served under a mount: its version for the mount, or
 * undefined to leave it out there. `path` is where the handler is registered on its own router.
 */
export type Derive = (mount: Mount, path: string) => RouterHandler | undefined;

// Handlers the framework registered (or a router made around them), each with how a mount derives it.
// Kept beside the handlers, not on them: some are the router's own functions.
const derivations = new WeakMap<object, Derive>();

/** Marks `handler` as the framework's: a mount registers what `derive` gives in its place. */
export function derivable<H extends RouterHandler>(handler: H, derive: Derive): H {
  derivations.set(handler, derive);
  return handler;
}

/** Whether `handler` is one the framework registered (and a mount derives). */
export function isDerivable(handler: unknown): boolean {
  return typeof handler === "function" && derivations.has(handler);
}

/** Marks a document or docs-page handler: a mounted router's docs routes are not the parent's. */
export function docsRoute<H extends RouterHandler>(handler: H): H {
  return derivable(handler, () => undefined);
}

/**
 * One router mounted under another. Every route of the nested router is derived once for the mount,
 * with the parent's `auth`/`security` as its outermost layer, and joins the parent's document; the
 * nested router's own layers (and any other mount's) stay as they are, so mount order never changes
 * what a mount enforces. Routes the nested router registers later are not part of the mount.
 */
export class Mount {
  constructor(
    readonly parent: MountParent,
    /** Where a path of the nested router is, relative to the parent's base: how the parent documents it. */
    readonly documentPath: (path: string) => string,
    /** What the parent's router puts before a nested path to route it (itty-router re-registers routes). */
    readonly routingPrefix = "",
  ) {}

  /**
   * Whether this mount changes what the routes it mounts enforce: the parent router has `auth` or
   * `security` or `rateLimit`, refuses JSON sent as `text/plain`, or answers validation failures before `handle()`.
   */
  get addsLayer(): boolean {
    const { auth, security, readTextPlainAsJson, rateLimit, validationFailures } = this.parent.options;
    const strict = validationFailures === "before-handle";
    return auth !== undefined || security !== undefined || !readTextPlainAsJson || rateLimit !== undefined || strict;
  }

  /** A nested router's handler, registered at `path` there, as this mount serves it; undefined to leave it out. */
  handler(handler: unknown, path: string): RouterHandler | undefined {
    const derive = typeof handler === "function" ? derivations.get(handler) : undefined;
    return derive ? derive(this, path) : (handler as RouterHandler);
  }

  /** The handlers of one nested route, as this mount serves them (those left out removed). */
  handlers(handlers: readonly unknown[], path: string): RouterHandler[] {
    return handlers.flatMap((handler) => this.handler(handler, path) ?? []);
  }

  /** A nested route under this mount: derived under the parent router (its options, `hidden`), listed in its document. */
  mounted(served: ServedRoute, path: string): ServedRoute {
    // The options object itself: its registry may still add schemes before the route compiles.
    const derived = served.under(this.parent.options, this.parent.hiddenPredicates, this.documentPath(path));
    // A route compiled for its full path (a collection scoped by the mount's parameters) fails the mount, not a request.
    derived.definition.checkMount(derived);
    this.parent.addServed(derived);
    return derived;
  }
}

/** Joins a prefix and a path without duplicate or trailing slashes. */
export function joinPaths(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return joined.length > 1 && joined.endsWith("/") ? joined.slice(0, -1) : joined;
}

/** `path` without a leading `base`. */
export function stripBase(path: string, base: string): string {
  return base && path.startsWith(base) ? path.slice(base.length) || "/" : path;
}
