import type { CompiledRoute, Deliver, Failure } from "../core/pipeline";
import { runEndpoint } from "../core/pipeline";
import { ResponsePlan } from "../core/respond";
import {
  fieldSnapshot,
  isRouteClass,
  type OpenAPIRoute,
  type OpenAPIRouteClass,
  perRequestFields,
  type RouteOptions,
  register,
  requestStateFactory,
} from "../core/route";
import { type RequestInput, RoutePlan } from "../core/route-plan";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import type { SecurityLayer } from "../core/security";
import {
  DOCS_FAVICON_FILE,
  DOCS_FAVICON_SVG,
  type DocsAssetFile,
  docsAssetFiles,
  redocPage,
  SWAGGER_UI_INIT_FILE,
  scalarPage,
  selfHostedAsset,
  swaggerUiInitScript,
  swaggerUiPage,
} from "../docs-ui";
import { isApiException, MultiException } from "../errors/exceptions";
import { isZodError } from "../errors/render";
import { buildDocument } from "../openapi/document";
import { OpenAPIRegistryMerger } from "../openapi/registry";
import type { DocumentRoute, OpenAPIDocument } from "../openapi/types";
import { toYaml } from "../openapi/yaml";
import {
  type DocumentContext,
  type EnvPredicate,
  type ResolvedRouterOptions,
  type RouterOptions,
  resolveOptions,
} from "./options";

/** Methods that register a documented operation. */
export const DOCUMENTED_METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

/** One documented route of a router: what the document is built from. */
export interface RouteEntry {
  method: string;
  /** Path in the router's own syntax, relative to this router (its `base` not included). */
  path: string;
  schema: OpenAPIRouteSchema;
  /** @internal The compiled route as this router serves it (for a mounted route: derived for the mount). */
  route?: CompiledRoute;
  /** @internal Predicates that leave the route out of the document (its own, its routers'). */
  hiddenWhen?: readonly EnvPredicate[];
}

/** Most documents kept for `schema` functions and hidden predicates: one per distinct environment seen. */
const MAX_CACHED_DOCUMENTS = 32;

/** A handler as the wrapped router calls it. */
export type RouterHandler = (...args: any[]) => unknown;

/** A document or docs route: answers, or returns undefined to let the router try the next route. */
type DocsHandler = (args: unknown[]) => Response | undefined | Promise<Response | undefined>;

const JSON_TYPE = "application/json;charset=UTF-8";
const YAML_TYPE = "text/yaml;charset=UTF-8";
const HTML_TYPE = "text/html;charset=UTF-8";

/**
 * What every router adapter shares: the route table, compiling endpoints at registration, the cached
 * document, and the docs routes. An adapter supplies how to read its handler arguments and how to
 * deliver a failure; it registers handlers through its router's public API.
 */
export abstract class RouterBase {
  readonly options: ResolvedRouterOptions;
  /** Documented routes, nested routers' included, in registration order. */
  readonly routes: RouteEntry[] = [];
  private readonly documents = new Map<string, { json: string; yaml?: string; doc: OpenAPIDocument }>();
  /** Whether the document depends on the environment; false keeps serving it free of per-request work. */
  private dependsOnEnv: boolean;
  /** @internal How many documents were built: what the environment tests count. */
  documentBuilds = 0;

  constructor(options?: RouterOptions) {
    this.options = resolveOptions(options);
    this.dependsOnEnv = this.options.schemaFor !== undefined || typeof this.options.hidden === "function";
  }

  /** The fetch Request of a call. */
  abstract getRequest(args: unknown[]): Request;
  /** The URL parameters the router matched for a call. */
  abstract getUrlParams(args: unknown[]): Record<string, string | undefined>;
  /** The environment bindings of a call (Workers `env`). */
  abstract getBindings(args: unknown[]): Record<string, unknown> | undefined;
  /** Delivers a rendered failure the router's way: return the Response or throw it. */
  protected abstract deliverFailure(failure: Failure, args: unknown[]): Response | Promise<Response>;

  /**
   * Compiles the endpoint classes among `handlers` for `method path` and returns the handlers to give
   * the router (other handlers, e.g. middleware, pass through unchanged).
   */
  registerRoute(method: string, path: string, handlers: unknown[], documented = true): RouterHandler[] {
    return handlers.map((handler) => {
      if (!isRouteClass(handler)) return handler as RouterHandler;
      const compiled = this.compile(method, path, handler);
      if (documented) {
        const schema = this.resolveSchema(compiled, handler, path);
        this.addEntry({ method, path, schema, route: compiled, hiddenWhen: this.hiddenWhen(schema) });
      }
      return this.handlerFor(compiled);
    });
  }

  /**
   * Adds the routes of a router mounted under `prefix` to this router's document, each derived for this
   * mount, and returns the mount: the adapter registers `mount.handler(h)` for each of the nested router's
   * handlers. A snapshot: routes the nested router registers later are not part of this mount.
   */
  mountRouter(prefix: string, nested: RouterBase, nestedPaths: "relative" | "absolute"): Mount {
    const mount = new Mount(this.options);
    for (const entry of nested.routes) {
      const path =
        nestedPaths === "relative"
          ? joinPaths(prefix, entry.path)
          : stripBase(nested.options.base + entry.path, this.options.base);
      const hiddenWhen = [...(entry.hiddenWhen ?? []), ...toPredicates(this.options.hidden)];
      this.addEntry({ ...entry, path, route: entry.route && mount.route(entry.route), hiddenWhen });
    }
    // chanfana merges a nested router's registry into its parent's when it is mounted.
    registryOf(this).merge(registryOf(nested));
    return mount;
  }

  /**
   * The OpenAPI document of every documented route, built once and cached; `env` gives the document that
   * environment sees (`schema` functions, hidden predicates).
   */
  getGeneratedSchema(version = this.options.openapiVersion, env: Record<string, unknown> = {}): OpenAPIDocument {
    return this.cachedDocument(version, () => ({ env, args: [] })).doc;
  }

  /** Drops the cached document, for changes the route table does not see (components added to `registry`). */
  invalidateDocument(): void {
    this.documents.clear();
  }

  /**
   * The handlers of the document and docs routes, keyed by path relative to `base`; registered by the
   * adapter. The pages link to `base` + their URLs, read when first served (Hono detects `base` late).
   */
  protected docsRoutes(): Array<[string, DocsHandler]> {
    const { openapi_url, docs_url, redoc_url, scalar_url, docsAssets } = this.options;
    if (openapi_url === null) return [];
    const routes: Array<[string, DocsHandler]> = [];
    const serve = (body: (args: unknown[]) => string, type: string) => (args: unknown[]) =>
      new Response(body(args), { headers: { "content-type": type } });
    routes.push([
      openapi_url,
      serve((args) => this.cachedDocument(this.options.openapiVersion, () => this.contextOf(args)).json, JSON_TYPE),
    ]);
    routes.push([yamlUrl(openapi_url), serve((args) => this.cachedYaml(args), YAML_TYPE)]);
    const page = (args: unknown[]) => {
      const { base } = this.options;
      const assets =
        docsAssets.kind === "self-hosted"
          ? { kind: "self-hosted" as const, baseUrl: base + docsAssets.baseUrl }
          : docsAssets;
      const title = this.options.schemaFor
        ? this.cachedDocument(this.options.openapiVersion, () => this.contextOf(args)).doc.info?.title
        : this.options.schema.info?.title;
      return { openapiUrl: base + openapi_url, title, assets };
    };
    const pages: Array<[string | null, (args: unknown[]) => string]> = [
      [docs_url, (args) => swaggerUiPage(page(args))],
      [redoc_url, (args) => redocPage(page(args))],
      [scalar_url, (args) => scalarPage(page(args))],
    ];
    for (const [url, html] of pages) {
      if (url === null) continue;
      let cached: string | undefined;
      // A page titled from a `schema` function is rendered per request; otherwise once.
      const body = this.options.schemaFor ? html : (args: unknown[]) => (cached ??= html(args));
      routes.push([url, serve(body, HTML_TYPE)]);
    }
    if (docsAssets.kind === "self-hosted") {
      routes.push(
        ...this.assetRoutes(
          docsAssets,
          () => this.options.base + openapi_url,
          () => this.options.base,
        ),
      );
    }
    const { docsEnabled } = this.options;
    if (!docsEnabled) return routes;
    // Disabled for a request, a docs route answers as if absent: the router tries its next route.
    return routes.map(([path, handler]) => [
      path,
      (args: unknown[]) => (docsEnabled(this.contextOf(args), path) ? handler(args) : undefined),
    ]);
  }

  /** What a document built for this call sees. */
  private contextOf(args: unknown[]): DocumentContext {
    return { env: this.getBindings(args) ?? {}, request: this.getRequest(args), args };
  }

  private hiddenWhen(schema: OpenAPIRouteSchema): EnvPredicate[] {
    return [
      ...toPredicates(schema.hidden),
      ...(typeof schema["x-ignore"] === "function" ? [schema["x-ignore"]] : []),
      ...toPredicates(this.options.hidden),
    ];
  }

  /** Routes serving the docs pages' files from the app, each read once and kept. */
  private assetRoutes(
    assets: Extract<ResolvedRouterOptions["docsAssets"], { kind: "self-hosted" }>,
    openapiUrl: () => string,
    base: () => string,
  ): Array<[string, DocsHandler]> {
    const prefix = assets.baseUrl.replace(/\/+$/, "");
    const files: DocsAssetFile[] = (["swagger-ui", "redoc", "scalar"] as const).flatMap((page) => docsAssetFiles(page));
    const routes: Array<[string, DocsHandler]> = files.map((asset) => {
      let body: Promise<Uint8Array | string | null> | undefined;
      const handler: DocsHandler = async () => {
        body ??= assets.load(asset).then((loaded) => loaded && selfHostedAsset(asset, loaded, base() + prefix));
        const content = await body;
        if (content === null) return undefined;
        return new Response(content as BodyInit, {
          headers: { "content-type": asset.contentType, "cache-control": "public, max-age=86400" },
        });
      };
      return [`${prefix}/${asset.file}`, handler];
    });
    let init: string | undefined;
    routes.push([
      `${prefix}/${SWAGGER_UI_INIT_FILE}`,
      () => {
        init ??= swaggerUiInitScript(openapiUrl());
        return new Response(init, { headers: { "content-type": "text/javascript; charset=utf-8" } });
      },
    ]);
    routes.push([
      `${prefix}/${DOCS_FAVICON_FILE}`,
      () =>
        new Response(DOCS_FAVICON_SVG, {
          headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" },
        }),
    ]);
    return routes;
  }

  private compile(method: string, path: string, EndpointClass: OpenAPIRouteClass): CompiledRoute {
    const routeOptions: RouteOptions = {
      router: this,
      raiseUnknownParameters: this.options.raiseUnknownParameters,
      route: toOpenAPIPath(this.options.base + path),
      urlParams: pathParameterNames(path),
      method,
    };
    const endpoint: OpenAPIRoute = new EndpointClass(routeOptions);
    const constructed = fieldSnapshot(endpoint);
    endpoint.prepareRoute();
    const schema = endpoint.getSchema();
    const compiled: CompiledRoute = Object.freeze({
      endpoint,
      schema,
      plan: new RoutePlan(schema, this.options),
      responder: new ResponsePlan(schema, this.options.validateResponse),
      newRequestState: requestStateFactory(endpoint, perRequestFields(endpoint, constructed)),
      errorFormat: this.options.errorFormat,
      passthroughErrors: this.options.passthroughErrors,
      method,
      label: `${method.toUpperCase()} ${path} (${EndpointClass.name || "anonymous endpoint"})`,
    });
    register(endpoint, { route: compiled, router: this, serve: (args) => this.serve(compiled, args) });
    return compiled;
  }

  /** The handler serving `compiled`, which a mount can ask for its own version of. */
  private handlerFor(compiled: CompiledRoute): RouterHandler {
    const deliver = this.deliverer(compiled);
    return remountable(
      (...args: unknown[]) => this.serve(compiled, args, deliver),
      (mount) => this.handlerFor(mount.route(compiled)),
    );
  }

  private resolveSchema(compiled: CompiledRoute, EndpointClass: OpenAPIRouteClass, path: string): OpenAPIRouteSchema {
    const schema = { ...compiled.schema };
    if (!schema.operationId) {
      // Worded as chanfana words it, naming the path as registered, so apps matching on it keep working.
      if (!this.options.generateOperationIds) throw new Error(`Route ${path} doesn't have operationId set!`);
      schema.operationId = `${compiled.method}_${EndpointClass.name}`;
    }
    return schema;
  }

  /** Answers one request; synchronously when the route's validation and `handle` are (no promise to await). */
  private serve(
    compiled: CompiledRoute,
    args: unknown[],
    deliver = this.deliverer(compiled),
  ): Response | Promise<Response> {
    return runEndpoint(compiled, args, this.inputOf(args, compiled.plan), deliver);
  }

  /** How `compiled`'s failures reach the router; made once per handler, not per request. */
  private deliverer(compiled: CompiledRoute): Deliver {
    return (failure, args) => this.deliver(compiled, failure, args);
  }

  /** What validation reads of a call: its Request and, when the route reads them, what the router parsed. */
  private inputOf(args: unknown[], plan: RoutePlan): RequestInput {
    return {
      request: this.getRequest(args),
      urlParams: plan.readsUrlParams ? this.getUrlParams(args) : undefined,
      query: plan.readsQuery ? this.getParsedQuery(args) : undefined,
    };
  }

  /** The query string as the router already parsed it (a repeated key as an array); undefined when it does not. */
  protected getParsedQuery(_args: unknown[]): Record<string, string | string[] | undefined> | undefined {
    return undefined;
  }

  /** Hands a failure to the router its way (see `deliverFailure`), or throws what the app threw. */
  private deliver(compiled: CompiledRoute, failure: Failure, args: unknown[]): Response | Promise<Response> {
    if (this.options.passthroughErrors) throw passedThrough(failure);
    // The app's own errors are the router's to answer (Hono's onError, itty-router's catch), as in chanfana;
    // a thrown non-Error (a string, null) is answered here, as Hono would not hand it to onError at all.
    if (failure.error instanceof Error && !isFrameworkError(failure.error)) throw failure.error;
    if (failure.requestId !== undefined) {
      console.error(
        `[specroute] ${failure.exception.status} in ${compiled.label}, request id ${failure.requestId}:`,
        failure.error,
      );
    }
    return this.deliverFailure(failure, args);
  }

  private addEntry(entry: RouteEntry): void {
    this.routes.push(entry);
    if (entry.hiddenWhen?.some((when) => when !== ALWAYS)) this.dependsOnEnv = true;
    this.documents.clear();
  }

  /**
   * The document `ctx` sees. Without `schema` functions or hidden predicates it is keyed by version
   * alone; otherwise by the function's result and the predicates' answers, so equal environments share one.
   */
  private cachedDocument(version: ResolvedRouterOptions["openapiVersion"], contextOf: () => DocumentContext) {
    if (!this.dependsOnEnv) {
      const always = (index: number) => this.routes[index]!.hiddenWhen?.includes(ALWAYS) ?? false;
      return this.documents.get(version) ?? this.buildCached(version, version, this.options.schema, always);
    }
    const { schemaFor } = this.options;
    const ctx = contextOf();
    const schema = schemaFor ? registryOf(this).applyTo(schemaFor(ctx)) : this.options.schema;
    const hidden = this.routes.map((entry) => entry.hiddenWhen?.some((when) => when(ctx)) ?? false);
    const key = `${version}\n${hidden.map(Number).join("")}\n${schemaFor ? stableJson(schema) : ""}`;
    return this.buildCached(key, version, schema, (index) => hidden[index]!);
  }

  private buildCached(
    key: string,
    version: ResolvedRouterOptions["openapiVersion"],
    schema: ResolvedRouterOptions["schema"],
    isHidden: (index: number) => boolean,
  ) {
    let cached = this.documents.get(key);
    if (!cached) {
      this.documentBuilds++;
      const doc = buildDocument(this.documentRoutes(isHidden), {
        openapiVersion: version,
        schema,
        problemDetails: this.options.errorFormat === "problem",
        automaticResponses: this.options.automaticResponses,
      });
      cached = { doc, json: JSON.stringify(doc) };
      // Bounded: an environment-derived key could otherwise grow the cache without end.
      if (this.documents.size >= MAX_CACHED_DOCUMENTS) this.documents.delete(this.documents.keys().next().value!);
      this.documents.set(key, cached);
    }
    return cached;
  }

  private cachedYaml(args: unknown[]): string {
    const cached = this.cachedDocument(this.options.openapiVersion, () => this.contextOf(args));
    cached.yaml ??= toYaml(cached.doc);
    return cached.yaml;
  }

  /** The route table in the document builder's terms: OpenAPI paths, unique operationIds, hidden ones left out. */
  private documentRoutes(isHidden: (index: number) => boolean): DocumentRoute[] {
    const used = new Map<string, number>();
    return this.routes.flatMap((entry, index) => {
      if (isHidden(index)) return [];
      let operationId = entry.schema.operationId;
      if (operationId) {
        const seen = (used.get(operationId) ?? 0) + 1;
        used.set(operationId, seen);
        // The same endpoint class on two paths would repeat its id; OpenAPI requires them unique.
        if (seen > 1) operationId = `${operationId}_${seen}`;
      }
      return [
        {
          method: entry.method,
          path: toOpenAPIPath(this.options.base + entry.path),
          schema: { ...entry.schema, operationId, ...entry.route?.plan.security.asLayer() },
        },
      ];
    });
  }
}

const REMOUNT = Symbol.for("specroute.remount");

/** A handler the framework registered: `[REMOUNT]` gives its version for a mount (undefined: leave it out). */
type Remountable = RouterHandler & { [REMOUNT]?: (mount: Mount) => RouterHandler | undefined };

/** Marks `handler` as the framework's: a mount registers `remount(mount)` in its place. */
export function remountable<H extends RouterHandler>(
  handler: H,
  remount: (mount: Mount) => RouterHandler | undefined,
): H {
  return Object.defineProperty(handler, REMOUNT, { value: remount, configurable: true });
}

/** Marks a document or docs-page handler: a mounted router's docs routes are not the parent's. */
export function asDocsRoute<H extends RouterHandler>(handler: H): H {
  return remountable(handler, () => undefined);
}

/**
 * One router mounted under another. The nested router's compiled routes are derived once each, with
 * the parent's `auth`/`security` added as their outermost layer; the nested router's own (and any other
 * mount's) stay as they are, so mount order never changes what a mount enforces.
 */
export class Mount {
  private readonly derived = new Map<CompiledRoute, CompiledRoute>();

  constructor(private readonly layer: SecurityLayer) {}

  /** `route` as this mount serves it. */
  route(route: CompiledRoute): CompiledRoute {
    let derived = this.derived.get(route);
    if (derived === undefined) {
      const plan = route.plan.within(this.layer);
      derived = plan === route.plan ? route : Object.freeze({ ...route, plan });
      this.derived.set(route, derived);
    }
    return derived;
  }

  /** The handler this mount registers in place of one of the nested router's; undefined to leave it out. */
  handler(handler: unknown): RouterHandler | undefined {
    const remount = typeof handler === "function" ? (handler as Remountable)[REMOUNT] : undefined;
    return remount ? remount(this) : (handler as RouterHandler);
  }

  /** `handlers` as this mount registers them, those left out removed. */
  handlers(handlers: readonly unknown[]): RouterHandler[] {
    return handlers.flatMap((handler) => this.handler(handler) ?? []);
  }
}

const SPECROUTE = Symbol.for("specroute.router");

/** Gives an adapter's wrapper the members every specroute router shares, and marks it as one. */
export function exposeRouter<W extends object>(wrapper: W, core: RouterBase, original: unknown): W {
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
      value: (version?: "3" | "3.1", env?: Record<string, unknown>) => core.getGeneratedSchema(version, env),
    },
  });
}

// One registry per router core: Hono's basePath() gives the same core several wrappers.
const registries = new WeakMap<RouterBase, OpenAPIRegistryMerger>();

/** The core's registry; each registration adds its components to the document schema and drops the cached document. */
function registryOf(core: RouterBase): OpenAPIRegistryMerger {
  const known = registries.get(core);
  if (known) return known;
  const declared = core.options.schema;
  const registry = new OpenAPIRegistryMerger(() => {
    core.options.schema = registry.applyTo(declared);
    core.invalidateDocument();
  });
  registries.set(core, registry);
  return registry;
}

/** Whether a value is a wrapper made by fromHono()/fromIttyRouter() (by its marker, so copies agree). */
export function isRouterWrapper(value: unknown): value is { core: RouterBase; original: any; fetch?: any } {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SPECROUTE] === true;
}

const ALWAYS: EnvPredicate = () => true;

/** A `hidden` option as predicates: none when false, one that always holds when true. */
function toPredicates(hidden: boolean | EnvPredicate | undefined): EnvPredicate[] {
  if (typeof hidden === "function") return [hidden];
  return hidden === true ? [ALWAYS] : [];
}

/** JSON with object keys sorted, so equal `schema` results share one cached document. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** `/users/:userId{[0-9]+}/posts/:id?` → `/users/{userId}/posts/{id}`, without duplicate or trailing slashes. */
function toOpenAPIPath(path: string): string {
  const converted = path.replace(/\/+/g, "/").replace(/:([A-Za-z0-9_]+)(\{(?:[^{}]|\{[^{}]*\})*\})?\??/g, "{$1}");
  return converted.length > 1 && converted.endsWith("/") ? converted.slice(0, -1) : converted || "/";
}

/** The `:name` parameters of a router path, in order. */
function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

export function joinPaths(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return joined.length > 1 && joined.endsWith("/") ? joined.slice(0, -1) : joined;
}

function stripBase(path: string, base: string): string {
  return base && path.startsWith(base) ? path.slice(base.length) || "/" : path;
}

/** Whether specroute formats an error itself: its exceptions (by shape) and ZodErrors. */
function isFrameworkError(error: unknown): boolean {
  return isApiException(error) || isZodError(error);
}

/**
 * What `passthroughErrors` throws: what was thrown, before `handleError`; a validation failure always as
 * a MultiException, as chanfana throws it (an authentication failure stays as it is).
 */
function passedThrough(failure: Failure): unknown {
  const { thrown } = failure;
  const isMulti = Array.isArray((thrown as { errors?: unknown } | null)?.errors);
  if (!failure.duringValidation || !isApiException(thrown) || isMulti) return thrown;
  if (thrown.status === 401 || thrown.status === 403) return thrown;
  return new MultiException([thrown]);
}

function yamlUrl(openapiUrl: string): string {
  return openapiUrl.endsWith(".json") ? `${openapiUrl.slice(0, -5)}.yaml` : `${openapiUrl}.yaml`;
}
