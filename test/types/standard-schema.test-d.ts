import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { contentJson, OpenAPIRoute } from "../../src";

const ValibotBody = toStandardJsonSchema(
  v.object({ title: v.string(), count: v.optional(v.pipe(v.string(), v.transform(Number))) }),
);

class WithValibot extends OpenAPIRoute {
  schema = {
    request: {
      body: contentJson(ValibotBody),
      query: toStandardJsonSchema(v.object({ page: v.optional(v.number()), tags: v.optional(v.array(v.string())) })),
      params: toStandardJsonSchema(v.object({ id: v.number() })),
    },
    responses: {},
  };

  async handle() {
    const data = await this.getValidatedData();
    expectTypeOf(data.body).toEqualTypeOf<{ title: string; count?: number | undefined }>();
    expectTypeOf(data.query).toEqualTypeOf<{ page?: number | undefined; tags?: string[] | undefined }>();
    expectTypeOf(data.params).toEqualTypeOf<{ id: number }>();
    expectTypeOf(data.headers).toEqualTypeOf<undefined>();
    return data.body;
  }
}

class WithArkType extends OpenAPIRoute {
  schema = {
    request: {
      body: contentJson(type({ title: "string", "note?": "string | null" })),
      query: type({ "page?": "number.integer", flag: "boolean" }),
      headers: type({ "x-team": "string" }),
    },
    responses: {},
  };

  async handle() {
    const data = await this.getValidatedData();
    expectTypeOf(data.body).toEqualTypeOf<{ title: string; note?: string | null }>();
    expectTypeOf(data.query).toEqualTypeOf<{ page?: number; flag: boolean }>();
    expectTypeOf(data.headers).toEqualTypeOf<{ "x-team": string }>();
    return data.body;
  }
}

describe("getValidatedData over Standard Schema", () => {
  it("infers each part from the library's output type", () => {
    expectTypeOf<WithValibot>().toHaveProperty("handle");
    expectTypeOf<WithArkType>().toHaveProperty("handle");
  });
});
