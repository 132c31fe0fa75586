import type { IncomingRequest } from "../core/request/incoming";
import { type CompiledRoute, compiledWithin, compileRoute, prepareEndpoint } from "../core/route/compile";
import type { FailureAs } from "../core/route/failure";
import type { EndpointHost } from "../core/route/host";
import type { OpenAPIRoute, OpenAPIRouteClass, RouteOptions, ServedEndpoint } from "../core/route/open-api-route";
import { linkServed } from "../core/route/open-api-route";
import { routeHandler, runEndpoint } from "../core/route/pipeline";
import type { RouterLayer } from "../core/route/route-plan";
import { type RouteTrace, routeTrace } from "../core/route/tracing";
import type { EnvPredicate, OpenAPIRouteSchema } from "../core/schema-types";
import type { ResolvedRouterOptions } from "./options";

/** What a route needs of the router it is registered on (the router core); its endpoint sees it as an `EndpointHost`. */
export interface RouteHost extends Pick<EndpointHost, "getRequest" | "getUrlParams" | "getBindings" | "clientAddress"> {
  readonly options: ResolvedRouterOptions;
  /** The router's `hidden` option as predicates. */
  readonly hiddenPredicates: readonly EnvPredicate[];
  /** What the router's error hook is thrown for a failure (see `FailureAs`); unset: the rendered response answers. */
  readonly failureAs: FailureAs | undefined;
  /** A call's request, as the core reads it. */
  readonly incomingOf: (args: unknown[]) => IncomingRequest;
  incomingFor(request: Request, args: unknown[]): IncomingRequest;
}

/** What one registration call (`router.get("/tasks/:id", GetTask)`) says of the endpoint classes it registers. */
export interface Registration {
  readonly method: string;
  /** The path as registered, relative to the router's base. */
  readonly path: string;
  /** Whether its routes are in the router's document (`all()` registrations are not). */
  readonly documented: boolean;
}

/**
 * One endpoint class registered on one router. The class is constructed and its route compiled once,
 * when first needed (its first request, the first document, `router.compile()`), and shared by every
 * router the route is mounted under; classes that ask for it are prepared at registration. A class
 * `compiledPerPath` is constructed and compiled once more for each full path with other URL parameters
 * that a mount serves it at.
 */
export class RouteDefinition {
  /** The endpoint class constructed and prepared: the route's single instance. */
  private endpoint: OpenAPIRoute | undefined;
  private compiled: CompiledRoute | undefined;
  /** Why the route could not be compiled: it fails the same way every time it is asked for. */
  private failure: Error | undefined;
  private documentedAs: OpenAPIRouteSchema | undefined;
  /** A class compiled per path: the route for each full path a mount serves it at, or why it cannot compile there. */
  private readonly atPaths = new Map<
    string,
    { compiled?: CompiledRoute; failure?: Error; documented?: OpenAPIRouteSchema }
  >();
  /** How the route is served on the router it was registered on: what the endpoint instance is linked to. */
  readonly served: ServedRoute;

  /** As its registration gave them (see `Registration`). */
  readonly method: string;
  readonly path: string;
  readonly documented: boolean;

  constructor(
    readonly router: RouteHost,
    readonly EndpointClass: OpenAPIRouteClass,
    { method, path, documented }: Registration,
  ) {
    this.method = method;
    this.path = path;
    this.documented = documented;
    this.served = new ServedRoute(this, path, [], router.hiddenPredicates);
  }

  /**
   * What chanfana checks when a route is registered still fails the registration, with its own error:
   * a class that asks to be compiled then (the auto endpoints' Meta against the path), a documented
   * route without `operationId` when none is generated. Run once the router has settled its base,
   * which the route's path includes.
   */
  checkRegistration(): void {
    if (this.EndpointClass.compiledAtRegistration === true)
      this.compiled = this.compileAs(this.prepare(), this.served, this.label);
    if (this.documented && !this.router.options.generateOperationIds) this.operationId();
  }

  /** `METHOD /path (ClassName)`: how logs and errors name the route. */
  get label(): string {
    return `${this.method.toUpperCase()} ${this.path} (${this.EndpointClass.name || "anonymous endpoint"})`;
  }

  /**
   * The route compiled; the first call constructs the endpoint. An error names the route. `served` is the
   * route as a router serves it: for a class `compiledPerPath`, a mount's full path with other URL
   * parameters than the registered one gets a route compiled for that path.
   */
  compile(served: ServedRoute = this.served): CompiledRoute {
    const at = this.pathOwnedBy(served);
    if (at !== undefined) return this.compileAt(at, served);
    if (this.compiled) return this.compiled;
    if (this.failure) throw this.failure;
    try {
      this.compiled = this.compileAs(this.prepare(), this.served, this.label);
      return this.compiled;
    } catch (err) {
      this.failure = new Error(`${this.label}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      throw this.failure;
    }
  }

  /**
   * Compiles the route for a mount at once where the class asks to be compiled at registration, so what
   * it checks against the mount's full path fails the mount.
   */
  checkMount(served: ServedRoute): void {
    if (this.EndpointClass.compiledAtRegistration === true && this.pathOwnedBy(served) !== undefined) {
      this.compile(served);
    }
  }

  /** The full path `served` is routed at, when the class is compiled for it apart; undefined when the registered route serves it. */
  private pathOwnedBy(served: ServedRoute): string | undefined {
    if (served === this.served || this.EndpointClass.compiledPerPath !== true) return undefined;
    const path = served.routedPath;
    const own = pathParameterNames(this.router.options.base + this.path);
    const there = pathParameterNames(path);
    return there.length === own.length && there.every((name, i) => name === own[i]) ? undefined : path;
  }

  private compileAt(path: string, served: ServedRoute): CompiledRoute {
    const entry = this.atPaths.get(path) ?? {};
    this.atPaths.set(path, entry);
    if (entry.compiled) return entry.compiled;
    if (entry.failure) throw entry.failure;
    const label = `${this.method.toUpperCase()} ${path} (${this.EndpointClass.name || "anonymous endpoint"})`;
    try {
      const endpoint = prepareEndpoint(this.EndpointClass, this.routeOptions(path));
      entry.compiled = this.compileAs(endpoint, served, label);
      return entry.compiled;
    } catch (err) {
      entry.failure = new Error(`${label}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      throw entry.failure;
    }
  }

  private compileAs(endpoint: OpenAPIRoute, served: ServedRoute, label: string): CompiledRoute {
    const { options, failureAs } = this.router;
    const bindingsOf = (args: unknown[]) => this.router.getBindings(args);
    const compiled = compileRoute(endpoint, { ...options, failureAs, bindingsOf, method: this.method, label });
    linkServed(endpoint, served);
    return compiled;
  }

  /** The schema the document shows: the compiled one, with an `operationId` generated when it has none. */
  documentedSchema(served: ServedRoute = this.served): OpenAPIRouteSchema {
    const at = this.pathOwnedBy(served);
    const cached = at === undefined ? this.documentedAs : this.atPaths.get(at)?.documented;
    if (cached) return cached;
    const schema = { ...this.compile(served).schema };
    schema.operationId = this.operationId();
    if (at === undefined) this.documentedAs = schema;
    else this.atPaths.get(at)!.documented = schema;
    return schema;
  }

  private operationId(): string {
    const declared = this.prepare().getSchema().operationId;
    if (declared) return declared;
    // Worded as chanfana words it, naming the path as registered, so apps matching on it keep working.
    if (!this.router.options.generateOperationIds) throw new Error(`Route ${this.path} doesn't have operationId set!`);
    return `${this.method}_${this.EndpointClass.name}`;
  }

  private prepare(): OpenAPIRoute {
    if (this.endpoint) return this.endpoint;
    this.endpoint = prepareEndpoint(this.EndpointClass, this.routeOptions(this.router.options.base + this.path));
    return this.endpoint;
  }

  /** What the endpoint is constructed with, served at `path` (its router's base included). */
  private routeOptions(path: string): RouteOptions {
    return {
      router: this.router,
      raiseUnknownParameters: this.router.options.raiseUnknownParameters,
      route: toOpenAPIPath(path),
      // Its router's base included, as chanfana counts them: a base's parameter scopes a collection too.
      urlParams: pathParameterNames(path),
      method: this.method,
    };
  }
}

/**
 * A route as one router serves it: its definition, under every router it is mounted under (innermost
 * first), each with its `auth`/`security`, its document's schemes and `readTextPlainAsJson`; a
 * documented one is an entry of that router's route table (`routeTable`, chanfana's `RouteEntry`). The
 * document entry and the handler of a mount share one of these, so what the document says and what
 * the handler enforces come from the same plan.
 */
export class ServedRoute implements ServedEndpoint {
  private compiled: CompiledRoute | undefined;

  constructor(
    /** @internal The route as registered. */
    readonly definition: RouteDefinition,
    /** Path in the router's own syntax, relative to the router's base. */
    readonly path: string,
    /** @internal The routers this route is mounted under, innermost first. */
    readonly layers: readonly RouterLayer[],
    /** @internal The `hidden` options of its router and of every router it is mounted under. */
    readonly hiddenByRouters: readonly EnvPredicate[],
  ) {}

  get method(): string {
    return this.definition.method;
  }

  /** The endpoint's schema as documented; reading it compiles the route. */
  get schema(): OpenAPIRouteSchema {
    return this.definition.documentedSchema(this);
  }

  /**
   * @internal The path that routes this route, its serving router's base included (the outermost mounting
   * router's, else its own's), in the router's own syntax: whose URL parameters a request has.
   */
  get routedPath(): string {
    return (this.servingRouter().base ?? "") + this.path;
  }

  private servingRouter(): { base?: string } {
    return this.layers.length > 0 ? this.layers[this.layers.length - 1]! : this.definition.router.options;
  }

  /** Predicates that leave the route out of the document: its own, its routers'. */
  get hiddenWhen(): readonly EnvPredicate[] {
    const { schema } = this;
    return [
      ...toPredicates(schema.hidden),
      ...(typeof schema["x-ignore"] === "function" ? [schema["x-ignore"]] : []),
      ...this.hiddenByRouters,
    ];
  }

  /** @internal The route compiled for this mount: the definition's, its plan derived for the mounts' layers. */
  compiledRoute(): CompiledRoute {
    if (this.compiled) return this.compiled;
    const base = this.definition.compile(this);
    const plan = this.layers.reduce((derived, layer) => derived.within(layer), base.plan);
    this.compiled = compiledWithin(base, plan, this.trace());
    return this.compiled;
  }

  /** How this route's requests are traced: by its own router's `tracing`, else the nearest mounting router's. */
  private trace(): RouteTrace | undefined {
    const own = this.definition.router.options;
    const tracing = [own, ...this.layers].find((router) => router.tracing)?.tracing;
    if (!tracing) return undefined;
    // The path is relative to the base of the router serving it: the outermost mounting one, else its own.
    return routeTrace(tracing, this.method, toOpenAPIPath(this.routedPath));
  }

  /** @internal This route as served under one more router (its options, read when the route compiles) at `path` there. */
  under(layer: RouterLayer, hidden: readonly EnvPredicate[], path: string): ServedRoute {
    return new ServedRoute(this.definition, path, [...this.layers, layer], [...this.hiddenByRouters, ...hidden]);
  }

  /** @internal */
  get responses() {
    return this.compiledRoute().responses;
  }

  /** @internal */
  requestOf(args: unknown[]): Request {
    return this.definition.router.getRequest(args);
  }

  /** @internal The handler the router registers: it runs each request itself, without coming back here. */
  handler(): (...args: unknown[]) => Response | Promise<Response> {
    return routeHandler(() => this.compiledRoute(), this, this.definition.router.incomingOf);
  }

  /** @internal Answers one request; synchronously when the route's validation and `handle` are (no promise to await). */
  serve(args: unknown[]): Response | Promise<Response> {
    // The first request of a route compiles it; a route that cannot compile throws to the router.
    return runEndpoint(this.compiledRoute(), this, this.definition.router.incomingOf(args));
  }

  /** @internal */
  async validateRequest(request: Request, args: unknown[]): Promise<Record<string, unknown>> {
    const incoming = this.definition.router.incomingFor(request, args);
    return (await this.compiledRoute().plan.validateRequest(incoming, undefined, false)).validated;
  }
}

/** `/users/:userId{[0-9]+}/posts/:id?` → `/users/{userId}/posts/{id}`, without duplicate or trailing slashes. */
export function toOpenAPIPath(path: string): string {
  const converted = path.replace(/\/+/g, "/").replace(/:([A-Za-z0-9_]+)(\{(?:[^{}]|\{[^{}]*\})*\})?\??/g, "{$1}");
  return converted.length > 1 && converted.endsWith("/") ? converted.slice(0, -1) : converted || "/";
}

/** The `:name` parameters of a router path, in order. */
function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/** A `hidden` predicate that always holds. */
export const ALWAYS: EnvPredicate = () => true;

/** A `hidden` option as predicates: none when false, one that always holds when true. */
export function toPredicates(hidden: boolean | EnvPredicate | undefined): EnvPredicate[] {
  if (typeof hidden === "function") return [hidden];
  return hidden === true ? [ALWAYS] : [];
}
