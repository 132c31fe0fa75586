// Tracing as a Worker: specroute/otel over the SDK's in-memory exporter; GET /spans answers the finished spans.
import { SpanKind } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Hono } from "hono";
import { D1CreateEndpoint, D1ReadEndpoint, fromHono } from "specroute";
import { openTelemetry } from "specroute/otel";
import { z } from "zod";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const Item = z.object({ id: z.number().int(), name: z.string().min(2) });
const model = { tableName: "items", schema: Item, primaryKeys: ["id"] };

class CreateItem extends D1CreateEndpoint {
  _meta = { model };
  dbName = "DB";
}
class ReadItem extends D1ReadEndpoint {
  _meta = { model };
  dbName = "DB";
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
// Not a route of the traced router: reading the spans adds none.
app.get("/spans", (c) => {
  const spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    kind: SpanKind[span.kind],
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
    status: span.status.code,
  }));
  exporter.reset();
  return c.json(spans);
});
const openapi = fromHono(app, {
  tracing: openTelemetry({ tracer: provider.getTracer("worker"), propagator: new W3CTraceContextPropagator() }),
});
openapi.post("/items", CreateItem);
openapi.get("/items/:id", ReadItem);

export default app;
