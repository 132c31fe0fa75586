import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { contentEventStream, contentJson, contentJsonLines, OpenAPIRoute } from "../../src";
import { createClient, StreamError } from "../../src/client";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";
import { redoclyErrors, validateDocument } from "../openapi/helpers";

// Streamed answers over real HTTP: handle() returns an async iterable, each item goes out as a
// Server-Sent Event or a JSON Lines line as it comes, pulled as fast as the client reads.
afterAll(closeHttpHarnesses);

const Tick = z.object({ n: z.number().int(), label: z.string() });

class Ticks extends OpenAPIRoute {
  schema = {
    request: { query: z.object({ count: z.number().int().min(0).max(100) }) },
    responses: { "200": { description: "count ticks", ...contentEventStream(Tick) } },
  };
  async *handle() {
    const { query } = await this.getValidatedData<typeof this.schema>();
    for (let n = 0; n < query.count; n++) {
      yield { event: n % 2 === 0 ? "even" : "odd", id: String(n), data: { n, label: `line\nbreak ${n}` } };
    }
  }
}

/** Yields two good items, then one its schema refuses, then would go on. */
class BadItem extends OpenAPIRoute {
  schema = { responses: { "200": { description: "items", ...contentJsonLines(Tick) } } };
  async *handle() {
    yield { n: 1, label: "a" };
    yield { n: 2, label: "b" };
    yield { n: "three", label: "c" };
    yield { n: 4, label: "d" };
  }
}

/** Fails part-way with an exception of the framework's: its message is the client's to see. */
class Fails extends OpenAPIRoute {
  schema = { responses: { "200": { description: "events", ...contentEventStream(Tick) } } };
  async *handle() {
    yield { data: { n: 1, label: "before" } };
    throw new Error("the feed broke");
  }
}

/** Declares no stream, and returns one. */
class Undeclared extends OpenAPIRoute {
  schema = { responses: { "200": { description: "json", ...contentJson(Tick) } } };
  async *handle() {
    yield { n: 1, label: "x" };
  }
}

let produced = 0;
let cleanedUp = 0;

/** Many large lines, counting how many were made, and whether the generator's cleanup ran. */
class Many extends OpenAPIRoute {
  schema = {
    request: { query: z.object({ count: z.number().int().max(10_000) }) },
    responses: { "200": { description: "lines", ...contentJsonLines(z.object({ i: z.number(), pad: z.string() })) } },
  };
  async *handle() {
    const { query } = await this.getValidatedData<typeof this.schema>();
    try {
      for (let i = 0; i < query.count; i++) {
        produced++;
        yield { i, pad: "x".repeat(8 * 1024) };
      }
    } finally {
      cleanedUp++;
    }
  }
}

/** Waits until `condition` holds, polling for at most `ms`. */
async function eventually(condition: () => boolean, ms = 3000): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 20) await new Promise((r) => setTimeout(r, 20));
  expect(condition()).toBe(true);
}

for (const harness of httpHarnesses) {
  describe(`streamed answers over HTTP: ${harness.name}`, () => {
    const make = (options = {}) => {
      const app = harness.make({ validateResponse: true, ...options });
      app.router.get("/ticks", Ticks);
      app.router.get("/bad-item", BadItem);
      app.router.get("/fails", Fails);
      app.router.get("/undeclared", Undeclared);
      app.router.get("/many", Many);
      return app;
    };

    it("writes each yielded item as a Server-Sent Event, data as JSON on one line", async () => {
      const app = make();
      const response = await app.request("/ticks?count=3");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(await response.text()).toBe(
        [0, 1, 2]
          .map(
            (n) =>
              `event: ${n % 2 === 0 ? "even" : "odd"}\nid: ${n}\ndata: ${JSON.stringify({ n, label: `line\nbreak ${n}` })}\n\n`,
          )
          .join(""),
      );
      // The request is validated before anything streams.
      const bad = await app.request("/ticks?count=-1");
      expect(bad.status).toBe(400);
      expect(JSON.stringify(await bad.json())).toContain("count");
    });

    it("reads a stream through the typed client as an async iterator of typed events", async () => {
      const app = make();
      // The types are the type tests' (streams.test-d.ts); here the runtime reads the stream.
      const api: any = createClient("http://stream.test", {
        fetch: (request) => app.request(new URL(request.url).pathname + new URL(request.url).search),
      });
      const result = await api.get("/ticks", { query: { count: 4 } });
      expect(result.ok).toBe(true);
      const seen: unknown[] = [];
      for await (const event of result.data) seen.push(event);
      expect(seen).toHaveLength(4);
      expect(seen[1]).toEqual({ event: "odd", id: "1", data: { n: 1, label: "line\nbreak 1" } });
    });

    it("ends with an error event (SSE) or line (JSONL) when an item fails its schema or the iterator throws", async () => {
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const app = make();
        const lines = (await (await app.request("/bad-item")).text()).trimEnd().split("\n");
        expect(lines.map((line) => JSON.parse(line))).toEqual([
          { n: 1, label: "a" },
          { n: 2, label: "b" },
          { success: false, errors: [{ code: 7013, message: "Internal Error" }], result: {} },
        ]);
        const events = await (await app.request("/fails")).text();
        expect(events).toBe(
          `data: {"n":1,"label":"before"}\n\nevent: error\ndata: {"success":false,"errors":[{"code":7009,"message":"Internal Error"}],"result":{}}\n\n`,
        );
        // What the client is not told goes to the log, with the route and a request id.
        expect(String(logged.mock.calls.at(-1)?.[0])).toMatch(/500 while streaming GET \/fails \(Fails\), request id /);
        // The typed client throws the error body where the stream ended.
        const api: any = createClient("http://stream.test", {
          fetch: (request) => app.request(new URL(request.url).pathname),
        });
        const result = await api.get("/fails");
        const read: unknown[] = [];
        const failure = await (async () => {
          for await (const event of result.data) read.push(event);
        })().catch((err: unknown) => err);
        expect(read).toEqual([{ data: { n: 1, label: "before" } }]);
        expect(failure).toBeInstanceOf(StreamError);
        expect((failure as StreamError).body).toMatchObject({ success: false });
        // The problem format carries the same failure as an RFC 9457 body.
        const problem = make({ errorFormat: "problem" });
        const last = (await (await problem.request("/bad-item")).text()).trimEnd().split("\n").at(-1)!;
        expect(JSON.parse(last)).toMatchObject({ title: "Response Validation Error", status: 500 });
      } finally {
        logged.mockRestore();
      }
    });

    it("answers 500 through the router when a route streams without declaring it", async () => {
      const app = make();
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect((await app.request("/undeclared")).status).toBe(500);
        expect(String(app.caught.at(-1))).toContain("declares no text/event-stream or application/jsonl content");
      } finally {
        logged.mockRestore();
      }
    });

    it("streams 10 000 large lines, making each only as the client reads (bounded memory)", async () => {
      const app = make();
      produced = 0;
      const response = await app.request("/many?count=10000");
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let received = 0;
      // Read a few lines, then stop reading for a while: the server must stop making lines too.
      while (received < 50) {
        const { value } = await reader.read();
        text += decoder.decode(value, { stream: true });
        const parts = text.split("\n");
        received += parts.length - 1;
        text = parts.at(-1)!;
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      const aheadWhilePaused = produced - received;
      // Socket buffers hold some lines (each 8 KiB); the other thousands are not made.
      expect(aheadWhilePaused).toBeLessThan(1500);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true }).split("\n").length - 1;
      }
      expect(received).toBe(10_000);
      expect(produced).toBe(10_000);
    });

    it("runs the iterator's cleanup when the client goes away", async () => {
      const app = make();
      produced = 0;
      cleanedUp = 0;
      const abort = new AbortController();
      const response = await app.request("/many?count=10000", { signal: abort.signal });
      const reader = response.body!.getReader();
      await reader.read();
      abort.abort();
      await eventually(() => cleanedUp === 1);
      // It stopped there: far fewer lines made than asked for.
      expect(produced).toBeLessThan(5000);
    });

    it("describes the stream with itemSchema in 3.2, and as a string with x-itemSchema in 3.1 and 3.0", async () => {
      const app = make({ openapiVersion: "3.2" });
      const v32 = await (await app.request("/openapi.json")).json();
      expect(v32.openapi).toBe("3.2.0");
      const media = v32.paths["/ticks"].get.responses["200"].content["text/event-stream"];
      expect(Object.keys(media)).toEqual(["itemSchema"]);
      expect(media.itemSchema.required).toEqual(["data"]);
      expect(media.itemSchema.properties.data).toMatchObject({
        type: "object",
        properties: { n: { type: "integer" }, label: { type: "string" } },
        required: ["n", "label"],
      });
      expect(Object.keys(media.itemSchema.properties)).toEqual(["data", "event", "id", "retry"]);
      expect(v32.paths["/many"].get.responses["200"].content["application/jsonl"].itemSchema.required).toEqual([
        "i",
        "pad",
      ]);
      expect((await validateDocument(v32)).errors ?? null).toBeNull();
      for (const version of ["3.1", "3"] as const) {
        const doc = app.router.getGeneratedSchema(version);
        const older = doc.paths["/ticks"].get.responses["200"].content["text/event-stream"];
        expect(older.schema.type).toBe("string");
        expect(older["x-itemSchema"]).toEqual(version === "3.1" ? media.itemSchema : expect.any(Object));
        expect((await validateDocument(doc)).errors ?? null, version).toBeNull();
        expect(await redoclyErrors(doc), version).toEqual([]);
      }
    });
  });
}
