import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  bearerAuth,
  betterSqlite3Driver,
  contentJson,
  memoryRateLimitStore,
  OpenAPIRoute,
  rateLimit,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  type TraceSpan,
  type Tracing,
} from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

// Attacks on chanfana's order of errors (validationFailures: "when-asked"), over real HTTP: what a
// client that sends invalid input can make a handler do or answer.
afterAll(closeHttpHarnesses);

const Query = z.object({ n: z.number().int() });
const ok = { "200": { description: "ok" } };

/** Answers a success whatever `?how=` says: returned, thrown as a Response, or after catching the 400. */
class SucceedsAnyway extends OpenAPIRoute {
  schema = { request: { query: z.object({ n: z.number().int(), how: z.string() }) }, responses: ok };
  async handle() {
    const how = new URL(this.params.router.getRequest(this.args).url).searchParams.get("how");
    if (how === "throw") throw Response.json({ ok: true });
    if (how === "catch") return this.getValidatedData().catch(() => ({ ok: true }));
    return { ok: true };
  }
}

describe.each(httpHarnesses)("a held validation failure, attacked on $name $transport", (harness) => {
  it("answers the 400 to a handler that catches it and answers a success of its own", async () => {
    const writes: unknown[] = [];
    class SwallowsIt extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        try {
          const { query } = await this.getValidatedData();
          writes.push(query.n);
          return { saved: query.n };
        } catch {
          // A catch-all that answers "nothing saved" as a success, as many handlers are written.
          return { saved: null };
        }
      }
    }
    class RedirectsIt extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        const data = await this.getValidatedData().catch(() => undefined);
        if (data === undefined) return Response.redirect("http://127.0.0.1/elsewhere", 302);
        return { n: data.query.n };
      }
    }
    const { router, request } = harness.make();
    router.get("/swallows", SwallowsIt);
    router.get("/redirects", RedirectsIt);
    const swallowed = await request("/swallows?n=abc");
    expect(swallowed.status).toBe(400);
    expect(await swallowed.json()).toMatchObject({ success: false, errors: [{ path: ["query", "n"] }] });
    const redirected = await request("/redirects?n=abc", { redirect: "manual" });
    expect(redirected.status).toBe(400);
    expect(writes).toEqual([]);
    // Valid input still gets the handler's answer.
    expect(await (await request("/swallows?n=4")).json()).toEqual({ saved: 4 });
    expect((await request("/redirects?n=4", { redirect: "manual" })).status).toBe(200);
  });

  it("answers the 400 for a handler that never asks, whatever non-error it returns", async () => {
    class Returns extends OpenAPIRoute {
      schema = { request: { query: z.object({ n: z.number().int(), as: z.string() }) }, responses: ok };
      handle() {
        const as = new URL(this.params.router.getRequest(this.args).url).searchParams.get("as");
        if (as === "204") return new Response(null, { status: 204 });
        if (as === "304") return new Response(null, { status: 304 });
        if (as === "399") return new Response("x", { status: 399 });
        if (as === "thenable") {
          // biome-ignore lint/suspicious/noThenProperty: a thenable is what this answers
          return { then: (resolve: (v: unknown) => void) => resolve({ ok: true }) };
        }
        if (as === "string") return "ok";
        return undefined;
      }
    }
    const { router, request } = harness.make();
    router.get("/returns", Returns);
    for (const as of ["204", "304", "399", "thenable", "string", "nothing"]) {
      const answer = await request(`/returns?n=x&as=${as}`);
      expect(answer.status, as).toBe(400);
    }
  });

  it("keeps one request's held failure from another's, on the same route at once", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let waiting = 0;
    class Slow extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        waiting++;
        await gate;
        const { query } = await this.getValidatedData();
        return { n: query.n };
      }
    }
    const { router, request } = harness.make();
    router.get("/slow", Slow);
    const answers = [request("/slow?n=x"), request("/slow?n=1"), request("/slow?n=y"), request("/slow?n=2")];
    while (waiting < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));
    expect(statuses).toEqual([400, 200, 400, 200]);
  });

  it("counts a held failure against the rate limit, and answers the 429 before the handler", async () => {
    let started = 0;
    class Limited extends OpenAPIRoute {
      schema = {
        rateLimit: rateLimit({ limit: 2, windowSeconds: 60, key: () => "one", store: memoryRateLimitStore() }),
        request: { query: Query },
        responses: ok,
      };
      async handle() {
        started++;
        return { n: (await this.getValidatedData()).query.n };
      }
    }
    const { router, request } = harness.make();
    router.get("/limited", Limited);
    expect((await request("/limited?n=x")).status).toBe(400);
    expect((await request("/limited?n=y")).status).toBe(400);
    expect((await request("/limited?n=1")).status).toBe(429);
    expect((await request("/limited?n=z")).status).toBe(429);
    expect(started).toBe(2);
  });

  it("answers the route's auth before the handler, and shows an anonymous client no schema", async () => {
    let started = 0;
    const auth = bearerAuth({ verify: async (token) => (token === "good" ? { id: "u1" } : null) });
    class Authed extends OpenAPIRoute {
      schema = { auth, request: { body: contentJson(z.object({ secretField: z.string() })) }, responses: ok };
      async handle() {
        started++;
        const principal = await this.getPrincipal();
        await this.getValidatedData();
        return { principal };
      }
    }
    const { router, request } = harness.make();
    router.post("/authed", Authed);
    const anonymous = await request("/authed", jsonBody({ secretField: 1 }));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain("secretField");
    const bad = await request("/authed", jsonBody({ secretField: 1 }, { headers: { authorization: "Bearer bad" } }));
    expect(bad.status).toBe(401);
    expect(started).toBe(0);
    const invalid = await request("/authed", jsonBody({}, { headers: { authorization: "Bearer good" } }));
    expect(invalid.status).toBe(400);
    expect(started).toBe(1);
  });

  it("raises the held failure from validateRequest() of the request being handled", async () => {
    let past = 0;
    class Revalidates extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        const data = await this.validateRequest(this.params.router.getRequest(this.args));
        past++;
        return data;
      }
    }
    const { router, request } = harness.make();
    router.get("/revalidates", Revalidates);
    expect((await request("/revalidates?n=x")).status).toBe(400);
    expect(past).toBe(0);
    expect((await request("/revalidates?n=3")).status).toBe(200);
  });

  it("keeps a nested router strict under a strict parent, whichever other parent mounts it", async () => {
    let started = 0;
    class Counts extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        started++;
        return { n: (await this.getValidatedData()).query.n };
      }
    }
    const lenient = harness.make();
    const strict = harness.make({ validationFailures: "before-handle" });
    const middle = harness.nested();
    const inner = harness.nested();
    inner.get("/counts", Counts);
    middle.route("/inner", inner);
    lenient.router.route("/m", middle);
    strict.router.route("/m", middle);
    strict.router.route("/i", inner);
    expect((await strict.request("/m/inner/counts?n=x")).status).toBe(400);
    expect((await strict.request("/i/counts?n=x")).status).toBe(400);
    expect(started).toBe(0);
    expect((await lenient.request("/m/inner/counts?n=x")).status).toBe(400);
    expect(started).toBe(1);
  });

  it("keeps a subclass of an auto endpoint strict, even one whose handle() writes before its parent's", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
    db.exec("CREATE TABLE audit (what TEXT)");
    const Note = z.object({ id: z.number().int(), title: z.string().min(1) });
    class AuditedCreate extends SqlCreateEndpoint {
      _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
      override async handle(...args: unknown[]) {
        db.prepare("INSERT INTO audit VALUES ('create')").run();
        return super.handle(...args);
      }
    }
    const { router, request } = harness.make({ db: betterSqlite3Driver(db) } as never);
    router.post("/notes", AuditedCreate);
    expect((await request("/notes", jsonBody({ title: "" }))).status).toBe(400);
    expect((await request("/notes", jsonBody({ title: 7 }))).status).toBe(400);
    expect(db.prepare("SELECT COUNT(*) AS n FROM audit").get()).toEqual({ n: 0 });
    expect((await request("/notes", jsonBody({ title: "ok" }))).status).toBe(201);
    expect(db.prepare("SELECT COUNT(*) AS n FROM notes").get()).toEqual({ n: 1 });
  });

  it("answers a handler's own error it throws before asking, and the 400 for what it throws after", async () => {
    class ReadsDirectly extends OpenAPIRoute {
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        // Reading the internal field, not asking: a failed request has no validated data there.
        const data = this.validatedData as { query?: { n: number } } | undefined;
        return { n: data?.query?.n ?? "none" };
      }
    }
    const { router, request } = harness.make();
    router.get("/reads-directly", ReadsDirectly);
    const invalid = await request("/reads-directly?n=x");
    expect(invalid.status).toBe(400);
    expect(await (await request("/reads-directly?n=2")).json()).toEqual({ n: 2 });
  });

  it("answers the 400 for a success a handler throws, or its handleError() makes of what it threw", async () => {
    const writes: string[] = [];
    class Existing extends Error {}
    class ThrowsSuccess extends OpenAPIRoute {
      schema = { request: { query: z.object({ n: z.number().int(), how: z.string() }) }, responses: ok };
      async handle() {
        const how = new URL(this.params.router.getRequest(this.args).url).searchParams.get("how");
        writes.push(String(how));
        // Thrown as Remix and itty-router apps throw answers: before asking, or after catching the 400.
        if (how === "response") throw Response.json({ ok: true });
        if (how === "redirect") throw Response.redirect("http://127.0.0.1/next", 303);
        if (how === "caught") {
          await this.getValidatedData().catch(() => {
            throw Response.json({ ok: true });
          });
        }
        if (how === "mapped") throw new Existing();
        return { n: (await this.getValidatedData()).query.n };
      }
      override handleError(error: unknown) {
        // An "already there" the app answers as a success, as idempotent creates do.
        return error instanceof Existing ? Response.json({ existing: true }, { status: 200 }) : error;
      }
    }
    const { router, request } = harness.make();
    router.get("/throws", ThrowsSuccess);
    for (const how of ["response", "redirect", "caught", "mapped"]) {
      const answer = await request(`/throws?n=x&how=${how}`, { redirect: "manual" });
      expect(answer.status, how).toBe(400);
      expect(await answer.json(), how).toMatchObject({ success: false, errors: [{ path: ["query", "n"] }] });
    }
    // With valid input each answers as the handler said.
    expect((await request("/throws?n=1&how=response")).status).toBe(200);
    expect(await (await request("/throws?n=1&how=mapped")).json()).toEqual({ existing: true });
  });

  it("cancels the stream of an answer it sets aside for the 400, so nothing it started keeps running", async () => {
    const running = new Set<ReturnType<typeof setInterval>>();
    class HandMadeEvents extends OpenAPIRoute {
      // A stream written by hand, as text/event-stream apps did before the framework streamed: no
      // streaming response declared, so the route keeps chanfana's order.
      schema = { request: { query: z.object({ channel: z.string().min(3) }) }, responses: ok };
      async handle() {
        let timer: ReturnType<typeof setInterval>;
        const events = new ReadableStream<string>({
          start(controller) {
            timer = setInterval(() => controller.enqueue("event: ping\n\n"), 5);
            running.add(timer);
          },
          cancel() {
            clearInterval(timer);
            running.delete(timer);
          },
        });
        const how = new URL(this.params.router.getRequest(this.args).url).searchParams.get("how");
        const answer = new Response(events.pipeThrough(new TextEncoderStream()), {
          headers: { "content-type": "text/event-stream" },
        });
        if (how === "throw") throw answer;
        return answer;
      }
    }
    const { router, request } = harness.make();
    router.get("/events", HandMadeEvents);
    expect((await request("/events?channel=x")).status).toBe(400);
    expect((await request("/events?channel=x&how=throw")).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const left = running.size;
    for (const timer of running) clearInterval(timer);
    expect(left).toBe(0);
  });

  it("reads a number that is no decimal as NaN, which no auto endpoint's filter or path key accepts", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, rank REAL)");
    db.exec("INSERT INTO notes (title, rank) VALUES ('a', 1), ('b', NULL)");
    const Note = z.object({ id: z.number().int(), title: z.string(), rank: z.number().nullable() });
    const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
    class ListNotes extends SqlListEndpoint {
      _meta = meta;
      filterFields = ["rank", "id"];
    }
    class ReadNote extends SqlReadEndpoint {
      _meta = meta;
    }
    const { router, request } = harness.make({ db: betterSqlite3Driver(db) } as never);
    router.get("/notes", ListNotes);
    router.get("/notes/:id", ReadNote);
    for (const path of ["/notes?rank=abc", "/notes?id=0x1", "/notes?rank=Infinity", "/notes/abc", "/notes/1e400x"]) {
      const answer = await request(path);
      expect(answer.status, path).toBe(400);
      expect(JSON.stringify(await answer.json()), path).toContain("NaN");
    }
    expect((await request("/notes/1")).status).toBe(200);
    expect((await (await request("/notes?rank=1")).json()).result).toHaveLength(1);
  });

  it("hands the router's error hook the 400, not the success, with passthroughErrors", async () => {
    const { router, request, caught } = harness.make({ passthroughErrors: true });
    router.get("/succeeds", SucceedsAnyway);
    for (const how of ["return", "throw", "catch"]) {
      const answer = await request(`/succeeds?n=x&how=${how}`);
      expect(answer.status, how).toBeGreaterThanOrEqual(400);
    }
    expect(caught).toHaveLength(3);
    for (const error of caught) {
      const seen = error as { status?: number; cause?: unknown };
      expect(seen.status ?? (seen.cause as { status?: number })?.status).toBe(400);
    }
  });

  it("answers the 400 for a held failure on a traced route, as untraced, and ends the spans with it", async () => {
    const ended: Array<{ name: string; status?: unknown }> = [];
    const span = (name: string): TraceSpan => {
      const attributes: Record<string, unknown> = {};
      return {
        child: (child) => span(child),
        event: () => {},
        run: (work) => work(),
        set: (more) => Object.assign(attributes, more),
        end: () => ended.push({ name, status: attributes["http.response.status_code"] }),
      };
    };
    const tracing: Tracing = { request: (name) => span(name) };
    const { router, request } = harness.make({ tracing });
    router.get("/traced", SucceedsAnyway);
    for (const how of ["return", "throw", "catch"])
      expect((await request(`/traced?n=x&how=${how}`)).status, how).toBe(400);
    expect(ended.filter((one) => one.name === "GET /traced").map((one) => one.status)).toEqual([400, 400, 400]);
  });

  it("refuses a class whose static validationFailures is no order it knows, rather than serve the lenient one", async () => {
    let started = 0;
    class Misspelt extends OpenAPIRoute {
      // As a JavaScript app (or a cast) can write it: meant strict.
      static override readonly validationFailures = "before_handle" as never;
      schema = { request: { query: Query }, responses: ok };
      async handle() {
        started++;
        return { n: (await this.getValidatedData()).query.n };
      }
    }
    const { router, request } = harness.make();
    router.get("/misspelt", Misspelt);
    expect(() => router.compile()).toThrow(
      'GET /misspelt (Misspelt): static validationFailures must be "when-asked" or "before-handle", got "before_handle"',
    );
    expect((await request("/misspelt?n=x")).status).toBe(500);
    expect(started).toBe(0);
  });
});
