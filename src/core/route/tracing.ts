/**
 * Attributes of a span or an event, named as OpenTelemetry's semantic conventions name them
 * (`http.route`, `db.query.text`); an undefined value is left out.
 */
export type TraceAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** One span as the request pipeline and the SQL layer drive it; a `Tracing` makes the first of a request. */
export interface TraceSpan {
  /** A span under this one, started now: `"internal"` (validation, the handler) or `"client"` (a SQL statement). */
  child(name: string, kind: "internal" | "client", attributes: TraceAttributes): TraceSpan;
  /** Records an event on this span (a field that failed validation). */
  event(name: string, attributes: TraceAttributes): void;
  /** Runs `work` with this span as the current one, so what `work` calls may start spans under it. */
  run<T>(work: () => T): T;
  /** Sets attributes known only later (the response's status). */
  set(attributes: TraceAttributes): void;
  /** Ends the span; an `errorType` sets its status to ERROR and its `error.type`. */
  end(errorType?: string): void;
}

/**
 * What a router's `tracing` option holds: how a request's span starts. `openTelemetry()` from
 * "specroute/otel" is one; a route of a router without it runs no tracing code at all.
 *
 * @example
 * fromHono(app, { tracing: openTelemetry() });
 */
export interface Tracing {
  /** The span of one request, kind SERVER, under the remote parent its headers carry (W3C `traceparent`). */
  request(name: string, attributes: TraceAttributes, header: (name: string) => string | null): TraceSpan;
}

/** A route's tracing, fixed when the route is compiled for the router serving it. */
export interface RouteTrace {
  readonly tracing: Tracing;
  /** The span's name, `{method} {http.route}` (`GET /tasks/{id}`); unset for a route of every method. */
  readonly name: string | undefined;
  /** The path template, e.g. `/tasks/{id}` (`http.route`). */
  readonly route: string;
}

/** The route's trace: its span named `{method} {route}`, by the request's method on a route of every method. */
export function routeTrace(tracing: Tracing, method: string, route: string): RouteTrace {
  const name = method.toLowerCase() === "all" ? undefined : `${method.toUpperCase()} ${route}`;
  return Object.freeze({ tracing, name, route });
}

// The span a request's handler runs in, by the request's own object (see `requestSpan`).
const spans = new WeakMap<object, TraceSpan>();

/** @internal Records the span `endpoint`'s (a request's own object's) handler runs in. */
export function enterSpan(endpoint: object, span: TraceSpan): void {
  spans.set(endpoint, span);
}

/**
 * The span the current request's handler runs in, for spans of its own work (the auto endpoints' SQL
 * statements); undefined when its router traces nothing.
 */
export function requestSpan(endpoint: object): TraceSpan | undefined {
  return spans.get(endpoint);
}
