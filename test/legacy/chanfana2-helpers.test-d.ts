import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  Arr,
  Bool,
  contentJson,
  DateOnly,
  DateTime,
  Email,
  Enumeration,
  Hostname,
  Int,
  Ip,
  Ipv4,
  Ipv6,
  Num,
  Obj,
  OpenAPIRoute,
  Regex,
  Str,
  Uuid,
} from "../../src";

class LegacyQuery extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({
        name: Str(),
        nickname: Str({ required: false }),
        sort: Str({ required: false, default: "id" }),
        price: Num(),
        page: Int({ default: 1 }),
        limit: Int({ required: false }),
        active: Bool({ default: false }),
        since: DateTime(),
        day: DateOnly({ required: false }),
        email: Email(),
        id: Uuid(),
        v4: Ipv4(),
        v6: Ipv6(),
        ip: Ip(),
        host: Hostname(),
        slug: Regex({ pattern: /^[a-z]+$/, patternError: "letters" }),
        order: Enumeration({ values: ["asc", "desc"] }),
        level: Enumeration({ values: { low: 1, high: 10 } }),
        status: Enumeration({ values: ["Pending", "Done"], enumCaseSensitive: false, required: false }),
        tags: Arr(Str(), { required: false }),
        ids: Arr(Int()),
      }),
    },
    responses: {},
  };

  async handle() {
    const { query } = await this.getValidatedData();
    expectTypeOf(query.name).toEqualTypeOf<string>();
    expectTypeOf(query.nickname).toEqualTypeOf<string | undefined>();
    expectTypeOf(query.sort).toEqualTypeOf<string>();
    expectTypeOf(query.price).toEqualTypeOf<number>();
    expectTypeOf(query.page).toEqualTypeOf<number>();
    expectTypeOf(query.limit).toEqualTypeOf<number | undefined>();
    expectTypeOf(query.active).toEqualTypeOf<boolean>();
    expectTypeOf(query.since).toEqualTypeOf<string>();
    expectTypeOf(query.day).toEqualTypeOf<string | undefined>();
    expectTypeOf(query.email).toEqualTypeOf<string>();
    expectTypeOf(query.id).toEqualTypeOf<string>();
    expectTypeOf(query.v4).toEqualTypeOf<string>();
    expectTypeOf(query.v6).toEqualTypeOf<string>();
    expectTypeOf(query.ip).toEqualTypeOf<string>();
    expectTypeOf(query.host).toEqualTypeOf<string>();
    expectTypeOf(query.slug).toEqualTypeOf<string>();
    expectTypeOf(query.order).toEqualTypeOf<"asc" | "desc">();
    expectTypeOf(query.level).toEqualTypeOf<1 | 10>();
    expectTypeOf(query.status).toEqualTypeOf<"Pending" | "Done" | undefined>();
    expectTypeOf(query.tags).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(query.ids).toEqualTypeOf<number[]>();
    return {};
  }
}

class LegacyBody extends OpenAPIRoute {
  schema = {
    request: {
      body: contentJson(
        Obj({
          street: Str(),
          number: Int({ required: false }),
          zip: String,
          tags: [String],
          nested: { count: Number, on: Boolean },
          email: Email,
        }),
      ),
    },
    responses: {},
  };

  async handle() {
    const { body } = await this.getValidatedData();
    expectTypeOf(body.street).toEqualTypeOf<string>();
    expectTypeOf(body.number).toEqualTypeOf<number | undefined>();
    expectTypeOf(body.zip).toEqualTypeOf<string>();
    expectTypeOf(body.tags).toEqualTypeOf<string[]>();
    expectTypeOf(body.nested).toEqualTypeOf<{ count: number; on: boolean }>();
    expectTypeOf(body.email).toEqualTypeOf<string>();
    // @ts-expect-error: undeclared members are not there
    body.nope;
    return {};
  }
}

describe("chanfana 2 helpers infer like their native forms", () => {
  it("types the validated query and body", () => {
    expectTypeOf<LegacyQuery>().toHaveProperty("handle");
    expectTypeOf<LegacyBody>().toHaveProperty("handle");
  });

  it("are plain zod schemas", () => {
    expectTypeOf(Str()).toEqualTypeOf<z.ZodString>();
    expectTypeOf(Int({ required: false })).toEqualTypeOf<z.ZodOptional<z.ZodNumber>>();
    expectTypeOf<z.output<ReturnType<typeof Enumeration<{ values: ["a", "b"] }>>>>().toEqualTypeOf<"a" | "b">();
  });

  it("refuse Regex without a pattern and Enumeration without values", () => {
    // @ts-expect-error: the pattern is required
    Regex({ patternError: "x" });
    // @ts-expect-error: the values are required
    Enumeration({ default: "a" });
  });
});
