import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

interface ExportedSpan {
  name: string;
  kind: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: number;
}

describe("specroute/otel inside workerd, over D1", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/otel-app.ts", {
      schema: ["CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const spans = async () => (await (await worker.fetch("/spans")).json()) as ExportedSpan[];
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;

  it("traces a request under the caller's traceparent, with its handler and SQL spans", async () => {
    const created = await worker.fetch("/items", {
      method: "POST",
      headers: { "content-type": "application/json", traceparent },
      body: JSON.stringify({ id: 1, name: "SECRET-NAME" }),
    });
    expect(created.status).toBe(201);
    const finished = await spans();
    const request = finished.find((span) => span.name === "POST /items")!;
    expect(request).toMatchObject({
      kind: "SERVER",
      traceId,
      parentSpanId: "00f067aa0ba902b7",
      attributes: {
        "http.request.method": "POST",
        "http.route": "/items",
        "url.path": "/items",
        "http.response.status_code": 201,
      },
    });
    const handle = finished.find((span) => span.name === "handle")!;
    expect(handle.parentSpanId).toBe(request.spanId);
    const sql = finished.filter((span) => span.kind === "CLIENT");
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) {
      expect(span.parentSpanId).toBe(handle.spanId);
      expect(span.attributes["db.system.name"]).toBe("sqlite");
    }
    expect(sql.map((span) => span.attributes["db.operation.name"])).toContain("INSERT");
    expect(JSON.stringify(finished)).not.toContain("SECRET");
  });

  it("records a failed field as an event of the validation span", async () => {
    const response = await worker.fetch("/items", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 2, name: "x" }),
    });
    expect(response.status).toBe(400);
    const finished = await spans();
    const validate = finished.find((span) => span.name === "validate")!;
    expect(validate.events).toEqual([
      {
        name: "specroute.validation.failed",
        attributes: { "specroute.validation.path": "body.name", "specroute.validation.message": expect.any(String) },
      },
    ]);
    expect(finished.find((span) => span.name === "POST /items")?.attributes["http.response.status_code"]).toBe(400);
  });

  it("names a read by its route template and traces its SELECT", async () => {
    expect((await worker.fetch("/items/1")).status).toBe(200);
    const finished = await spans();
    expect(finished.map((span) => span.name).sort()).toEqual(["GET /items/{id}", "SELECT items", "handle", "validate"]);
  });
});
