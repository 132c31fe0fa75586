import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { contentJson, OpenAPIRoute, type RouterOptions } from "../../src";
import { closeHttpHarnesses, documentErrors, httpHarnesses, jsonBody } from "../helpers";

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
});
