import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, formatChanfanaError, jsonResp, NotFoundException, OpenAPIRoute } from "../../src";
import { captureConsoleErrors, harnesses, jsonBody } from "../helpers";

const Item = z.object({ id: z.number(), title: z.string() });

class NoResponses extends OpenAPIRoute {
  schema = { request: { query: z.object({ q: z.string().optional() }) } };
  async handle() {
    return { ok: true };
  }
}

class Described extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ id: z.coerce.number() }),
      query: z.object({ page: z.coerce.number().default(1) }),
      headers: z.object({ "x-tenant": z.string().default("public") }),
      cookies: z.object({ theme: z.string().default("light") }),
      body: contentJson(z.object({ title: z.string(), done: z.boolean().default(false) })),
    },
    responses: {
      "200": { description: "The item", ...contentJson(Item) },
      "404": { description: "Missing", ...contentJson(z.object({ error: z.string() })) },
      default: { description: "Anything else", ...contentJson(z.object({ status: z.string() })) },
    },
  };
  async handle() {
    const request = this.args[0] instanceof Request ? this.args[0] : (this.args[0] as any).req.raw;
    const again = await this.validateRequest(request);
    return {
      validated: await this.getValidatedData(),
      unvalidated: await this.getUnvalidatedData(),
      sameValidated: again === (await this.getValidatedData()),
    };
  }
}

/** Answers a Response whose body the declared schema of its status should strip. */
class ReturnsResponses extends OpenAPIRoute {
  schema = {
    request: { params: z.object({ kind: z.string() }) },
    responses: {
      "201": { description: "Created", ...contentJson(z.object({ id: z.number() })) },
      "404": { description: "Missing", ...contentJson(z.object({ error: z.string() })) },
      default: { description: "Other", ...contentJson(z.object({ status: z.string() })) },
      "200": { description: "Item", ...contentJson(Item) },
    },
  };
  async handle() {
    const { params } = await this.getValidatedData();
    switch (params.kind) {
      case "created":
        return jsonResp({ id: 42, passwordHash: "x" }, { status: 201, headers: { "x-kept": "yes" } });
      case "missing":
        return jsonResp({ error: "Not found", debug: "internal-info" }, { status: 404 });
      case "fallback":
        return jsonResp({ status: "accepted", trace: "t-1" }, { status: 202 });
      case "broken":
        return jsonResp({ id: "not a number" }, { status: 201 });
      case "html":
        return new Response("<h1>hi</h1>", { status: 201, headers: { "content-type": "text/html" } });
      case "null":
        return null;
      case "plain":
        return { id: 1, title: "a", secret: "s" };
      default:
        return { id: "wrong" };
    }
  }
}

const logged = captureConsoleErrors();

describe("OpenAPIRoute schema members", () => {
  it("getSchemaZod() adds chanfana's default 200 response only when none is declared", () => {
    const none = new NoResponses({} as any);
    const described = new Described({} as any);
    expect(none.getSchemaZod().responses).toEqual({
      "200": { description: "Successful response", content: { "application/json": { schema: {} } } },
    });
    expect(none.getSchemaZod().request).toBe(none.schema.request);
    expect(described.getSchemaZod().responses).toBe(described.schema.responses);
  });

  it("getResponseSchema() finds a status's schema, falls back to default, and skips the non-zod default 200", () => {
    const described = new Described({} as any);
    const { responses } = described.schema;
    expect(described.getResponseSchema(200)).toBe(Item);
    expect(described.getResponseSchema(404)).toBe(responses["404"].content["application/json"].schema);
    expect(described.getResponseSchema(503)).toBe(responses.default.content["application/json"].schema);
    expect(new NoResponses({} as any).getResponseSchema(200)).toBeUndefined();
  });

  it("validateResponse() strips a plain object by the 200 schema and throws the ZodError on a mismatch", async () => {
    const described = new Described({} as any);
    expect(await described.validateResponse({ id: 1, title: "a", extra: true })).toEqual({ id: 1, title: "a" });
    await expect(described.validateResponse({ id: "x" })).rejects.toMatchObject({ name: "ZodError" });
    expect(await described.validateResponse(null)).toBeNull();
  });
});

/** Overrides validateResponse(): checks with the schema, then changes what is answered. */
class Redacting extends OpenAPIRoute {
  schema = { responses: { "200": { description: "The item", ...contentJson(Item) } } };
  async handle() {
    return { id: 3, title: "secret", extra: true };
  }
  override async validateResponse(resp: unknown) {
    const checked = (await super.validateResponse(resp)) as z.infer<typeof Item>;
    return { ...checked, title: "[redacted]" };
  }
}

for (const harness of harnesses) {
  describe(`${harness.name}: OpenAPIRoute members`, () => {
    it("validateRequest() returns the validated request, and getUnvalidatedData() every part without zod defaults", async () => {
      const { router, request } = harness.make();
      router.post("/items/:id", Described);
      const response = await request(
        "/items/7",
        jsonBody({ title: "Write tests" }, { headers: { cookie: "session=abc" } }),
      );
      expect(response.status).toBe(200);
      const { validated, unvalidated, sameValidated } = await response.json();
      expect(sameValidated).toBe(true);
      expect(validated).toEqual({
        params: { id: 7 },
        query: { page: 1 },
        headers: { "x-tenant": "public" },
        cookies: { theme: "light" },
        body: { title: "Write tests", done: false },
      });
      // Coerced as chanfana coerces raw inputs, but without zod defaults.
      expect(unvalidated.params).toEqual({ id: 7 });
      expect(unvalidated.body).toEqual({ title: "Write tests" });
      for (const part of ["query", "headers", "cookies"] as const) {
        expect(Object.values(unvalidated[part] ?? {}).filter((value) => value !== undefined && value !== null)).toEqual(
          [],
        );
      }
    });

    it("getUnvalidatedData() keeps what the client sent for every part", async () => {
      const { router, request } = harness.make();
      router.post("/items/:id", Described);
      const response = await request(
        "/items/7?page=3",
        jsonBody({ title: "t", done: true }, { headers: { "x-tenant": "acme", cookie: "theme=dark" } }),
      );
      const { unvalidated } = await response.json();
      expect(unvalidated).toMatchObject({
        params: { id: 7 },
        query: { page: 3 },
        headers: { "x-tenant": "acme" },
        cookies: { theme: "dark" },
        body: { title: "t", done: true },
      });
    });

    it("execute() runs the registered endpoint for router arguments and returns its Response", async () => {
      const { router, request } = harness.make();
      let endpoint: OpenAPIRoute | undefined;
      class Captured extends NoResponses {
        override prepareRoute() {
          endpoint = this;
        }
      }
      router.get("/registered", Captured);
      // The endpoint is constructed when its route is first needed.
      router.compile();
      // A plain handler on another path hands its router arguments to the registered endpoint.
      router.get("/delegated", (...args: any[]) => endpoint!.execute(...args));
      const response = await request("/delegated?q=x");
      expect(response).toBeInstanceOf(Response);
      expect(await response.json()).toEqual({ ok: true });
      expect((await request("/delegated?unknown=1")).status).toBe(400);
      await expect(new NoResponses({} as any).execute()).rejects.toThrow(/registered on a router/);
    });
  });

  describe(`${harness.name}: validateResponse option`, () => {
    const { router, request } = harness.make({ validateResponse: true });
    router.get("/r/:kind", ReturnsResponses);
    router.get("/own", Redacting);

    it("strips a JSON Response by the schema of its status, keeping status and headers", async () => {
      const response = await request("/r/created");
      expect(response.status).toBe(201);
      expect(response.headers.get("x-kept")).toBe("yes");
      expect(await response.json()).toEqual({ id: 42 });
      expect(await (await request("/r/missing")).json()).toEqual({ error: "Not found" });
    });

    it("falls back to the default response's schema for a status without one", async () => {
      const response = await request("/r/fallback");
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ status: "accepted" });
    });

    it("passes non-JSON Responses and a null result through", async () => {
      const html = await request("/r/html");
      expect(await html.text()).toBe("<h1>hi</h1>");
      const nothing = await request("/r/null");
      expect(nothing.status).toBeLessThan(500);
      expect(logged).toEqual([]);
    });

    it("validates a plain object against the 200 schema", async () => {
      expect(await (await request("/r/plain")).json()).toEqual({ id: 1, title: "a" });
    });

    it("answers a mismatch with a hidden 500 coded 7013 and logs the cause", async () => {
      for (const kind of ["broken", "wrong"]) {
        const response = await request(`/r/${kind}`);
        expect(response.status).toBe(500);
        expect((await response.json()).errors).toEqual([{ code: 7013, message: "Internal Error" }]);
      }
      expect(logged).toHaveLength(2);
      const error = logged[0]![1] as Error;
      expect(error.cause).toMatchObject({ name: "ZodError" });
    });

    it("calls an endpoint's own validateResponse(), as chanfana's execute() does, and answers what it returns", async () => {
      expect(await (await request("/own")).json()).toEqual({ id: 3, title: "[redacted]" });
    });
  });
}

describe("jsonResp and formatChanfanaError", () => {
  it("jsonResp answers JSON, 200 unless told otherwise, with extra headers kept", async () => {
    const plain = jsonResp({ a: 1 });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("application/json;charset=UTF-8");
    expect(await plain.json()).toEqual({ a: 1 });
    const created = jsonResp({ id: 2 }, { status: 201, headers: { location: "/items/2" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/items/2");
    expect(created.headers.get("content-type")).toBe("application/json;charset=UTF-8");
  });

  it("formatChanfanaError renders framework exceptions and ZodErrors, and gives null for anything else", async () => {
    const notFound = formatChanfanaError(new NotFoundException("gone"))!;
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ success: false, errors: [{ code: 7002, message: "gone" }], result: {} });
    const zod = formatChanfanaError(z.object({ a: z.string() }).safeParse({ a: 1 }).error)!;
    expect(zod.status).toBe(400);
    expect((await zod.json()).errors).toEqual([{ code: 7001, message: expect.any(String), path: ["a"] }]);
    expect(formatChanfanaError(new Error("boom"))).toBeNull();
    expect(formatChanfanaError("text")).toBeNull();
  });
});
