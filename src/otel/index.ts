import {
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { TraceAttributes, TraceSpan, Tracing } from "../core/route/tracing";

export type { TraceAttributes, TraceSpan, Tracing } from "../core/route/tracing";

/** Options of `openTelemetry()`. */
export interface OpenTelemetryOptions {
  /** The tracer spans are started with. Default: `trace.getTracer("specroute")`, the global provider's. */
  tracer?: Tracer;
  /**
   * What reads a request's remote parent from its headers. Default: the global propagator (W3C Trace
   * Context once the SDK, or `propagation.setGlobalPropagator(new W3CTraceContextPropagator())`, sets it).
   */
  propagator?: TextMapPropagator;
}

// The propagator reads the request's headers through the adapter's lookup: no header object is built.
const headerGetter: TextMapGetter<(name: string) => string | null> = {
  get: (header, key) => header(key) ?? undefined,
  keys: () => [],
};

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;

/**
 * Traces requests with OpenTelemetry, as a router's `tracing` option: a span per request (kind
 * SERVER, named `{method} {http.route}`, under the remote parent the global propagator reads from
 * the headers, W3C `traceparent` with the SDK's defaults), with spans for validation, the handler
 * and each SQL statement of the auto endpoints. Register a tracer provider (and, on Node, a context
 * manager) as the OpenTelemetry SDK describes; without one, the API's spans record nothing.
 *
 * @example
 * import { openTelemetry } from "specroute/otel";
 * const openapi = fromHono(new Hono(), { tracing: openTelemetry() });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Tracing {
  const tracer = options.tracer ?? trace.getTracer("specroute");
  const { propagator } = options;
  return {
    request(name, attributes, header) {
      const remote = propagator
        ? propagator.extract(context.active(), header, headerGetter)
        : propagation.extract(context.active(), header, headerGetter);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes) }, remote);
      return new OpenTelemetrySpan(tracer, span, trace.setSpan(remote, span));
    },
  };
}

/** A span of the API as the pipeline drives it; `context` is the one it is current in. */
class OpenTelemetrySpan implements TraceSpan {
  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
  ) {}

  child(name: string, kind: "internal" | "client", attributes: TraceAttributes): TraceSpan {
    const span = this.tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) }, this.context);
    return new OpenTelemetrySpan(this.tracer, span, trace.setSpan(this.context, span));
  }

  event(name: string, attributes: TraceAttributes): void {
    this.span.addEvent(name, defined(attributes));
  }

  run<T>(work: () => T): T {
    return context.with(this.context, work);
  }

  set(attributes: TraceAttributes): void {
    this.span.setAttributes(defined(attributes));
  }

  end(errorType?: string): void {
    if (errorType !== undefined) {
      this.span.setAttribute("error.type", errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

/** The attributes without those left unset. */
function defined(attributes: TraceAttributes): Record<string, string | number | boolean> {
  const set: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) set[key] = value;
  }
  return set;
}
