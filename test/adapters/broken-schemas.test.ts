import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRoute } from "../../src";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";
import { redoclyErrors, validateDocument } from "../openapi/helpers";

// A route whose schema the framework can neither serve nor document fails on its own: router.compile()
// names it and where in its schema the problem sits, and the document still serves every other route.
afterAll(closeHttpHarnesses);

class Healthy extends OpenAPIRoute {
  schema = { responses: { "200": { description: "ok", ...contentJson(z.object({ ok: z.boolean() })) } } };
  async handle() {
    return { ok: true };
  }
}

/** A response schema that is neither zod nor a JSON Schema object (a typo'd `"string"`). */
class StringSchema extends OpenAPIRoute {
  schema = {
    responses: { "200": { description: "ok", content: { "application/json": { schema: "string" as never } } } },
  };
  async handle() {
    return { ok: true };
  }
}

/** Two different schemas with one component id: zod cannot write this, only the document notices. */
class SharedId extends OpenAPIRoute {
  schema = {
    responses: {
      "200": {
        description: "ok",
        ...contentJson(z.object({ a: z.string().meta({ id: "Clash" }), b: z.number().meta({ id: "Clash" }) })),
      },
    },
  };
  async handle() {
    return { a: "x", b: 1 };
  }
}

/** A plain JSON Schema where a request part's zod object goes. */
class PlainQuery extends OpenAPIRoute {
  schema = {
    request: { query: { type: "object", properties: { q: { type: "string" } } } as never },
    responses: { "200": { description: "ok" } },
  };
  async handle() {
    return {};
  }
}

/** Parameters written as OpenAPI Parameter Objects: documented as written, validated by nothing. */
class WithParameters extends OpenAPIRoute {
  schema = {
    parameters: [
      { name: "X-Trace", in: "header", schema: { type: ["string", "null"], maxLength: 64 } },
      { name: "page", in: "query", schema: { type: "integer", minimum: 1 } },
      { $ref: "#/components/parameters/Sort" },
    ],
    request: { query: z.object({ q: z.string() }) },
    responses: { "200": { description: "ok", ...contentJson(z.object({ q: z.string() })) } },
  };
  async handle() {
    const { query } = await this.getValidatedData<typeof this.schema>();
    return { q: query.q };
  }
}

for (const harness of httpHarnesses) {
  describe(`a route the framework cannot serve or document costs only itself: ${harness.name}`, () => {
    let logged: string[];
    beforeEach(() => {
      logged = [];
      vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    });
    afterEach(() => vi.restoreAllMocks());

    it("router.compile() names the route and the schema path of a value that is no schema", () => {
      const { router } = harness.make();
      router.get("/healthy", Healthy);
      router.get("/typo", StringSchema);
      expect(() => router.compile()).toThrow(
        'GET /typo (StringSchema): responses["200"].content["application/json"].schema is a string: give a zod schema or a JSON Schema object',
      );
    });

    it("router.compile() names a route only the document finds wrong, and lists every broken route", () => {
      const clash = harness.make();
      clash.router.get("/healthy", Healthy);
      clash.router.get("/clash", SharedId);
      expect(() => clash.router.compile()).toThrow(
        /GET \/clash: responses\["200"\]\.content\["application\/json"\]\.schema: Duplicate schema id "Clash"/,
      );
      const both = harness.make();
      both.router.get("/typo", StringSchema);
      both.router.get("/plain-query", PlainQuery);
      expect(() => both.router.compile()).toThrow(
        /2 routes cannot be served or documented:\n.*\/typo.*\n.*\/plain-query/,
      );
    });

    it("says where a plain JSON Schema parameter goes instead of failing on its first request", () => {
      const { router } = harness.make();
      router.get("/plain-query", PlainQuery);
      expect(() => router.compile()).toThrow(
        "GET /plain-query (PlainQuery): request.query is an object that is not a zod schema: request parts are read through a zod object schema; document a plain JSON Schema parameter in the schema's `parameters` instead",
      );
    });

    it("serves the document of every other route, leaving the broken ones out and logging why", async () => {
      const app = harness.make();
      app.router.get("/healthy", Healthy);
      app.router.get("/typo", StringSchema);
      app.router.get("/clash", SharedId);
      const served = await app.request("/openapi.json");
      expect(served.status).toBe(200);
      const doc = await served.json();
      expect(Object.keys(doc.paths)).toEqual(["/healthy"]);
      expect((await validateDocument(doc)).errors ?? null).toBeNull();
      expect(logged.some((line) => line.includes("GET /typo is left out of the OpenAPI document"))).toBe(true);
      expect(
        logged.some((line) => line.includes('GET /clash is left out of the OpenAPI document: responses["200"]')),
      ).toBe(true);
      // The healthy route answers; the one that cannot compile fails through the router's own error handling.
      expect(await (await app.request("/healthy")).json()).toEqual({ ok: true });
      expect((await app.request("/typo")).status).toBe(500);
    });

    it("documents Parameter Objects written in the schema before the request's own, in 3.1 and 3.0, validating none", async () => {
      const app = harness.make();
      app.router.registry.registerComponent("parameters", "Sort", {
        name: "sort",
        in: "header",
        schema: { type: "string", enum: ["asc", "desc"] },
      });
      app.router.get("/search", WithParameters);
      // Nothing checks X-Trace, page or sort: values their schemas would refuse pass, and page is no
      // unknown query parameter, as the document lists it.
      const answer = await app.request(`/search?q=a&page=0`, { headers: { "x-trace": "t".repeat(100), sort: "up" } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ q: "a" });
      const v31 = await (await app.request("/openapi.json")).json();
      const v30 = app.router.getGeneratedSchema("3");
      expect(v31.paths["/search"].get.parameters).toEqual([
        { name: "X-Trace", in: "header", schema: { type: ["string", "null"], maxLength: 64 } },
        { name: "page", in: "query", schema: { type: "integer", minimum: 1 } },
        { $ref: "#/components/parameters/Sort" },
        { name: "q", in: "query", required: true, schema: { type: "string" } },
      ]);
      expect(v30.paths["/search"].get.parameters[0]).toEqual({
        name: "X-Trace",
        in: "header",
        schema: { type: "string", nullable: true, maxLength: 64 },
      });
      for (const doc of [v31, v30]) {
        expect((await validateDocument(doc)).errors ?? null).toBeNull();
        expect(await redoclyErrors(doc)).toEqual([]);
      }
    });
  });
}
