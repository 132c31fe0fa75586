import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRoute } from "../../src";

const Body = z.object({ title: z.string(), done: z.boolean().default(false), tags: z.array(z.string()).optional() });

class Inferred extends OpenAPIRoute {
  schema = {
    request: {
      body: contentJson(Body),
      query: z.object({ page: z.number().int().default(1), q: z.string().optional() }),
      params: z.object({ id: z.coerce.number() }),
      headers: z.object({ "X-API-Key": z.string() }),
    },
    responses: {},
  };

  async handle() {
    const data = await this.getValidatedData();
    expectTypeOf(data.body).toEqualTypeOf<{ title: string; done: boolean; tags?: string[] | undefined }>();
    expectTypeOf(data.query).toEqualTypeOf<{ page: number; q?: string | undefined }>();
    expectTypeOf(data.params).toEqualTypeOf<{ id: number }>();
    expectTypeOf(data.headers).toEqualTypeOf<{ "X-API-Key": string }>();
    expectTypeOf(data.cookies).toEqualTypeOf<undefined>();
    // @ts-expect-error: undeclared members are not there
    data.body.nope;
    return data.body;
  }
}

class Explicit extends OpenAPIRoute {
  schema = { request: { query: z.object({ n: z.number() }) }, responses: {} };

  async handle() {
    const data = await this.getValidatedData<typeof this.schema>();
    expectTypeOf(data.query.n).toEqualTypeOf<number>();
    expectTypeOf(data.body).toEqualTypeOf<undefined>();
    return {};
  }
}

class NoRequest extends OpenAPIRoute {
  schema = { responses: {} };

  async handle() {
    const data = await this.getValidatedData();
    expectTypeOf(data).toEqualTypeOf<{
      body: undefined;
      query: undefined;
      params: undefined;
      headers: undefined;
      cookies: undefined;
    }>();
    return {};
  }
}

describe("getValidatedData() types", () => {
  it("infers from the class's own schema", () => {
    expectTypeOf(Inferred).toBeConstructibleWith({
      router: null,
      raiseUnknownParameters: true,
      route: "/",
      urlParams: [],
    });
    expectTypeOf(Explicit).toBeObject;
    expectTypeOf(NoRequest).toBeObject;
  });

  it("keeps transforms' output types", () => {
    class Transformed extends OpenAPIRoute {
      schema = { request: { query: z.object({ when: z.string().transform((s) => new Date(s)) }) }, responses: {} };
      async handle() {
        const { query } = await this.getValidatedData();
        expectTypeOf(query.when).toEqualTypeOf<Date>();
        return {};
      }
    }
    expectTypeOf(Transformed).toBeObject;
  });
});

/** A design-first body: a plain JSON Schema object where a zod schema could go, no cast needed. */
class PlainBody extends OpenAPIRoute {
  schema = {
    request: {
      body: {
        content: { "application/json": { schema: { type: "object", properties: { text: { type: "string" } } } } },
      },
    },
    responses: {
      "200": {
        description: "As sent",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
      },
    },
  };

  async handle() {
    const data = await this.getValidatedData();
    // Validated by nothing, so nothing is promised about it.
    expectTypeOf(data.body).toEqualTypeOf<unknown>();
    return {};
  }
}

describe("plain JSON Schema objects", () => {
  it("type the body of a plain schema as unknown, and keep a zod body typed beside them", () => {
    expectTypeOf<PlainBody>().toHaveProperty("schema");
  });
});
