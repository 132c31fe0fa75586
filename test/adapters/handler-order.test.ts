import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  contentJson,
  idempotency,
  idempotencyTable,
  MultiException,
  NotFoundException,
  OpenAPIRoute,
  type RouterOptions,
  sqlIdempotencyStore,
  sqliteDialect,
  UnauthorizedException,
} from "../../src";
import { closeHttpHarnesses, harnesses, httpHarnesses, jsonBody } from "../helpers";

// chanfana raises a validation failure where the handler asks for its data (getValidatedData()), so what
// a handler throws before that is the answer. These run on both routers, in-process and over HTTP.
afterAll(closeHttpHarnesses);

/** What each endpoint's handler did: how often it started, and how often it got past asking for its data. */
interface Runs {
  started: number;
  pastData: number;
}

const TOKEN = "Bearer let-me-in";
const Title = z.object({ title: z.string().min(1) });
const knownIds = new Set(["7"]);

/** The endpoints, each counting its runs in `runs`, as a real app's handlers are written. */
function endpoints(runs: Runs) {
  /** Checks authentication first, then reads its body: chanfana answers 401 to a client without credentials. */
  class AuthFirst extends OpenAPIRoute {
    schema = { request: { body: contentJson(Title) }, responses: { "200": { description: "ok" } } };
    async handle() {
      runs.started++;
      if (this.params.router.getRequest(this.args).headers.get("authorization") !== TOKEN) {
        throw new UnauthorizedException();
      }
      const { body } = await this.getValidatedData();
      runs.pastData++;
      return { title: body.title };
    }
  }

  /** Looks its object up by the raw id first (pkic.org's proposals), then reads its body. */
  class LookupFirst extends OpenAPIRoute {
    schema = {
      request: { params: z.object({ id: z.string() }), body: contentJson(Title) },
      responses: { "200": { description: "ok" } },
    };
    async handle() {
      runs.started++;
      const { params } = await this.getUnvalidatedData();
      if (!knownIds.has(String(params?.id))) throw new NotFoundException();
      const { body } = await this.getValidatedData();
      runs.pastData++;
      return { renamed: body.title };
    }
  }

  /** Never asks for its data: reads the query itself. */
  class NeverAsks extends OpenAPIRoute {
    schema = { request: { query: z.object({ n: z.number().int() }) }, responses: { "200": { description: "ok" } } };
    async handle() {
      runs.started++;
      const n = new URL(this.params.router.getRequest(this.args).url).searchParams.get("n");
      if (n === "refuse") return Response.json({ refused: true }, { status: 403 });
      return { ok: true, n };
    }
  }

  /** Catches the 400 it meets and answers for itself. */
  class CatchesIt extends OpenAPIRoute {
    schema = { request: { query: z.object({ n: z.number().int() }) }, responses: { "200": { description: "ok" } } };
    async handle() {
      runs.started++;
      try {
        const { query } = await this.getValidatedData();
        return { n: query.n };
      } catch (error) {
        return Response.json({ caught: error instanceof MultiException }, { status: 422 });
      }
    }
  }

  /** Sees the 400 in handleError when raised where it asks, as chanfana's hook does. */
  class Hooked extends OpenAPIRoute {
    schema = { request: { query: z.object({ n: z.number().int() }) }, responses: { "200": { description: "ok" } } };
    async handle() {
      await this.getValidatedData();
      return { ok: true };
    }
    override handleError(error: unknown) {
      if (error instanceof MultiException) return Response.json({ hooked: error.errors.length }, { status: 418 });
      return error;
    }
  }

  /** The same handler as AuthFirst, with the strict order asked for by the class. */
  class StrictClass extends AuthFirst {
    static override readonly validationFailures = "before-handle" as const;
  }

  /** A required header beside an optional one and one with a default. */
  class Headers extends OpenAPIRoute {
    schema = {
      request: {
        headers: z.object({
          "x-tenant": z.string(),
          "x-trace": z.string().optional(),
          "x-mode": z.enum(["fast", "slow"]).default("fast"),
        }),
      },
      responses: { "200": { description: "ok" } },
    };
    async handle() {
      const { headers } = await this.getValidatedData();
      return { headers };
    }
  }

  /** A route that streams: its generator would ask only once the stream's headers are out. */
  class Streams extends OpenAPIRoute {
    schema = {
      request: { query: z.object({ n: z.number().int() }) },
      responses: {
        "200": { description: "events", content: { "application/jsonl": { schema: z.object({ i: z.number() }) } } },
      },
    };
    async *handle() {
      runs.started++;
      const { query } = await this.getValidatedData();
      for (let i = 0; i < query.n; i++) yield { i };
    }
  }

  return { AuthFirst, LookupFirst, NeverAsks, CatchesIt, Hooked, StrictClass, Headers, Streams };
}

function appWith(harness: (typeof harnesses)[number], options?: RouterOptions) {
  const runs: Runs = { started: 0, pastData: 0 };
  const app = harness.make(options);
  const routes = endpoints(runs);
  app.router.post("/auth-first", routes.AuthFirst);
  app.router.put("/things/:id", routes.LookupFirst);
  app.router.get("/never-asks", routes.NeverAsks);
  app.router.get("/catches", routes.CatchesIt);
  app.router.get("/hooked", routes.Hooked);
  app.router.post("/strict-class", routes.StrictClass);
  app.router.get("/headers", routes.Headers);
  app.router.get("/streams", routes.Streams);
  return { ...app, runs };
}

const authorized = (body: unknown): RequestInit => jsonBody(body, { headers: { authorization: TOKEN } });

describe.each([...harnesses, ...httpHarnesses])(
  "the handler's own error before the validation 400, on $name $transport",
  (harness) => {
    it("answers the 401 a handler throws before it reads its body, and the 400 once it asks", async () => {
      const { request, runs } = appWith(harness);
      const anonymous = await request("/auth-first", { method: "POST" });
      expect(anonymous.status).toBe(401);
      // A client without credentials is told to log in, not shown the body's schema.
      expect(JSON.stringify(await anonymous.json())).not.toContain("title");
      const invalid = await request("/auth-first", authorized({ title: "" }));
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ success: false, errors: [{ code: 7001, path: ["body", "title"] }] });
      // No code after getValidatedData() ran on invalid input.
      expect(runs).toEqual({ started: 2, pastData: 0 });
      expect((await request("/auth-first", authorized({ title: "ok" }))).status).toBe(200);
      expect(runs.pastData).toBe(1);
    });

    it("answers the 404 a handler throws looking its object up before it reads the body", async () => {
      const { request, runs } = appWith(harness);
      expect((await request("/things/404", jsonBody({ title: 5 }, { method: "PUT" }))).status).toBe(404);
      const invalid = await request("/things/7", jsonBody({ title: 5 }, { method: "PUT" }));
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ errors: [{ path: ["body", "title"] }] });
      expect(runs).toEqual({ started: 2, pastData: 0 });
      const valid = await request("/things/7", jsonBody({ title: "new" }, { method: "PUT" }));
      expect(await valid.json()).toEqual({ renamed: "new" });
    });

    it("answers the 400 for a handler that never asks, unless it answered an error of its own", async () => {
      const { request, runs } = appWith(harness);
      const invalid = await request("/never-asks?n=abc");
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ errors: [{ path: ["query", "n"] }] });
      expect(runs.started).toBe(1);
      expect((await request("/never-asks?n=refuse")).status).toBe(403);
      expect(await (await request("/never-asks?n=3")).json()).toEqual({ ok: true, n: "3" });
    });

    it("lets a handler catch the 400 it meets and answer for itself, and shows it to handleError()", async () => {
      const { request } = appWith(harness);
      const caught = await request("/catches?n=x");
      expect(caught.status).toBe(422);
      expect(await caught.json()).toEqual({ caught: true });
      const hooked = await request("/hooked?n=x");
      expect(hooked.status).toBe(418);
      expect(await hooked.json()).toEqual({ hooked: 1 });
    });

    it("answers a body too large or of the wrong type before the handler runs", async () => {
      const { request, runs } = appWith(harness, { maxBodySize: 64 });
      const large = await request("/auth-first", jsonBody({ title: "x".repeat(200) }));
      expect(large.status).toBe(413);
      const form = await request("/auth-first", {
        method: "POST",
        headers: { "content-type": "application/xml" },
        body: "<a/>",
      });
      expect(form.status).toBe(415);
      expect(runs.started).toBe(0);
    });

    it("with validationFailures: before-handle, answers the 400 before any handler code runs", async () => {
      const { request, runs } = appWith(harness, { validationFailures: "before-handle" });
      expect((await request("/auth-first", { method: "POST" })).status).toBe(400);
      expect((await request("/things/404", jsonBody({ title: 5 }, { method: "PUT" }))).status).toBe(400);
      expect((await request("/never-asks?n=abc")).status).toBe(400);
      expect(runs.started).toBe(0);
      expect((await request("/auth-first", authorized({ title: "ok" }))).status).toBe(200);
    });

    it("keeps the strict order a class asks for, and a route that streams", async () => {
      const { request, runs } = appWith(harness);
      expect((await request("/strict-class", { method: "POST" })).status).toBe(400);
      const stream = await request("/streams?n=x");
      expect(stream.status).toBe(400);
      expect(runs.started).toBe(0);
      expect(await (await request("/streams?n=2")).text()).toBe('{"i":0}\n{"i":1}\n');
    });

    it("reads an absent required header as chanfana does, while optional ones stay unset", async () => {
      const { request } = appWith(harness);
      const missing = await request("/headers", { headers: { "x-trace": "t1" } });
      expect(missing.status).toBe(400);
      expect(await missing.json()).toEqual({
        success: false,
        errors: [
          { code: 7001, message: "Invalid input: expected string, received null", path: ["headers", "x-tenant"] },
        ],
        result: {},
      });
      const empty = await request("/headers", { headers: { "x-tenant": "" } });
      expect(await empty.json()).toMatchObject({
        errors: [{ message: "Invalid input: expected string, received null" }],
      });
      const sent = await request("/headers", { headers: { "x-tenant": "acme" } });
      expect(sent.status).toBe(200);
      expect(await sent.json()).toEqual({ headers: { "x-tenant": "acme", "x-mode": "fast" } });
    });
  },
);

describe.each(harnesses)("the order of errors under mounts and idempotency keys, on $name", (harness) => {
  it("a mount under a strict router answers before the handler; a mount can only make the order stricter", async () => {
    const runs: Runs = { started: 0, pastData: 0 };
    const strict = harness.make({ validationFailures: "before-handle" });
    const nested = harness.nested();
    nested.post("/auth-first", endpoints(runs).AuthFirst);
    strict.router.route("/api", nested);
    expect((await strict.request("/api/auth-first", { method: "POST" })).status).toBe(400);
    expect(runs.started).toBe(0);

    const lenient = harness.make();
    const strictNested = harness.nested({ validationFailures: "before-handle" });
    strictNested.post("/auth-first", endpoints(runs).AuthFirst);
    lenient.router.route("/api", strictNested);
    expect((await lenient.request("/api/auth-first", { method: "POST" })).status).toBe(400);
    expect(runs.started).toBe(0);
  });

  it("a route with idempotency keys never runs on invalid input, so a 400 claims no key", async () => {
    const db = new Database(":memory:");
    db.exec(idempotencyTable(sqliteDialect));
    const once = idempotency({ store: sqlIdempotencyStore(betterSqlite3Driver(db)) });
    const runs: Runs = { started: 0, pastData: 0 };
    class Once extends OpenAPIRoute {
      schema = {
        idempotency: once,
        request: { body: contentJson(Title) },
        responses: { "200": { description: "ok" } },
      };
      async handle() {
        runs.started++;
        return { title: (await this.getValidatedData()).body.title };
      }
    }
    const { router, request } = harness.make();
    router.post("/once", Once);
    const refused = await request("/once", { method: "POST", headers: { "idempotency-key": "k1" } });
    expect(refused.status).toBe(400);
    expect(runs.started).toBe(0);
    expect(db.prepare("SELECT COUNT(*) AS n FROM specroute_idempotency").get()).toEqual({ n: 0 });
  });

  it("rejects an unknown validationFailures value when the router is made", () => {
    expect(() => harness.make({ validationFailures: "later" as never })).toThrow(
      'validationFailures must be "when-asked" or "before-handle", got "later"',
    );
  });
});
