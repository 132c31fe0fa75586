import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import Database from "better-sqlite3";
import { openTelemetry } from "specroute/otel";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiException,
  betterSqlite3Driver,
  contentJson,
  idempotency,
  memoryRateLimitStore,
  NotFoundException,
  OpenAPIRoute,
  rateLimit,
  SqlCreateEndpoint,
  SqlReadEndpoint,
  sqlIdempotencyStore,
} from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

// The SDK set up as an app sets it up: a provider, the W3C propagator and (on Node) a context manager.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(contextManager.enable());
});
afterEach(() => exporter.reset());
afterAll(async () => {
  await closeHttpHarnesses();
  trace.disable();
  propagation.disable();
  context.disable();
});

class GetTask extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.coerce.number().int() }) }, responses: {} };
  async handle() {
    const { params } = await this.getValidatedData();
    // The app's own span: the handler's span is the current one.
    trace.getTracer("app").startActiveSpan("load task", (span) => span.end());
    if (params.id === 404) throw new NotFoundException();
    return { id: params.id };
  }
}

class CreateNote extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(z.object({ title: z.string().min(3), priority: z.number().int() })) },
    responses: {},
  };
  async handle() {
    return { ok: true };
  }
}

class Boom extends OpenAPIRoute {
  schema = { responses: {} };
  async handle(): Promise<unknown> {
    throw new TypeError("the app broke");
  }
}

class Unavailable extends OpenAPIRoute {
  schema = { responses: {} };
  handle(): unknown {
    const error = new ApiException("try later");
    error.status = 503;
    throw error;
  }
}

const meta = {
  model: {
    tableName: "items",
    schema: z.object({ id: z.number().int(), name: z.string() }),
    primaryKeys: ["id"],
  },
};
class CreateItem extends SqlCreateEndpoint {
  _meta = meta;
}
class ReadItem extends SqlReadEndpoint {
  _meta = meta;
}

const finished = () => exporter.getFinishedSpans();
const named = (name: string) => finished().filter((span) => span.name === name);
const one = (name: string): ReadableSpan => {
  const spans = named(name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
};
const childrenOf = (parent: ReadableSpan) =>
  finished().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

for (const harness of httpHarnesses) {
  describe(`${harness.name} over HTTP: OpenTelemetry traces`, () => {
    function app() {
      const db = new Database(":memory:");
      db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
      const made = harness.make({ tracing: openTelemetry(), db: betterSqlite3Driver(db) });
      made.router.get("/tasks/:id", GetTask);
      made.router.post("/notes", CreateNote);
      made.router.get("/boom", Boom);
      made.router.get("/unavailable", Unavailable);
      made.router.post("/items", CreateItem);
      made.router.get("/items/:id", ReadItem);
      const nested = harness.nested();
      nested.get("/tasks/:id", GetTask);
      made.router.route("/v1", nested);
      return made;
    }
    const { request } = app();

    it("gives each request a SERVER span named by its route, with the HTTP attributes", async () => {
      const response = await request("/tasks/7?token=secret");
      expect(response.status).toBe(200);
      const span = one("GET /tasks/{id}");
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toEqual({
        "http.request.method": "GET",
        "http.route": "/tasks/{id}",
        "url.path": "/tasks/7",
        "http.response.status_code": 200,
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.parentSpanContext).toBeUndefined();
    });

    it("puts validation, the handler and the app's own spans under the request's", async () => {
      await request("/tasks/7");
      const span = one("GET /tasks/{id}");
      expect(
        childrenOf(span)
          .map((child) => child.name)
          .sort(),
      ).toEqual(["handle", "validate"]);
      const handle = one("handle");
      expect(handle.kind).toBe(SpanKind.INTERNAL);
      expect(childrenOf(handle).map((child) => child.name)).toEqual(["load task"]);
    });

    it("continues the caller's trace from its traceparent header", async () => {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parentId = "00f067aa0ba902b7";
      await request("/tasks/7", { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
      const span = one("GET /tasks/{id}");
      expect(span.spanContext().traceId).toBe(traceId);
      expect(span.parentSpanContext?.spanId).toBe(parentId);
      expect(span.parentSpanContext?.isRemote).toBe(true);
    });

    it("records each field that failed validation as an event, with its path and message, never its value", async () => {
      const response = await request("/notes", jsonBody({ title: "ab", priority: "SECRET-VALUE" }));
      expect(response.status).toBe(400);
      const request_ = one("POST /notes");
      expect(request_.attributes["http.response.status_code"]).toBe(400);
      expect(request_.status.code).toBe(SpanStatusCode.UNSET);
      const validate = one("validate");
      const events = validate.events.map((event) => [event.name, event.attributes]);
      expect(events).toEqual([
        [
          "specroute.validation.failed",
          { "specroute.validation.path": "body.title", "specroute.validation.message": expect.any(String) },
        ],
        [
          "specroute.validation.failed",
          { "specroute.validation.path": "body.priority", "specroute.validation.message": expect.any(String) },
        ],
      ]);
      expect(JSON.stringify(finished().map((span) => [span.attributes, span.events]))).not.toContain("SECRET");
      // The handler ran and met the 400 where it asked for its data: no error of the server's.
      expect(named("handle").map((span) => span.attributes["error.type"])).toEqual([undefined]);
    });

    it("sets ERROR on a request answered with a 5xx, typed by what the app threw", async () => {
      expect((await request("/boom")).status).toBe(500);
      const span = one("GET /boom");
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes["error.type"]).toBe("TypeError");
      expect(span.attributes["http.response.status_code"]).toBe(500);
      expect(one("handle").attributes["error.type"]).toBe("TypeError");
    });

    it("sets ERROR and the status as error.type on a framework 5xx; a 404 is no error", async () => {
      expect((await request("/unavailable")).status).toBe(503);
      const span = one("GET /unavailable");
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes).toMatchObject({ "http.response.status_code": 503, "error.type": "503" });
      exporter.reset();
      expect((await request("/tasks/404")).status).toBe(404);
      const notFound = one("GET /tasks/{id}");
      expect(notFound.status.code).toBe(SpanStatusCode.UNSET);
      expect(notFound.attributes["http.response.status_code"]).toBe(404);
      expect(notFound.attributes["error.type"]).toBeUndefined();
      expect(one("handle").status.code).toBe(SpanStatusCode.UNSET);
    });

    it("puts each SQL statement of the auto endpoints in a CLIENT span under the handler, without its values", async () => {
      expect((await request("/items", jsonBody({ id: 1, name: "SECRET-NAME" }))).status).toBe(201);
      const insert = one("INSERT items");
      expect(insert.kind).toBe(SpanKind.CLIENT);
      expect(insert.parentSpanContext?.spanId).toBe(one("handle").spanContext().spanId);
      expect(insert.attributes).toMatchObject({
        "db.system.name": "sqlite",
        "db.operation.name": "INSERT",
        "db.collection.name": "items",
      });
      expect(insert.attributes["db.query.text"]).toMatch(/^INSERT INTO "items" .*\?/);
      expect(JSON.stringify(finished().map((span) => span.attributes))).not.toContain("SECRET");
      exporter.reset();
      expect((await request("/items/1")).status).toBe(200);
      const select = one("SELECT items");
      expect(select.attributes["db.query.text"]).toMatch(/^SELECT .* FROM "items" WHERE/);
      expect(select.parentSpanContext?.spanId).toBe(one("handle").spanContext().spanId);
    });

    it("traces a mounted router's routes by the mounting router's option, named by their full path", async () => {
      expect((await request("/v1/tasks/3")).status).toBe(200);
      const span = one("GET /v1/tasks/{id}");
      expect(span.attributes).toMatchObject({ "http.route": "/v1/tasks/{id}", "url.path": "/v1/tasks/3" });
    });

    it("traces a limited, idempotent write like any other: one run of the handler, its replay, the 429", async () => {
      const db = betterSqlite3Driver(new Database(":memory:"));
      let ran = 0;
      class Once extends OpenAPIRoute {
        schema = {
          rateLimit: rateLimit({ limit: 3, windowSeconds: 60, store: memoryRateLimitStore() }),
          idempotency: idempotency({ store: sqlIdempotencyStore(db) }),
          request: { body: contentJson(z.object({ title: z.string() })) },
          responses: {},
        };
        async handle() {
          ran++;
          return { ran };
        }
      }
      const limited = harness.make({ tracing: openTelemetry() });
      limited.router.post("/once", Once);
      const send = (title: string) =>
        limited.request("/once", jsonBody({ title }, { headers: { "idempotency-key": "k-1" } }));
      const first = await send("a");
      const replayed = await send("a");
      expect(await first.json()).toEqual({ ran: 1 });
      expect(await replayed.json()).toEqual({ ran: 1 });
      expect(first.headers.get("ratelimit")).toMatch(/^"default";r=2;/);
      expect((await send("b")).status).toBe(422);
      expect((await send("a")).status).toBe(429);
      expect(ran).toBe(1);
      const requests = named("POST /once");
      expect(requests.map((span) => span.attributes["http.response.status_code"])).toEqual([200, 200, 422, 429]);
      // The handler ran once: one handle span, under the first request's span.
      const handles = named("handle");
      expect(handles).toHaveLength(1);
      expect(handles[0]!.parentSpanContext?.spanId).toBe(requests[0]!.spanContext().spanId);
      expect(named("validate")).toHaveLength(4);
    });

    it("traces nothing on a router without the option", async () => {
      const plain = harness.make();
      plain.router.get("/tasks/:id", GetTask);
      expect((await plain.request("/tasks/7")).status).toBe(200);
      // Only the app's own span: specroute started none.
      expect(finished().map((span) => span.name)).toEqual(["load task"]);
    });
  });
}
