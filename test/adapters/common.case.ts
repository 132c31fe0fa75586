import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiException,
  ConflictException,
  contentJson,
  ForbiddenException,
  InputValidationException,
  InternalServerErrorException,
  MultiException,
  NotFoundException,
  OpenAPIRoute,
  TooManyRequestsException,
  UnauthorizedException,
} from "../../src";
import { type AdapterHarness, documentErrors, jsonBody } from "../helpers";

const Task = z.object({
  title: z.string().min(1).max(100),
  email: z.email(),
  priority: z.number().int().min(1).max(5),
  done: z.boolean().default(false),
  status: z.enum(["open", "closed"]),
  due: z.iso.date().optional(),
});

class CreateTask extends OpenAPIRoute {
  schema = {
    tags: ["tasks"],
    summary: "Create a task",
    request: {
      params: z.object({ projectId: z.number().int() }),
      query: z.object({ verbose: z.boolean().default(false) }),
      headers: z.object({ "X-API-Key": z.string() }),
      cookies: z.object({ session: z.string().optional() }),
      body: contentJson(Task),
    },
    responses: { "200": { description: "Created", ...contentJson(z.object({ ok: z.boolean() })) } },
  };

  async handle() {
    const data = await this.getValidatedData();
    const raw = await this.getUnvalidatedData();
    return { ...data, sentBodyKeys: Object.keys(raw.body as object) };
  }
}

class Coerce extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({
        n: z.number().optional(),
        i: z.number().int().optional(),
        b: z.boolean().optional(),
        big: z.bigint().optional(),
        d: z.date().optional(),
        tags: z.array(z.string()).optional(),
        ids: z.array(z.number().int()).optional(),
        color: z.enum(["red", "green"]).optional(),
        page: z.number().int().default(1),
        search: z.string().optional(),
      }),
    },
    responses: {},
  };

  async handle() {
    const { query } = await this.getValidatedData();
    return {
      ...query,
      big: query.big?.toString(),
      d: query.d?.toISOString(),
      types: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? "array" : typeof v])),
    };
  }
}

class Padded extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ id: z.number().int() }),
      query: z.object({ n: z.number().optional(), big: z.bigint().optional() }),
      headers: z.object({ "X-Count": z.number().int().optional() }),
    },
    responses: {},
  };

  async handle() {
    const { params, query, headers } = await this.getValidatedData();
    return { id: params.id, n: query.n, big: query.big?.toString(), count: headers["X-Count"] };
  }
}

class Returns extends OpenAPIRoute {
  schema = { request: { query: z.object({ kind: z.string() }) }, responses: {} };
  async handle() {
    const { query } = await this.getValidatedData();
    switch (query.kind) {
      case "response":
        return new Response("teapot", { status: 418, headers: { "x-custom": "yes" } });
      case "string":
        return "plain text";
      case "null":
        return null;
      case "undefined":
        return undefined;
      case "array":
        return [1, 2];
      default:
        return { kind: query.kind };
    }
  }
}

const thrown: Record<string, () => unknown> = {
  notfound: () => new NotFoundException("No such task"),
  unauthorized: () => new UnauthorizedException(),
  forbidden: () => new ForbiddenException(),
  conflict: () => new ConflictException("Duplicate title"),
  ratelimit: () => new TooManyRequestsException("Slow down", 30),
  internal: () => new InternalServerErrorException("db password is hunter2"),
  base: () => new ApiException("Quota exhausted"),
  multi: () => new MultiException([new InputValidationException("bad a", ["body", "a"]), new NotFoundException()]),
  zod: () => z.object({ a: z.string() }).parse({ a: 1 }),
  unknown: () => new Error("SELECT * FROM secret_table at /srv/app.js:10"),
};

class Slug extends OpenAPIRoute {
  schema = { request: { params: z.object({ slug: z.string() }) }, responses: {} };
  async handle() {
    return (await this.getValidatedData()).params;
  }
}

class Throws extends OpenAPIRoute {
  schema = { request: { params: z.object({ kind: z.string() }) }, responses: {} };
  async handle() {
    const { params } = await this.getValidatedData();
    const make = thrown[params.kind]!;
    const error = make();
    throw error;
  }
}

class Echo extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(z.object({ name: z.string() }).passthrough()) },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return { body, polluted: ({} as Record<string, unknown>).polluted ?? null };
  }
}

class Hooked extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.number().int() }) }, responses: {} };
  async handle(): Promise<unknown> {
    throw new Error("boom");
  }
  override handleError(error: unknown) {
    if (error instanceof MultiException) return error;
    return new Response(JSON.stringify({ handled: (error as Error).message }), { status: 409 });
  }
}

class Shaped extends OpenAPIRoute {
  schema = {
    request: { query: z.object({ good: z.boolean() }) },
    responses: { "200": { description: "ok", ...contentJson(z.object({ id: z.number(), name: z.string() })) } },
  };
  async handle() {
    const { query } = await this.getValidatedData();
    return query.good ? { id: 1, name: "a", secret: "dropped" } : { id: "nope" };
  }
}

/** A JSON body and answer with the members JSON has no type for: dates and bigints, alone, in arrays and nested. */
const Dated = z.object({
  n: z.bigint(),
  at: z.date(),
  list: z.array(z.bigint()).optional(),
  inner: z.object({ when: z.date().nullable() }).optional(),
  visits: z.array(z.object({ at: z.date() })).optional(),
});

class EchoDated extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(Dated) },
    responses: { "200": { description: "What was validated", ...contentJson(Dated) } },
  };
  async handle() {
    const { body } = await this.getValidatedData<typeof this.schema>();
    return { ...body, kinds: [typeof body.n, body.at instanceof Date, body.visits?.[0]?.at instanceof Date] };
  }
}

/** Headers and cookies read through schemas with no members to name them: a record and a union. */
class OpaqueParts extends OpenAPIRoute {
  schema = {
    request: {
      headers: z.union([z.object({ "x-a": z.string() }), z.object({ "x-b": z.string() })]),
      cookies: z.record(z.string(), z.string()),
    },
    responses: {},
  };
  async handle() {
    return await this.getValidatedData();
  }
}

class AllHeaders extends OpenAPIRoute {
  schema = { request: { headers: z.record(z.string(), z.string()) }, responses: {} };
  async handle() {
    return (await this.getValidatedData()).headers;
  }
}

type Reply = { at: Date; replies?: Reply[]; parent?: Reply };
const Reply: z.ZodType<Reply> = z.lazy(() =>
  z.object({ at: z.date(), replies: z.array(Reply).optional(), parent: Reply.optional() }),
);
/** A tree whose nodes are a union: each level's options hold the level below. */
type Tree = { kind: "group"; children: Tree[]; at?: Date } | { kind: "item"; children?: Tree[]; at: Date };
const Tree: z.ZodType<Tree> = z.lazy(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("group"), children: z.array(Tree), at: z.date().optional() }),
    z.object({ kind: z.literal("item"), children: z.array(Tree).optional(), at: z.date() }),
  ]),
);
/** An expression: a literal bigint, or the negation of an expression (a union that holds itself). */
type Expr = { op: "lit"; value: bigint } | { op: "neg"; value: Expr };
const Expr: z.ZodType<Expr> = z.lazy(() =>
  z.union([z.object({ op: z.literal("lit"), value: z.bigint() }), z.object({ op: z.literal("neg"), value: Expr })]),
);
const stringOrDate = z.discriminatedUnion("type", [
  z.object({ type: z.literal("s"), v: z.string() }),
  z.object({ type: z.literal("d"), v: z.date() }),
]);
/** A union holding itself twice over, through a lazy and its nullable: one step, opened once per value. */
const Either: z.ZodType = z.union([z.date(), z.lazy(() => Either).nullable(), z.lazy(() => Either).optional()]);
/** A lazy that builds a new schema on every call: no end to its depth. */
const endless = (): z.ZodType => z.object({ child: z.lazy(endless).optional(), s: z.string().optional() });
const at = "2026-12-04T19:00:00Z";
const atOut = "2026-12-04T19:00:00.000Z";

/** Body schemas that hold dates and bigints below unions, records, tuples and themselves: what each is sent, and answers. */
const DATED_SHAPES: Record<string, { schema: z.ZodType; sent: unknown; read: unknown }> = {
  recursive: {
    schema: Reply,
    sent: { at, replies: [{ at, parent: { at } }], parent: { at } },
    read: { at: atOut, replies: [{ at: atOut, parent: { at: atOut } }], parent: { at: atOut } },
  },
  discriminated: {
    schema: z.discriminatedUnion("k", [
      z.object({ k: z.literal("a"), at: z.date() }),
      z.object({ k: z.literal("b"), n: z.bigint() }),
    ]),
    sent: { k: "b", n: 5 },
    read: { k: "b", n: 5 },
  },
  bulk: {
    schema: z.union([z.object({ at: z.date() }), z.array(z.object({ at: z.date() }))]),
    sent: [{ at }, { at }],
    read: [{ at: atOut }, { at: atOut }],
  },
  record: { schema: z.record(z.string(), z.bigint()), sent: { a: 1, b: "2" }, read: { a: 1, b: 2 } },
  tuple: { schema: z.tuple([z.date(), z.bigint()]), sent: [at, 3], read: [atOut, 3] },
  intersection: {
    schema: z.intersection(z.object({ at: z.date() }), z.object({ n: z.bigint() })),
    sent: { at, n: "4" },
    read: { at: atOut, n: 4 },
  },
  catchall: {
    schema: z.object({ a: z.string() }).catchall(z.date()),
    sent: { a: "x", b: at },
    read: { a: "x", b: atOut },
  },
  // 60 levels of a union of two: each value is visited once, not once per option and level.
  "recursive-union": {
    schema: Tree,
    sent: nested(60, { kind: "item", at }, (inner) => ({ kind: "group", children: [inner], at })),
    read: nested(60, { kind: "item", at: atOut }, (inner) => ({ kind: "group", children: [inner], at: atOut })),
  },
  // What the schema accepts as sent keeps its meaning; where it refuses, the option the body is for reads it.
  "string-option": { schema: stringOrDate, sent: { type: "s", v: at }, read: { type: "s", v: at } },
  "date-option": { schema: stringOrDate, sent: { type: "d", v: at }, read: { type: "d", v: atOut } },
  expression: {
    schema: Expr,
    sent: { op: "neg", value: { op: "neg", value: { op: "lit", value: "1234567890123" } } },
    read: { op: "neg", value: { op: "neg", value: { op: "lit", value: 1234567890123 } } },
  },
  "intersection-with-record": {
    schema: z.intersection(z.object({ at: z.date() }), z.record(z.string(), z.unknown())),
    sent: { at },
    read: { at: atOut },
  },
  "bigint-or-zero": { schema: z.object({ v: z.union([z.bigint(), z.literal(0)]) }), sent: { v: 5 }, read: { v: 5 } },
  // A literal takes only its own value: the date-time is the date's.
  "date-or-now": {
    schema: z.object({ v: z.union([z.date(), z.literal("now")]), w: z.union([z.date(), z.literal("now")]) }),
    sent: { v: at, w: "now" },
    read: { v: atOut, w: "now" },
  },
  "self-holding-union": { schema: z.object({ at: Either }), sent: { at }, read: { at: atOut } },
  // A pipe from a string takes the text: its own coercion reads it.
  "string-piped-to-date": {
    schema: z.object({ at: z.iso.datetime().pipe(z.coerce.date()), n: z.string().pipe(z.coerce.bigint()) }),
    sent: { at, n: "123" },
    read: { at: atOut, n: 123 },
  },
  // Options that take no such text (null, a literal, a template) leave it to the date.
  "date-beside-null-literal-template": {
    schema: z.object({
      a: z.union([z.date(), z.null()]),
      b: z.union([z.literal("x").nullable(), z.date()]),
      c: z.union([z.templateLiteral(["id-", z.string()]), z.date()]),
      d: z.union([z.bigint(), z.null()]),
    }),
    sent: { a: at, b: at, c: at, d: 5 },
    read: { a: atOut, b: atOut, c: atOut, d: 5 },
  },
  "intersection-beside-object": {
    schema: z.union([
      z.intersection(z.object({ at: z.date() }), z.object({ n: z.number() })),
      z.object({ x: z.string() }),
    ]),
    sent: { at, n: 1 },
    read: { at: atOut, n: 1 },
  },
  "bigint-or-none": {
    schema: z.object({ v: z.union([z.bigint(), z.literal("none")]), w: z.union([z.bigint(), z.literal("none")]) }),
    sent: { v: 5, w: "none" },
    read: { v: 5, w: "none" },
  },
  "bigint-or-text": {
    schema: z.object({ v: z.union([z.bigint(), z.string().transform((text) => `text ${text}`)]) }),
    sent: { v: "12" },
    read: { v: "text 12" },
  },
  "number-or-bigint-option": {
    schema: z.discriminatedUnion("type", [
      z.object({ type: z.literal("n"), v: z.number() }),
      z.object({ type: z.literal("b"), v: z.bigint() }),
    ]),
    sent: { type: "n", v: 5 },
    read: { type: "n", v: 5 },
  },
  "arrays-of-either": { schema: z.union([z.array(z.string()), z.array(z.date())]), sent: [at], read: [at] },
  "tuples-of-either": {
    schema: z.tuple([z.string(), z.string()]).or(z.tuple([z.date()])),
    sent: [at, "x"],
    read: [at, "x"],
  },
  endless: { schema: endless(), sent: { child: { child: { s: "x" } } }, read: { child: { child: { s: "x" } } } },
  // A number can only be the bigint; digits stay the string the other option takes.
  "bigint-or-string": {
    schema: z.object({ v: z.bigint().or(z.string()), w: z.bigint().or(z.string()) }),
    sent: { v: 5, w: "5" },
    read: { v: 5, w: "5" },
  },
};

/** `leaf` wrapped `depth` times by `wrap`. */
function nested(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

/** A route whose body is `shape`, answering what it validated. */
function shapeRoute(shape: z.ZodType) {
  return class EchoShape extends OpenAPIRoute {
    schema = { request: { body: contentJson(shape) }, responses: {} };
    async handle() {
      return (await this.getValidatedData()).body;
    }
  };
}

async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

/** Behaviour every adapter must show identically, over real Request objects. */
export function runCommonSuite(harness: AdapterHarness): void {
  describe(`${harness.name}: request validation`, () => {
    const { router, request } = harness.make();
    router.post("/projects/:projectId/tasks", CreateTask);
    router.get("/coerce", Coerce);
    router.get("/slugs/:slug", Slug);
    router.get("/padded/:id", Padded);
    router.get("/opaque", OpaqueParts);
    router.get("/all-headers", AllHeaders);

    const validTask = { title: "Write docs", email: "a@b.co", priority: 3, status: "open" };
    const send = (body: unknown, headers: Record<string, string> = { "x-api-key": "k1" }, path = "/projects/7/tasks") =>
      request(path, jsonBody(body, { headers: { ...headers, cookie: "session=abc%20def; other=1" } }));

    it("hands handle() every declared part, validated and coerced", async () => {
      const response = await send(validTask);
      expect(response.status).toBe(200);
      const data = await json(response);
      expect(data.params).toEqual({ projectId: 7 });
      expect(data.query).toEqual({ verbose: false });
      expect(data.headers).toEqual({ "X-API-Key": "k1" });
      expect(data.cookies).toEqual({ session: "abc def" });
      expect(data.body).toEqual({ ...validTask, done: false });
    });

    it("getUnvalidatedData() shows only what the client sent, before defaults", async () => {
      const data = await json(await send(validTask));
      expect(data.sentBodyKeys.sort()).toEqual(Object.keys(validTask).sort());
    });

    it("names every failing field with its part in one 400", async () => {
      const response = await send({ ...validTask, email: "nope", priority: 9 }, {}, "/projects/x/tasks?verbose=maybe");
      expect(response.status).toBe(400);
      const body = await json(response);
      expect(body.success).toBe(false);
      expect(body.result).toEqual({});
      const paths = body.errors.map((e: { path: string[] }) => e.path.join("."));
      expect(paths).toEqual(
        expect.arrayContaining([
          "params.projectId",
          "query.verbose",
          "headers.X-API-Key",
          "body.email",
          "body.priority",
        ]),
      );
      expect(body.errors.every((e: { code: number }) => e.code === 7001)).toBe(true);
    });

    it("reads every header and cookie for a schema that names none (a record, a union), header names in lower case", async () => {
      const cookie = "session=abc; theme=dark";
      const viaA = await request("/opaque", { headers: { "X-A": "1", cookie } });
      expect(viaA.status).toBe(200);
      expect(await json(viaA)).toEqual({ headers: { "x-a": "1" }, cookies: { session: "abc", theme: "dark" } });
      expect((await json(await request("/opaque", { headers: { "x-b": "2" } }))).headers).toEqual({ "x-b": "2" });
      const neither = await request("/opaque", { headers: { "x-c": "3" } });
      expect(neither.status).toBe(400);
      expect((await json(neither)).errors[0].path).toEqual(["headers"]);
      expect(await json(await request("/all-headers", { headers: { "X-Trace": "t", "x-other": "o" } }))).toMatchObject({
        "x-trace": "t",
        "x-other": "o",
      });
    });

    it("coerces numbers, integers, booleans in any case, bigints, dates, arrays and enums", async () => {
      const response = await request(
        "/coerce?n=1.5&i=-3&b=TRUE&big=9007199254740993&d=2024-05-01T10:00:00Z&tags=a&tags=b&ids=4&color=red",
      );
      expect(response.status).toBe(200);
      const data = await json(response);
      expect(data).toMatchObject({ n: 1.5, i: -3, b: true, big: "9007199254740993", tags: ["a", "b"], ids: [4] });
      expect(data.d).toBe("2024-05-01T10:00:00.000Z");
      expect(data.types).toMatchObject({ n: "number", b: "boolean", tags: "array", ids: "array", color: "string" });
      expect((await json(await request("/coerce?b=False"))).b).toBe(false);
    });

    it('treats "" as absent, so defaults apply and optional fields stay unset', async () => {
      const data = await json(await request("/coerce?page=&search=&n="));
      expect(data.page).toBe(1);
      expect("search" in data).toBe(false);
      expect("n" in data).toBe(false);
    });

    it("rejects hex numbers, non-integers, unknown enum values and repeated single-valued keys", async () => {
      for (const query of ["n=0x10", "i=1.5", "color=blue", "page=2&page=3", "b=yes", "big=1.5"]) {
        const response = await request(`/coerce?${query}`);
        expect(response.status, query).toBe(400);
      }
      const repeated = await json(await request("/coerce?page=2&page=3"));
      expect(repeated.errors[0]).toMatchObject({
        path: ["query", "page"],
        message: "Expected a single value, received 2",
      });
    });

    it("reads numbers in the path, the query and headers with surrounding whitespace trimmed", async () => {
      // "+" in a query is a space; a no-break space around a header value survives the Headers object.
      const response = await request("/padded/%2012%09?n=%09-1.5e2%20&big=+42+", {
        headers: { "x-count": "\u00a07\u00a0" },
      });
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ id: 12, n: -150, big: "42", count: 7 });
    });

    it("rejects a number with anything but whitespace around it, and a value of spaces only", async () => {
      for (const [path, headers, failing] of [
        ["/padded/12abc", {}, "params.id"],
        ["/padded/%20%20", {}, "params.id"],
        ["/padded/1?n=12abc", {}, "query.n"],
        ["/padded/1?n=1%202", {}, "query.n"],
        ["/padded/1?n=%20%20", {}, "query.n"],
        ["/padded/1?big=%2042x", {}, "query.big"],
        ["/padded/1", { "x-count": "7 apples" }, "headers.X-Count"],
        ["/padded/1", { "x-count": "\u00a0\u00a0" }, "headers.X-Count"],
      ] as const) {
        const response = await request(path, { headers });
        expect(response.status, path).toBe(400);
        const errors = (await json(response)).errors.map((e: { path: string[] }) => e.path.join("."));
        expect(errors, path).toEqual([failing]);
      }
    });

    it("reads headers case-insensitively and exposes them under the declared name", async () => {
      const data = await json(await send(validTask, { "X-Api-KEY": "mixed" }));
      expect(data.headers).toEqual({ "X-API-Key": "mixed" });
    });

    it("decodes percent-encoded path parameters, keeping malformed escapes as sent", async () => {
      for (const [sent, seen] of [
        ["caf%C3%A9%20%F0%9F%98%80", "café 😀"],
        ["a%2Fb", "a/b"],
        ["%E0%A4%A", "%E0%A4%A"],
        ["100%", "100%"],
      ]) {
        const response = await request(`/slugs/${sent}`);
        expect(response.status, sent).toBe(200);
        expect(await json(response), sent).toEqual({ slug: seen });
      }
    });

    it("rejects query parameters the endpoint does not declare", async () => {
      const response = await request("/coerce?n=1&sneaky=1");
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0]).toMatchObject({ path: ["query", "sneaky"] });
    });

    it("reads repeated, empty and percent-encoded query values alike on every router", async () => {
      const data = await json(await request("/coerce?tags=&tags=a%20b&tags=&tags=c%26d&color=red&page=&page=3"));
      expect(data).toMatchObject({ tags: ["a b", "c&d"], color: "red", page: 3 });
      const encodedKey = await request("/coerce?%74ags=x");
      expect(await json(encodedKey)).toMatchObject({ tags: ["x"] });
      const proto = await request("/coerce?__proto__=1");
      expect(proto.status).toBe(400);
      expect((await json(proto)).errors[0]).toMatchObject({ path: ["query", "__proto__"] });
    });
  });

  describe(`${harness.name}: schemas with async refinements`, () => {
    class Reserve extends OpenAPIRoute {
      schema = {
        request: {
          query: z.object({ day: z.string() }).refine(async ({ day }) => day !== "sunday", "closed on sundays"),
          body: contentJson(
            z.object({ name: z.string() }).refine(async ({ name }) => !name.startsWith("x"), "name taken"),
          ),
        },
        responses: {},
      };
      async handle() {
        const { query, body } = await this.getValidatedData();
        return { day: query.day, name: body.name };
      }
    }
    const { router, request } = harness.make();
    router.post("/reserve", Reserve);

    it("validates them, on the first request and after", async () => {
      for (let round = 0; round < 2; round++) {
        expect(await json(await request("/reserve?day=monday", jsonBody({ name: "ada" })))).toEqual({
          day: "monday",
          name: "ada",
        });
        const refused = await request("/reserve?day=sunday", jsonBody({ name: "xavier" }));
        expect(refused.status).toBe(400);
        const messages = (await json(refused)).errors.map((e: { message: string }) => e.message).sort();
        expect(messages).toEqual(["closed on sundays", "name taken"]);
      }
    });
  });

  describe(`${harness.name}: unknown query parameters with raiseUnknownParameters off`, () => {
    it("accepts and ignores them", async () => {
      const { router, request } = harness.make({ raiseUnknownParameters: false });
      router.get("/coerce", Coerce);
      const response = await request("/coerce?n=1&sneaky=1");
      expect(response.status).toBe(200);
      expect((await json(response)).sneaky).toBeUndefined();
    });
  });

  describe(`${harness.name}: JSON bodies with dates and bigints, as the document writes them`, () => {
    const { router, request } = harness.make();
    router.post("/dated", EchoDated);
    const post = (body: unknown) => request("/dated", jsonBody(body));

    it("documents a z.date() as a date-time string and a z.bigint() as an int64 integer, both ways", async () => {
      const document = await json(await request("/openapi.json"));
      const operation = document.paths["/dated"].post;
      for (const schema of [
        operation.requestBody.content["application/json"].schema,
        operation.responses["200"].content["application/json"].schema,
      ]) {
        expect(schema.properties.n).toEqual({ type: "integer", format: "int64" });
        expect(schema.properties.at).toEqual({ type: "string", format: "date-time" });
      }
    });

    it("reads a date-time string as a Date and an integer (or its digits) as a bigint, and answers them as sent", async () => {
      const response = await post({
        n: "9007199254740993",
        at: "2026-12-04T19:00:00Z",
        list: [1, "-2", 2 ** 53 - 1],
        inner: { when: "2026-12-04T20:00:00.5+01:00" },
        visits: [{ at: "2026-01-02T03:04:05.678Z" }],
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      // Digit for digit: a JSON integer past 2^53, as the document's int64 says.
      expect(text).toContain('"n":9007199254740993,');
      expect(text).toContain('"list":[1,-2,9007199254740991]');
      expect(JSON.parse(text)).toMatchObject({
        at: "2026-12-04T19:00:00.000Z",
        inner: { when: "2026-12-04T19:00:00.500Z" },
        visits: [{ at: "2026-01-02T03:04:05.678Z" }],
        kinds: ["bigint", true, true],
      });
      expect((await json(await post({ n: 5, at: "2026-12-04T19:00:00Z", inner: { when: null } }))).n).toBe(5);
      const widest = await post({ n: `-${"9".repeat(64)}`, at: "2026-12-04T19:00:00Z" });
      expect(await widest.text()).toContain(`"n":-${"9".repeat(64)},`);
    });

    for (const [name, shape] of Object.entries(DATED_SHAPES)) router.post(`/shapes/${name}`, shapeRoute(shape.schema));

    it.each(Object.keys(DATED_SHAPES))("converts what a %s body holds, as its schema declares", async (name) => {
      const { sent, read } = DATED_SHAPES[name]!;
      const response = await request(`/shapes/${name}`, jsonBody(sent));
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual(read);
    });

    it("refuses a date-time whose day or time does not exist, or a leap second a Date cannot hold; takes a leap day", async () => {
      for (const refused of [
        "2026-02-30T00:00:00Z",
        "2026-12-31T24:00:00Z",
        "2026-12-31T23:59:60Z",
        "2026-12-04T19:00:00+24:00",
        // The year 10000 in UTC, which no RFC 3339 text can write back.
        "9999-12-31T23:59:59-23:59",
      ]) {
        const response = await post({ n: 1, at: refused });
        expect(response.status, refused).toBe(400);
        expect((await json(response)).errors[0].path, refused).toEqual(["body", "at"]);
      }
      expect((await json(await post({ n: 1, at: "2024-02-29T00:00:00+05:30" }))).at).toBe("2024-02-28T18:30:00.000Z");
    });

    it("refuses what is no date-time or integer with a 400 naming the field", async () => {
      const refused: [unknown, string][] = [
        [{ n: 1.5, at: "2026-12-04T19:00:00Z" }, "body.n"],
        [{ n: "0x10", at: "2026-12-04T19:00:00Z" }, "body.n"],
        [{ n: " 7", at: "2026-12-04T19:00:00Z" }, "body.n"],
        // A JSON number past 2^53 was already rounded when it was read: refused, not stored wrong.
        [{ n: 2 ** 53 + 2, at: "2026-12-04T19:00:00Z" }, "body.n"],
        // Digits cost their count squared to read: past 64 of them (2^128 has 39) the text is refused unread.
        [{ n: "9".repeat(65), at: "2026-12-04T19:00:00Z" }, "body.n"],
        [{ n: "9".repeat(100_000), at: "2026-12-04T19:00:00Z" }, "body.n"],
        [{ n: 1, at: "2026-12-04" }, "body.at"],
        [{ n: 1, at: "tomorrow" }, "body.at"],
        [{ n: 1, at: 1764874800000 }, "body.at"],
        [{ n: 1, at: "2026-13-45T99:00:00Z" }, "body.at"],
        [{ n: 1, at: "2026-12-04T19:00:00Z", visits: [{ at: "2026-02-30" }] }, "body.visits.0.at"],
      ];
      for (const [body, field] of refused) {
        const response = await post(body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        const { errors } = await json(response);
        expect(
          errors.map((error: { path: string[] }) => error.path.join(".")),
          JSON.stringify(body),
        ).toEqual([field]);
      }
    });
  });

  describe(`${harness.name}: bad bodies`, () => {
    const { router, request } = harness.make({ maxBodySize: 2048 });
    router.post("/projects/:projectId/tasks", CreateTask);
    router.post("/echo", Echo);
    const headers = { "x-api-key": "k" };

    it("answers malformed JSON with a 400 that says so", async () => {
      const response = await request("/projects/1/tasks", jsonBody('{"title": "x",', { headers }));
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0].message).toMatch(/^Request body is not valid JSON/);
    });

    it("rejects a JSON value that is not the declared object", async () => {
      for (const body of ["[1,2]", '"text"', "42", "null"]) {
        const response = await request("/projects/1/tasks", jsonBody(body, { headers }));
        expect(response.status, body).toBe(400);
        expect((await json(response)).errors[0].path).toEqual(["body"]);
      }
    });

    it("requires a body where one is declared", async () => {
      const response = await request("/projects/1/tasks", { method: "POST", headers });
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0].message).toBe("Request body is required (application/json)");
    });

    it("answers 415 for a content type the endpoint does not accept", async () => {
      const response = await request("/echo", {
        method: "POST",
        headers: { "content-type": "application/xml" },
        body: '{"name":"a"}',
      });
      expect(response.status).toBe(415);
      expect((await json(response)).errors[0].message).toContain("application/json");
    });

    it("answers 413 for a body over the limit, declared or streamed", async () => {
      const big = JSON.stringify({ name: "x".repeat(4096) });
      expect((await request("/echo", jsonBody(big))).status).toBe(413);
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
          controller.close();
        },
      });
      const response = await request("/echo", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(response.status).toBe(413);
      expect((await json(response)).errors[0].code).toBe(7014);
    });

    it("refuses __proto__ keys, however spelled, and never pollutes prototypes", async () => {
      for (const body of ['{"name":"a","__proto__":{"polluted":1}}', '{"name":"a","\\u005f_proto__":{"polluted":1}}']) {
        const response = await request("/echo", jsonBody(body));
        expect(response.status).toBe(400);
        expect((await json(response)).errors[0].message).toContain("__proto__");
      }
      const response = await request("/echo", jsonBody('{"name":"a","constructor":{"prototype":{"polluted":1}}}'));
      expect(response.status).toBe(200);
      const data = await json(response);
      expect(data.polluted).toBeNull();
      expect(data.body.constructor).toEqual({ prototype: { polluted: 1 } });
    });

    it("answers 400 for bytes that are not UTF-8 and for absurdly deep nesting", async () => {
      const bytes = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
      expect((await request("/echo", jsonBody(bytes as unknown as string))).status).toBe(400);
      const deep = `${'{"a":'.repeat(300)}1${"}".repeat(300)}`;
      const response = await request("/echo", jsonBody(deep));
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0].message).toMatch(/nested deeper/);
    });
  });

  describe(`${harness.name}: what handle() returns`, () => {
    const { router, request } = harness.make();
    router.get("/returns", Returns);

    it("sends a plain object as 200 JSON", async () => {
      const response = await request("/returns?kind=obj");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await json(response)).toEqual({ kind: "obj" });
      expect(await json(await request("/returns?kind=array"))).toEqual([1, 2]);
    });

    it("passes a Response through untouched", async () => {
      const response = await request("/returns?kind=response");
      expect(response.status).toBe(418);
      expect(response.headers.get("x-custom")).toBe("yes");
      expect(await response.text()).toBe("teapot");
    });

    it("sends a string as text, null as JSON null, and nothing as 204", async () => {
      const text = await request("/returns?kind=string");
      expect(text.headers.get("content-type")).toContain("text/plain");
      expect(await text.text()).toBe("plain text");
      expect(await (await request("/returns?kind=null")).text()).toBe("null");
      const empty = await request("/returns?kind=undefined");
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe("");
    });
  });

  describe(`${harness.name}: errors`, () => {
    const { router, request } = harness.make();
    router.get("/throw/:kind", Throws);
    router.get("/hooked/:id", Hooked);

    // Hidden 500s answer chanfana's exact "Internal Error"; the request id is in a header and the log.
    const hidden = "Internal Error";
    const cases: Array<[string, number, number, unknown]> = [
      ["notfound", 404, 7002, "No such task"],
      ["unauthorized", 401, 7003, "Unauthorized"],
      ["forbidden", 403, 7004, "Forbidden"],
      ["conflict", 409, 7006, "Duplicate title"],
      ["ratelimit", 429, 7008, "Slow down"],
      ["internal", 500, 7009, hidden],
      ["base", 500, 7000, "Quota exhausted"],
    ];
    for (const [kind, status, code, message] of cases) {
      it(`renders ${kind} as ${status} with code ${code}`, async () => {
        const original = console.error;
        console.error = () => {};
        try {
          const response = await request(`/throw/${kind}`);
          expect(response.status).toBe(status);
          expect(await json(response)).toEqual({ success: false, errors: [{ code, message }], result: {} });
        } finally {
          console.error = original;
        }
      });
    }

    it("sets Retry-After on 429", async () => {
      expect((await request("/throw/ratelimit")).headers.get("retry-after")).toBe("30");
    });

    it("answers a MultiException with the highest status and every error", async () => {
      const response = await request("/throw/multi");
      expect(response.status).toBe(404);
      expect((await json(response)).errors).toHaveLength(2);
    });

    it("turns a ZodError thrown in handle() into a 400 in the same envelope", async () => {
      const response = await request("/throw/zod");
      expect(response.status).toBe(400);
      expect((await json(response)).errors[0]).toMatchObject({ code: 7001, path: ["a"] });
    });

    it("hands an error that is not the framework's to the router's own handler, unrendered", async () => {
      const { router, request, caught } = harness.make();
      router.get("/throw/:kind", Throws);
      const response = await request("/throw/unknown");
      expect(await response.text()).toBe("router 500");
      expect(caught).toHaveLength(1);
      expect((caught[0] as Error).message).toContain("secret_table");
    });

    it("lets handleError() answer an error itself", async () => {
      const response = await request("/hooked/1");
      expect(response.status).toBe(409);
      expect(await json(response)).toEqual({ handled: "boom" });
      // The handler throws before it asks for its data: its own error is the answer, as on chanfana.
      expect((await request("/hooked/x")).status).toBe(409);
    });
  });

  describe(`${harness.name}: error format and error routing options`, () => {
    it("writes RFC 9457 problem details when asked", async () => {
      const { router, request } = harness.make({ errorFormat: "problem" });
      router.get("/throw/:kind", Throws);
      const response = await request("/throw/notfound");
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(await json(response)).toMatchObject({ title: "Not Found", status: 404, detail: "No such task" });
    });

    it("details a validation failure of several fields by each field and its message, not a generic sentence", async () => {
      const { router, request } = harness.make({ errorFormat: "problem" });
      router.get("/coerce", Coerce);
      const invalid = await request("/coerce?n=abc&color=blue");
      expect(invalid.status).toBe(400);
      const { detail, errors } = (await json(invalid)) as { detail: string; errors: Array<{ message: string }> };
      expect(errors).toHaveLength(2);
      expect(detail).toBe(`2 problems: query.n: ${errors[0]!.message}; query.color: ${errors[1]!.message}`);
    });

    it("titles each problem for what it is: validation, unsupported media type, a ZodError from handle()", async () => {
      const { router, request } = harness.make({ errorFormat: "problem" });
      router.get("/coerce", Coerce);
      router.post("/projects/:projectId/tasks", CreateTask);
      router.get("/throw/:kind", Throws);
      const invalid = await request("/coerce?n=abc");
      expect(invalid.status).toBe(400);
      expect(await json(invalid)).toMatchObject({ title: "Input Validation Error", status: 400 });
      const unsupported = await request("/projects/1/tasks", {
        method: "POST",
        headers: { "content-type": "text/plain", "X-API-Key": "k" },
        body: "hello",
      });
      expect(unsupported.status).toBe(415);
      expect(await json(unsupported)).toMatchObject({ title: "Unsupported Media Type", status: 415 });
      const zod = await request("/throw/zod");
      expect(zod.status).toBe(400);
      expect(await json(zod)).toMatchObject({ title: "Input Validation Error", status: 400 });
    });

    it("with handlerZodErrors: internal, a ZodError from handle() is a hidden 500 and request validation still a 400", async () => {
      const { router, request } = harness.make({ handlerZodErrors: "internal" });
      router.get("/throw/:kind", Throws);
      router.get("/coerce", Coerce);
      const original = console.error;
      const logged: unknown[][] = [];
      console.error = (...args: unknown[]) => void logged.push(args);
      try {
        const hidden = await request("/throw/zod");
        expect(hidden.status).toBe(500);
        const body = await json(hidden);
        expect(body.errors).toEqual([{ code: 7009, message: "Internal Error" }]);
        expect(JSON.stringify(body)).not.toContain("expected string");
        const id = hidden.headers.get("x-request-id");
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(JSON.stringify(logged.flat().map(String))).toContain(id);
      } finally {
        console.error = original;
      }
      const invalid = await request("/coerce?n=abc");
      expect(invalid.status).toBe(400);
      expect(() => harness.make({ handlerZodErrors: "hide" as any })).toThrow(/handlerZodErrors/);
    });

    it("fixes raiseOnError per router as chanfana does, so framework errors stay formatted", async () => {
      for (const raiseOnError of [true, false]) {
        const { router, request } = harness.make({ raiseOnError });
        router.get("/throw/:kind", Throws);
        expect(router.options.raiseOnError).toBe(harness.name === "hono");
        const response = await request("/throw/conflict");
        expect(response.status).toBe(409);
        expect((await json(response)).errors[0].code).toBe(7006);
      }
    });

    it("hands errors, validation failures as a MultiException, to the router unformatted with passthroughErrors", async () => {
      const { router, request, caught } = harness.make({ passthroughErrors: true });
      router.get("/throw/:kind", Throws);
      router.get("/coerce", Coerce);
      expect(await (await request("/throw/unknown")).text()).toBe("router 500");
      expect((caught[0] as Error).message).toContain("secret_table");
      expect(await (await request("/throw/conflict")).text()).toBe("router 500");
      expect(caught[1]).toBeInstanceOf(ConflictException);
      expect(await (await request("/coerce?n=abc")).text()).toBe("router 500");
      expect(caught[2]).toBeInstanceOf(MultiException);
      expect((caught[2] as MultiException).errors[0]).toBeInstanceOf(InputValidationException);
    });

    it("validateResponse strips undeclared fields and answers 500 on a mismatch", async () => {
      const { router, request } = harness.make({ validateResponse: true });
      router.get("/shaped", Shaped);
      expect(await json(await request("/shaped?good=true"))).toEqual({ id: 1, name: "a" });
      const original = console.error;
      console.error = () => {};
      try {
        const bad = await request("/shaped?good=false");
        expect(bad.status).toBe(500);
        expect((await json(bad)).errors[0]).toEqual({
          code: 7013,
          message: "Internal Error",
        });
        expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        console.error = original;
      }
    });
  });

  describe(`${harness.name}: document and docs routes`, () => {
    it("serves the document as JSON and YAML, and the three docs pages", async () => {
      const { router, request } = harness.make({ schema: { info: { title: "Tasks API", version: "2.0.0" } } });
      router.post("/projects/:projectId/tasks", CreateTask);
      const doc = await json(await request("/openapi.json"));
      expect(doc.openapi).toBe("3.1.0");
      expect(doc.info).toMatchObject({ title: "Tasks API", version: "2.0.0" });
      expect(doc.paths["/projects/{projectId}/tasks"].post.operationId).toBe("post_CreateTask");
      expect(await documentErrors(doc)).toBeNull();
      const yaml = await request("/openapi.yaml");
      expect(yaml.headers.get("content-type")).toContain("yaml");
      expect(await yaml.text()).toContain("/projects/{projectId}/tasks:");
      for (const page of ["/docs", "/redocs", "/scalar"]) {
        const response = await request(page);
        expect(response.headers.get("content-type"), page).toContain("text/html");
        expect(await response.text(), page).toContain("/openapi.json");
      }
    });

    it("writes OpenAPI 3.0.3 when asked, and it validates", async () => {
      const { router, request } = harness.make({ openapiVersion: "3" });
      router.post("/projects/:projectId/tasks", CreateTask);
      const doc = await json(await request("/openapi.json"));
      expect(doc.openapi).toBe("3.0.3");
      expect(await documentErrors(doc)).toBeNull();
    });

    it("moves or disables the docs routes by option", async () => {
      const off = harness.make({ openapi_url: null });
      expect((await off.request("/openapi.json")).status).toBe(404);
      expect((await off.request("/docs")).status).toBe(404);
      const moved = harness.make({ openapi_url: "/spec.json", docs_url: "/ui", redoc_url: null });
      moved.router.get("/returns", Returns);
      expect((await moved.request("/spec.json")).status).toBe(200);
      expect((await moved.request("/spec.yaml")).status).toBe(200);
      expect(await (await moved.request("/ui")).text()).toContain("/spec.json");
      expect((await moved.request("/redocs")).status).toBe(404);
      expect(Object.keys((await json(await moved.request("/spec.json"))).paths)).toEqual(["/returns"]);
    });

    it("refuses a route without operationId when generateOperationIds is off, naming its path", () => {
      const { router } = harness.make({ generateOperationIds: false });
      expect(() => router.get("/returns", Returns)).toThrow("Route /returns doesn't have operationId set!");
    });

    it("refuses a malformed base", () => {
      expect(() => harness.make({ base: "api" })).toThrow('base must start with "/"');
      expect(() => harness.make({ base: "/api/" })).toThrow('base must not end with "/"');
      expect(() => harness.make({ base: "/" })).toThrow('base must not end with "/"');
    });
  });

  describe(`${harness.name}: the request path costs no schema work`, () => {
    it("constructs each endpoint once and no zod schema while serving", async () => {
      let constructed = 0;
      class Counted extends CreateTask {
        constructor(...args: ConstructorParameters<typeof CreateTask>) {
          super(...args);
          constructed++;
        }
      }
      const { router, request } = harness.make();
      router.post("/projects/:projectId/tasks", Counted);
      // Registering records the route; the endpoint is constructed (and its schemas built) when first needed.
      expect(constructed).toBe(0);
      router.compile();
      expect(constructed).toBe(1);
      const config = (globalThis as any).__zod_globalConfig as { postProcessor?: () => void };
      let schemasBuilt = 0;
      config.postProcessor = () => {
        schemasBuilt++;
      };
      try {
        // The counter itself must see a schema being built, or a zero below would prove nothing.
        z.object({ probe: z.string() });
        expect(schemasBuilt).toBeGreaterThan(0);
        schemasBuilt = 0;
        const task = { title: "t", email: "a@b.co", priority: 1, status: "open" };
        const responses = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            request(
              `/projects/${i}/tasks`,
              jsonBody({ ...task, title: `t${i}` }, { headers: { "x-api-key": `k${i}` } }),
            ),
          ),
        );
        const bodies = await Promise.all(responses.map(json));
        // Concurrent requests each see their own data.
        bodies.forEach((body, i) => {
          expect(body.params.projectId).toBe(i);
          expect(body.body.title).toBe(`t${i}`);
          expect(body.headers["X-API-Key"]).toBe(`k${i}`);
        });
      } finally {
        config.postProcessor = undefined;
      }
      expect(constructed).toBe(1);
      expect(schemasBuilt).toBe(0);
    });
  });
}
