import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import Database from "better-sqlite3";
import { Hono } from "hono";
import * as v from "valibot";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  betterSqlite3Driver,
  contentJson,
  type FilterOperatorName,
  fromHono,
  OpenAPIRoute,
  type RouterOptions,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { closeHttpHarnesses, documentErrors, httpHarnesses, jsonBody, listenOnLoopback } from "../helpers";

// Plain endpoints whose request and response schemas are valibot's or ArkType's, read through Standard
// Schema (validation) and Standard JSON Schema (coercion and documents), served over real HTTP.
afterAll(closeHttpHarnesses);

interface Library {
  name: string;
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
  item: unknown;
}

const valibot: Library = {
  name: "valibot",
  params: toStandardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()) })),
  query: toStandardJsonSchema(
    v.object({
      page: v.optional(v.pipe(v.number(), v.integer())),
      flag: v.optional(v.boolean()),
      tags: v.optional(v.array(v.string())),
    }),
  ),
  headers: toStandardJsonSchema(v.object({ "x-team": v.pipe(v.string(), v.minLength(2)) })),
  body: toStandardJsonSchema(v.object({ title: v.pipe(v.string(), v.minLength(1)), note: v.nullable(v.string()) })),
  item: toStandardJsonSchema(
    v.object({ id: v.number(), title: v.string(), team: v.string(), page: v.optional(v.number()) }),
  ),
};

const arktype: Library = {
  name: "ArkType",
  params: type({ id: "number.integer" }),
  query: type({ "page?": "number.integer", "flag?": "boolean", "tags?": "string[]" }),
  headers: type({ "x-team": "string >= 2" }),
  body: type({ title: "string > 0", note: "string | null" }),
  item: type({ id: "number", title: "string", team: "string", "page?": "number" }),
};

function endpoints(lib: Library) {
  const schemas = lib as any;
  class Echo extends OpenAPIRoute {
    schema = {
      request: { params: schemas.params, query: schemas.query, headers: schemas.headers },
      responses: { "200": { description: "What was read", ...contentJson(schemas.item) } },
    };
    async handle() {
      // The types are checked in test/types/standard-schema.test-d.ts; here the library varies.
      const { params, query, headers } = (await this.getValidatedData()) as any;
      return { ...query, ...params, title: "echo", team: headers["x-team"], extra: "stripped or kept" };
    }
  }
  class Save extends OpenAPIRoute {
    schema = {
      request: { params: schemas.params, body: contentJson(schemas.body) },
      responses: { "200": { description: "Saved", ...contentJson(schemas.item) } },
    };
    async handle() {
      const { params, body } = (await this.getValidatedData()) as any;
      return { id: params.id, title: body.title, team: "t" };
    }
  }
  class Broken extends OpenAPIRoute {
    schema = { responses: { "200": { description: "Wrong", ...contentJson(schemas.item) } } };
    async handle() {
      return { id: "not a number", title: "x", team: "t" };
    }
  }
  return { Echo, Save, Broken };
}

function appFor(harness: (typeof httpHarnesses)[number], lib: Library, options: RouterOptions = {}) {
  const app = harness.make(options);
  const { Echo, Save, Broken } = endpoints(lib);
  app.router.get("/items/:id", Echo);
  app.router.post("/items/:id", Save);
  app.router.get("/broken", Broken);
  return app;
}

describe.each([valibot, arktype])("$name endpoints", (lib) => {
  describe.each(httpHarnesses)("on $name over HTTP", (harness) => {
    it("validates and coerces params, query and headers, answering the typed data", async () => {
      const app = appFor(harness, lib);
      const res = await app.request("/items/7?page=2&flag=true&tags=a&tags=b", { headers: { "x-team": "core" } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({ id: 7, page: 2, flag: true, tags: ["a", "b"], team: "core" });
    });

    it("reads one value of an array field as an array and an empty value as absent", async () => {
      const app = appFor(harness, lib);
      const res = await app.request("/items/7?tags=a&page=", { headers: { "x-team": "core" } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.tags).toEqual(["a"]);
      expect(body).not.toHaveProperty("page");
    });

    it("refuses strict numbers: a path id that is not an integer is a 400 naming it", async () => {
      const app = appFor(harness, lib);
      const res = await app.request("/items/7abc", { headers: { "x-team": "core" } });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.success).toBe(false);
      expect(body.errors.map((e: { path: unknown }) => e.path)).toContainEqual(["params", "id"]);
    });

    it("answers a bad body with the envelope 400, the library's messages and the field's path", async () => {
      const app = appFor(harness, lib);
      const res = await app.request("/items/1", jsonBody({ title: "", note: 3 }));
      expect(res.status).toBe(400);
      const body = await res.json();
      const paths = body.errors.map((e: { path: unknown }) => e.path);
      expect(paths).toContainEqual(["body", "title"]);
      expect(paths).toContainEqual(["body", "note"]);
      for (const error of body.errors) expect(typeof error.message).toBe("string");
    });

    it("answers the same 400 as problem details", async () => {
      const app = appFor(harness, lib, { errorFormat: "problem" });
      const res = await app.request("/items/1", jsonBody({ note: null }));
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      const body = await res.json();
      expect(body.status).toBe(400);
      expect(body.errors.map((e: { path: unknown }) => e.path)).toContainEqual(["body", "title"]);
    });

    it("accepts a valid body", async () => {
      const app = appFor(harness, lib);
      const res = await app.request("/items/3", jsonBody({ title: "milk", note: null }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: 3, title: "milk", team: "t" });
    });

    it("checks responses when the router validates them", async () => {
      const app = appFor(harness, lib, { validateResponse: true });
      expect((await app.request("/broken")).status).toBe(500);
      const ok = await app.request("/items/7", { headers: { "x-team": "core" } });
      expect(ok.status).toBe(200);
    });
  });

  it.each(["3", "3.1", "3.2"] as const)("documents parameters and bodies in a valid %s document", async (version) => {
    const app = appFor(httpHarnesses[0]!, lib);
    const doc = app.router.getGeneratedSchema(version) as any;
    expect(await documentErrors(doc)).toBeNull();
    const get = doc.paths["/items/{id}"].get;
    const byName = Object.fromEntries(get.parameters.map((p: any) => [`${p.in}:${p.name}`, p]));
    expect(byName["path:id"]).toMatchObject({ required: true, schema: { type: "integer" } });
    expect(byName["query:page"]).toMatchObject({ required: false, schema: { type: "integer" } });
    expect(byName["query:tags"].schema).toMatchObject({ type: "array", items: { type: "string" } });
    expect(byName["header:x-team"]).toMatchObject({ required: true });
    const body = doc.paths["/items/{id}"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(expect.arrayContaining(["title", "note"]));
    if (version === "3") expect(body.properties.note).toMatchObject({ type: "string", nullable: true });
    else expect(JSON.stringify(body.properties.note)).toContain('"null"');
    expect(get.responses["200"].content["application/json"].schema.properties.id.type).toBe("number");
  });
});

describe("a Standard Schema without Standard JSON Schema", () => {
  it("is refused when the route is compiled, saying what is missing and how to get it", () => {
    class Bare extends OpenAPIRoute {
      schema = { request: { query: v.object({ page: v.number() }) as any }, responses: {} };
      async handle() {
        return {};
      }
    }
    const app = httpHarnesses[0]!.make();
    app.router.get("/bare", Bare);
    expect(() => app.router.compile()).toThrow(
      /GET \/bare \(Bare\): request\.query is a valibot Standard Schema without ~standard\.jsonSchema.*toStandardJsonSchema\(\) from @valibot\/to-json-schema/,
    );
  });

  it("is refused by name as an auto endpoint's model, when the route is registered", () => {
    class CreateBare extends SqlCreateEndpoint {
      _meta = { model: { tableName: "bare", schema: v.object({ id: v.number() }) as any, primaryKeys: ["id"] } };
    }
    const app = httpHarnesses[0]!.make();
    expect(() => app.router.post("/bare", CreateBare)).toThrow(
      /_meta\.model\.schema is a valibot Standard Schema without ~standard\.jsonSchema.*toStandardJsonSchema\(\)/,
    );
  });

  it("is refused the same way inside contentJson, not read as an example object of its own members", () => {
    class BareBody extends OpenAPIRoute {
      schema = { request: { body: contentJson(v.object({ title: v.string() }) as any) }, responses: {} };
      async handle() {
        return {};
      }
    }
    const app = httpHarnesses[0]!.make();
    app.router.post("/bare", BareBody);
    expect(() => app.router.compile()).toThrow(
      /POST \/bare \(BareBody\): request\.body\.content\["application\/json"\]\.schema is a valibot Standard Schema without ~standard\.jsonSchema/,
    );
  });
});

/*
 * The auto endpoints over a valibot or ArkType model: a Standard Schema hands out no validator per member,
 * so each member of a derived body or filter is checked by the model itself (schema/standard/member.ts).
 * Over real HTTP on SQLite: a client must get a 400 naming every bad member (nested ones by their item), a
 * member it did not send must stay as stored, and a filter must take only values of its member's type.
 */
interface MemberModel {
  name: string;
  schema: unknown;
  /** A model of two members, an id and an email the model trims and lower-cases: its filters can satisfy it whole. */
  account?: unknown;
}

const valibotMember: MemberModel = {
  name: "valibot",
  schema: toStandardJsonSchema(
    v.object({
      org_id: v.pipe(v.number(), v.integer()),
      id: v.pipe(v.number(), v.integer()),
      email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.email()),
      score: v.pipe(v.number(), v.integer(), v.minValue(0)),
      tags: v.array(v.pipe(v.string(), v.minLength(1))),
      role: v.optional(v.picklist(["user", "admin"]), "user"),
      note: v.optional(v.string()),
    }),
  ),
  account: toStandardJsonSchema(
    v.object({ id: v.pipe(v.number(), v.integer()), email: v.pipe(v.string(), v.trim(), v.toLowerCase()) }),
  ),
};

const arktypeMember: MemberModel = {
  name: "ArkType",
  schema: type({
    org_id: "number.integer",
    id: "number.integer",
    email: type("string.trim").to("string.lower").to("string.email"),
    score: "number.integer >= 0",
    tags: "(string > 0)[]",
    role: "'user' | 'admin' = 'user'",
    "note?": "string",
  }),
  account: type({ id: "number.integer", email: type("string.trim").to("string.lower") }),
};

const MEMBER_ROWS = [
  { org_id: 7, id: 1, email: "ada@x.io", score: 1, tags: '["a"]', role: "admin", note: "first" },
  { org_id: 7, id: 2, email: "bob@x.io", score: 3, tags: "[]", role: "user", note: null },
  { org_id: 7, id: 3, email: "cy@x.io", score: 5, tags: "[]", role: "user", note: null },
];

async function memberApp(model: MemberModel) {
  const db = new Database(":memory:");
  db.exec(
    "CREATE TABLE members (org_id INTEGER NOT NULL, id INTEGER NOT NULL, email TEXT NOT NULL, score INTEGER NOT NULL, tags TEXT NOT NULL, role TEXT NOT NULL, note TEXT, PRIMARY KEY (org_id, id))",
  );
  const insert = db.prepare("INSERT INTO members VALUES (@org_id, @id, @email, @score, @tags, @role, @note)");
  for (const row of MEMBER_ROWS) insert.run(row);
  db.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL)");
  db.exec("INSERT INTO accounts VALUES (1, 'ada@x.io'), (2, 'bob@x.io')");
  /** The body each create's hook saw, as validated member by member. */
  const validatedBodies: unknown[] = [];
  const meta = {
    model: { tableName: "members", schema: model.schema as any, primaryKeys: ["org_id", "id"] },
    pathParameters: ["org_id", "id"],
  };
  class CreateMember extends SqlCreateEndpoint {
    _meta = { ...meta, pathParameters: ["org_id"] };
    override async before(data: any) {
      validatedBodies.push(((await this.getValidatedData()) as { body: unknown }).body);
      return data;
    }
  }
  class ListAccounts extends SqlListEndpoint {
    _meta = { model: { tableName: "accounts", schema: model.account as any, primaryKeys: ["id"] } };
    filterFields = ["id", "email"];
  }
  class UpdateMember extends SqlUpdateEndpoint {
    _meta = meta;
  }
  class ListMembers extends SqlListEndpoint {
    _meta = { ...meta, pathParameters: [] };
    filterFields = ["email", "role"];
    filterOperators = { score: ["gte", "lte", "in"] as FilterOperatorName[] };
    orderByFields = ["id"];
  }
  const router = fromHono(new Hono(), { db: betterSqlite3Driver(db) });
  router.post("/orgs/:org_id/members", CreateMember);
  router.patch("/orgs/:org_id/members/:id", UpdateMember);
  router.get("/members", ListMembers);
  if (model.account) router.get("/accounts", ListAccounts);
  const server = await listenOnLoopback((request, env) => router.fetch(request, env));
  const stored = (id: number) => db.prepare("SELECT * FROM members WHERE id = ?").get(id) as Record<string, unknown>;
  const close = async () => {
    await server.close();
    db.close();
  };
  return { origin: server.origin, stored, validatedBodies, close };
}

/** The `path` of each error of a 400, sorted so the libraries' orders compare. */
async function errorPaths(res: Response): Promise<unknown[]> {
  expect(res.status).toBe(400);
  const { errors } = await res.json();
  for (const error of errors) expect(typeof error.message).toBe("string");
  return errors
    .map((error: { path: unknown[] }) => error.path)
    .sort((a: unknown[], b: unknown[]) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe.each([valibotMember, arktypeMember])("auto endpoints over a $name model's members", (model) => {
  let app: Awaited<ReturnType<typeof memberApp>>;
  beforeEach(async () => {
    app = await memberApp(model);
  });
  afterEach(() => app.close());
  const patch = (id: number, body: unknown) =>
    fetch(`${app.origin}/orgs/7/members/${id}`, jsonBody(body, { method: "PATCH" }));
  const ids = async (query: string) => {
    const res = await fetch(`${app.origin}/members?${query}`);
    expect(res.status).toBe(200);
    return (await res.json()).result.map((row: { id: number }) => row.id);
  };

  it("names every bad member of a PATCH, a bad item by its index, and stores nothing", async () => {
    const paths = await errorPaths(await patch(2, { score: -1, tags: ["ok", ""], role: "owner" }));
    expect(paths).toEqual([
      ["body", "role"],
      ["body", "score"],
      ["body", "tags", "1"],
    ]);
    expect(app.stored(2)).toMatchObject({ email: "bob@x.io", score: 3, tags: "[]" });
  });

  it("changes only the members a PATCH sends, leaving a defaulted one as stored", async () => {
    const res = await patch(1, { score: 9 });
    expect(res.status).toBe(200);
    expect(app.stored(1)).toEqual({ ...MEMBER_ROWS[0], score: 9 });
  });

  it("stores a nested create with the model's default for a member left out, and refuses a bad one by name", async () => {
    const made = await fetch(
      `${app.origin}/orgs/7/members`,
      jsonBody({ id: 4, email: "dee@x.io", score: 0, tags: ["b"] }),
    );
    expect(made.status).toBe(201);
    expect(app.stored(4)).toEqual({
      org_id: 7,
      id: 4,
      email: "dee@x.io",
      score: 0,
      tags: '["b"]',
      role: "user",
      note: null,
    });
    // The hooks see the body as checked member by member: the default filled in, the optional note not there at all.
    expect(app.validatedBodies).toStrictEqual([{ id: 4, email: "dee@x.io", score: 0, tags: ["b"], role: "user" }]);
    const refused = await fetch(`${app.origin}/orgs/7/members`, jsonBody({ id: 5, email: "e@x.io", tags: [] }));
    expect(await errorPaths(refused)).toEqual([["body", "score"]]);
    expect(app.stored(5)).toBeUndefined();
  });

  it("filters on each value of an __in filter, and refuses one its member does not accept by its index", async () => {
    expect(await ids("score__in=1&score__in=5")).toEqual([1, 3]);
    const refused = await fetch(`${app.origin}/members?score__in=1&score__in=-2`);
    expect(await errorPaths(refused)).toEqual([["query", "score__in", "1"]]);
  });

  it("checks two filters on one member each on its own, naming the one refused", async () => {
    expect(await ids("score__gte=2&score__lte=5")).toEqual([2, 3]);
    expect(await errorPaths(await fetch(`${app.origin}/members?score__gte=2&score__lte=-1`))).toEqual([
      ["query", "score__lte"],
    ]);
    expect(await errorPaths(await fetch(`${app.origin}/members?score__gte=-1&score__lte=5`))).toEqual([
      ["query", "score__gte"],
    ]);
  });

  it("reads filters the model accepts together as it outputs them: an email sent in capitals finds its row", async () => {
    const accounts = async (query: string) =>
      (await (await fetch(`${app.origin}/accounts?${query}`)).json()).result.map((row: { id: number }) => row.id);
    expect(await accounts("id=1&email=%20ADA@X.IO%20")).toEqual([1]);
    expect(await accounts("id=2&email=ADA@X.IO")).toEqual([]);
  });

  it("refuses a filter value of the wrong type and applies the ones given together", async () => {
    expect(await ids("role=user&score__gte=4")).toEqual([3]);
    expect(await errorPaths(await fetch(`${app.origin}/members?role=owner&score__gte=4`))).toEqual([["query", "role"]]);
  });
});

describe("auto endpoints over a valibot model whose check answers asynchronously", () => {
  const banned = new Set(["evil@x.io"]);
  // @valibot/to-json-schema's types take only synchronous schemas; its wrapper validates an asynchronous one.
  const asyncMember: MemberModel = {
    name: "valibot (async)",
    schema: toStandardJsonSchema(
      // @ts-expect-error: the types' refusal described above
      v.objectAsync({
        org_id: v.pipe(v.number(), v.integer()),
        id: v.pipe(v.number(), v.integer()),
        email: v.pipeAsync(
          v.string(),
          v.checkAsync(async (email) => !banned.has(email), "This email is banned"),
        ),
        score: v.pipe(v.number(), v.integer(), v.minValue(0)),
        tags: v.array(v.string()),
        role: v.optional(v.picklist(["user", "admin"]), "user"),
      }),
    ),
  };
  let app: Awaited<ReturnType<typeof memberApp>>;
  beforeEach(async () => {
    app = await memberApp(asyncMember);
  });
  afterEach(() => app.close());

  it("waits for the check on a PATCH, storing an allowed member and refusing a banned one by name", async () => {
    const patch = (body: unknown) => fetch(`${app.origin}/orgs/7/members/2`, jsonBody(body, { method: "PATCH" }));
    const refused = await patch({ email: "evil@x.io" });
    expect(await errorPaths(refused)).toEqual([["body", "email"]]);
    expect(app.stored(2)).toMatchObject({ email: "bob@x.io" });
    expect((await patch({ email: "bobby@x.io" })).status).toBe(200);
    expect(app.stored(2)).toMatchObject({ email: "bobby@x.io" });
  });

  it("waits for the check on each value of an __in filter, naming a refused one by its index", async () => {
    const list = (query: string) => fetch(`${app.origin}/members?${query}`);
    const found = await list("score__in=3&score__in=5");
    expect((await found.json()).result.map((row: { id: number }) => row.id)).toEqual([2, 3]);
    expect(await errorPaths(await list("score__in=3&score__in=-5"))).toEqual([["query", "score__in", "1"]]);
  });
});
