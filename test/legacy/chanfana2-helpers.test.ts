import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Arr,
  Bool,
  contentJson,
  DateOnly,
  DateTime,
  Email,
  Enumeration,
  fromHono,
  Hostname,
  Int,
  Ip,
  Ipv4,
  Ipv6,
  LEGACY_HOSTNAME_PATTERN,
  Num,
  Obj,
  OpenAPIRoute,
  Regex,
  Str,
  Uuid,
} from "../../src";
import { validateDocument } from "../openapi/helpers";

/** A real Hono app whose one route takes `field` as query member `v` and as body property `v`, and echoes what it validated. */
function appWith(field: z.ZodType, openapiVersion: "3" | "3.1" = "3.1") {
  const app = new Hono();
  const router = fromHono(app, { openapiVersion });
  class Echo extends OpenAPIRoute {
    schema = {
      request: { query: z.object({ v: field }), body: contentJson(z.object({ v: field })) },
      responses: {},
    };
    async handle() {
      const data = await this.getValidatedData();
      return { query: data.query.v ?? null, body: data.body.v ?? null };
    }
  }
  router.post("/echo", Echo);
  // GET route: query only, so the query path can be tried without a body.
  class QueryOnly extends OpenAPIRoute {
    schema = { request: { query: z.object({ v: field }) }, responses: {} };
    async handle() {
      const data = await this.getValidatedData();
      return { query: data.query.v === undefined ? "<absent>" : data.query.v };
    }
  }
  router.get("/query", QueryOnly);
  return { app, router };
}

/** The query parameter object and the body property schema a field produces in the document. */
function documentOf(field: z.ZodType, openapiVersion: "3" | "3.1" = "3.1") {
  const { router } = appWith(field, openapiVersion);
  const operation = (router.schema as any).paths["/echo"].post;
  const parameter = operation.parameters.find((p: { name: string }) => p.name === "v");
  const bodySchema = operation.requestBody.content["application/json"].schema;
  return { parameter, property: bodySchema.properties.v, bodyRequired: bodySchema.required ?? [] };
}

/** What the handler received for `?v=<raw>` (or no `v` at all): `{ status, value }`. */
async function viaQuery(field: z.ZodType, raw?: string) {
  const { app } = appWith(field);
  const url = raw === undefined ? "/query" : `/query?v=${encodeURIComponent(raw)}`;
  const res = await app.request(url);
  const json = (await res.json()) as { query?: unknown };
  return { status: res.status, value: json.query };
}

const accepts = (field: z.ZodType, value: unknown) => field.safeParse(value).success;

describe("chanfana 2 options, shared by every helper", () => {
  it("are required unless required: false is given", async () => {
    expect(accepts(Str(), undefined)).toBe(false);
    expect(accepts(Str({ required: false }), undefined)).toBe(true);
    expect((await viaQuery(Str())).status).toBe(400);
    expect(await viaQuery(Str({ required: false }))).toEqual({ status: 200, value: "<absent>" });
    expect(documentOf(Str()).parameter.required).toBe(true);
    expect(documentOf(Str({ required: false })).parameter.required).toBe(false);
    expect(documentOf(Str({ required: false })).bodyRequired).not.toContain("v");
  });

  it("fill in a default, which also makes the member optional on input", async () => {
    expect(await viaQuery(Int({ default: 20 }))).toEqual({ status: 200, value: 20 });
    expect(await viaQuery(Str({ default: "x" }), "given")).toEqual({ status: 200, value: "given" });
    const { parameter, property, bodyRequired } = documentOf(Int({ default: 20 }));
    expect(parameter.required).toBe(false);
    expect(parameter.schema.default).toBe(20);
    expect(property.default).toBe(20);
    expect(bodyRequired).not.toContain("v");
  });

  it("honour a falsy default (false, 0, empty string)", async () => {
    expect(await viaQuery(Bool({ default: false }))).toEqual({ status: 200, value: false });
    expect(await viaQuery(Num({ default: 0 }))).toEqual({ status: 200, value: 0 });
  });

  it("write description and example on the parameter and on the body property", () => {
    const { parameter, property } = documentOf(Str({ description: "User name", example: "ada" }));
    expect(parameter).toMatchObject({ description: "User name", example: "ada" });
    expect(property).toMatchObject({ type: "string", description: "User name" });
    expect(property.example ?? property.examples?.[0]).toBe("ada");
  });

  it("keep description and example when the member is optional and defaulted", () => {
    const { parameter } = documentOf(Str({ description: "Sort key", example: "name", required: false, default: "id" }));
    expect(parameter).toMatchObject({ required: false, description: "Sort key", example: "name" });
    expect(parameter.schema).toMatchObject({ type: "string", default: "id" });
  });

  it("write format into the schema", () => {
    expect(documentOf(Str({ format: "password" })).property).toMatchObject({ type: "string", format: "password" });
  });

  it("mark the parameter deprecated when deprecated: true is given", () => {
    expect(documentOf(Str({ deprecated: true })).parameter.deprecated).toBe(true);
    expect(documentOf(Str()).parameter.deprecated).toBeUndefined();
  });

  it("coerce path values like the native schemas", async () => {
    const app = new Hono();
    const router = fromHono(app);
    class Item extends OpenAPIRoute {
      schema = {
        request: {
          params: z.object({ id: Int(), kind: Enumeration({ values: { book: "B" }, enumCaseSensitive: false }) }),
        },
        responses: {},
      };
      async handle() {
        return (await this.getValidatedData()).params;
      }
    }
    router.get("/items/:kind/:id", Item);
    const res = await app.request("/items/BOOK/12");
    expect(await res.json()).toEqual({ id: 12, kind: "B" });
    expect((await app.request("/items/book/twelve")).status).toBe(400);
  });

  it("produce a valid OpenAPI 3.0 and 3.1 document", async () => {
    const everything = Obj({
      s: Str({ example: "x" }),
      n: Num({ default: 1 }),
      e: Enumeration({ values: ["a", "b"], enumCaseSensitive: false }),
      ip: Ip(),
      tags: Arr(Str(), { required: false }),
    });
    for (const version of ["3", "3.1"] as const) {
      const { router } = appWith(everything, version);
      expect(await validateDocument(router.schema as any)).toEqual({ valid: true });
    }
  });
});

describe("Str", () => {
  it("accepts strings only", () => {
    expect(accepts(Str(), "hello")).toBe(true);
    expect(accepts(Str(), 3)).toBe(false);
  });
  it("is a string in the document", () => {
    expect(documentOf(Str()).parameter.schema).toEqual({ type: "string" });
  });
});

describe("Num", () => {
  it("parses a query value to a number, fractions included", async () => {
    expect(await viaQuery(Num(), "12")).toEqual({ status: 200, value: 12 });
    expect(await viaQuery(Num(), "12.5")).toEqual({ status: 200, value: 12.5 });
    expect((await viaQuery(Num(), "twelve")).status).toBe(400);
  });
  it("refuses a string in a JSON body", () => {
    expect(accepts(Num(), 1.5)).toBe(true);
    expect(accepts(Num(), "1.5")).toBe(false);
  });
  it("is a number in the document", () => {
    expect(documentOf(Num({ example: 9.99 })).parameter).toMatchObject({ schema: { type: "number" }, example: 9.99 });
  });
});

describe("Int", () => {
  it("parses a query value and refuses fractions", async () => {
    expect(await viaQuery(Int(), "12")).toEqual({ status: 200, value: 12 });
    expect((await viaQuery(Int(), "12.5")).status).toBe(400);
  });
  it("is an integer in the document, without invented bounds", () => {
    expect(documentOf(Int()).parameter.schema).toEqual({ type: "integer" });
  });
});

describe("Bool", () => {
  it("parses true/false from a query value", async () => {
    expect(await viaQuery(Bool(), "true")).toEqual({ status: 200, value: true });
    expect(await viaQuery(Bool(), "false")).toEqual({ status: 200, value: false });
    expect((await viaQuery(Bool(), "maybe")).status).toBe(400);
  });
  it("is a boolean in the document", () => {
    expect(documentOf(Bool({ default: true })).parameter.schema).toEqual({ type: "boolean", default: true });
  });
});

describe("DateTime", () => {
  it("accepts an ISO date-time in UTC and refuses other shapes with chanfana 2's message", () => {
    expect(accepts(DateTime(), "2024-01-20T10:30:00Z")).toBe(true);
    expect(accepts(DateTime(), "2024-01-20T10:30:00.123Z")).toBe(true);
    expect(accepts(DateTime(), "2024-01-20")).toBe(false);
    expect(accepts(DateTime(), "20/01/2024 10:30")).toBe(false);
    expect(DateTime().safeParse("yesterday").error?.issues[0]?.message).toBe(
      "Must be in the following format: YYYY-mm-ddTHH:MM:ssZ",
    );
  });
  it("is a date-time string in the document", () => {
    expect(documentOf(DateTime()).parameter.schema).toMatchObject({ type: "string", format: "date-time" });
  });
});

describe("DateOnly", () => {
  it("accepts YYYY-MM-DD and keeps it a string", async () => {
    expect(await viaQuery(DateOnly(), "2024-01-20")).toEqual({ status: 200, value: "2024-01-20" });
    expect(accepts(DateOnly(), "2024-02-30")).toBe(false);
    expect(accepts(DateOnly(), "2024-01-20T10:30:00Z")).toBe(false);
  });
  it("is a date string in the document", () => {
    expect(documentOf(DateOnly()).parameter.schema).toMatchObject({ type: "string", format: "date" });
  });
});

describe("Email", () => {
  it("accepts an address and refuses other text", () => {
    expect(accepts(Email(), "ada@example.com")).toBe(true);
    expect(accepts(Email(), "ada at example.com")).toBe(false);
  });
  it("is an email string in the document", () => {
    expect(documentOf(Email()).parameter.schema).toMatchObject({ type: "string", format: "email" });
  });
});

describe("Uuid", () => {
  it("accepts any 8-4-4-4-12 hexadecimal string, as chanfana 2 did", () => {
    expect(accepts(Uuid(), "123e4567-e89b-12d3-a456-426614174000")).toBe(true);
    // chanfana 2's own documentation example: not an RFC 9562 variant, still accepted.
    expect(accepts(Uuid(), "a1b2c3d4-e5f6-7890-1234-567890abcdef")).toBe(true);
    expect(accepts(Uuid(), "a1b2c3d4e5f678901234567890abcdef")).toBe(false);
    expect(accepts(Uuid(), "not-a-uuid")).toBe(false);
  });
  it("is a uuid string in the document", () => {
    expect(documentOf(Uuid()).parameter.schema).toMatchObject({ type: "string", format: "uuid" });
  });
});

describe("Ipv4, Ipv6 and Ip", () => {
  it("accept the addresses of their family", () => {
    expect(accepts(Ipv4(), "192.168.0.1")).toBe(true);
    expect(accepts(Ipv4(), "::1")).toBe(false);
    expect(accepts(Ipv4(), "256.1.1.1")).toBe(false);
    expect(accepts(Ipv6(), "2001:db8::1")).toBe(true);
    expect(accepts(Ipv6(), "192.168.0.1")).toBe(false);
    expect(accepts(Ip(), "192.168.0.1")).toBe(true);
    expect(accepts(Ip(), "2001:db8::1")).toBe(true);
    expect(accepts(Ip(), "localhost")).toBe(false);
  });
  it("reach the handler as strings from a query", async () => {
    expect(await viaQuery(Ip(), "10.0.0.1")).toEqual({ status: 200, value: "10.0.0.1" });
  });
  it("are ipv4/ipv6 strings in the document; Ip is the union of both", () => {
    expect(documentOf(Ipv4()).parameter.schema).toMatchObject({ type: "string", format: "ipv4" });
    expect(documentOf(Ipv6()).parameter.schema).toMatchObject({ type: "string", format: "ipv6" });
    const ip = documentOf(Ip({ description: "Client address" }));
    expect(ip.parameter.description).toBe("Client address");
    expect(ip.parameter.schema.anyOf.map((member: { format: string }) => member.format)).toEqual(["ipv4", "ipv6"]);
  });
});

describe("Hostname", () => {
  it("accepts dot-separated labels and refuses the rest", () => {
    expect(accepts(Hostname(), "api.example.com")).toBe(true);
    expect(accepts(Hostname(), "localhost")).toBe(true);
    expect(accepts(Hostname(), "-bad.example.com")).toBe(false);
    expect(accepts(Hostname(), "has space.com")).toBe(false);
    expect(accepts(Hostname(), "https://example.com")).toBe(false);
  });
  it("carries chanfana 2's pattern in the document", () => {
    expect(documentOf(Hostname()).parameter.schema).toEqual({
      type: "string",
      pattern: LEGACY_HOSTNAME_PATTERN.source,
    });
  });
});

describe("Regex", () => {
  const Slug = Regex({ pattern: /^[a-z0-9-]+$/, patternError: "lower-case letters, digits and hyphens only" });
  it("accepts matching strings and refuses others with patternError", () => {
    expect(accepts(Slug, "my-post-1")).toBe(true);
    expect(Slug.safeParse("My Post").error?.issues[0]?.message).toBe("lower-case letters, digits and hyphens only");
  });
  it('says "Invalid" when no patternError is given', () => {
    expect(Regex({ pattern: /^\d+$/ }).safeParse("x").error?.issues[0]?.message).toBe("Invalid");
  });
  it("refuses a non-matching query value with 400", async () => {
    expect((await viaQuery(Slug, "Not A Slug")).status).toBe(400);
  });
  it("carries the pattern in the document", () => {
    expect(documentOf(Slug).parameter.schema).toEqual({ type: "string", pattern: "^[a-z0-9-]+$" });
  });
});

describe("Enumeration", () => {
  it("with a list accepts its members only, exact case", async () => {
    const Order = Enumeration({ values: ["asc", "desc"] });
    expect(await viaQuery(Order, "desc")).toEqual({ status: 200, value: "desc" });
    expect((await viaQuery(Order, "DESC")).status).toBe(400);
    expect((await viaQuery(Order, "up")).status).toBe(400);
  });

  it("with a mapping accepts its keys and hands the handler the mapped value", async () => {
    const Level = Enumeration({ values: { low: 1, high: 10 } });
    expect(await viaQuery(Level, "high")).toEqual({ status: 200, value: 10 });
    expect((await viaQuery(Level, "10")).status).toBe(400);
    expect(documentOf(Level).parameter.schema).toEqual({ type: "string", enum: ["low", "high"] });
  });

  it("with enumCaseSensitive: false accepts any case and hands over the value as written", async () => {
    const Status = Enumeration({ values: ["Pending", "Done"], enumCaseSensitive: false });
    expect(await viaQuery(Status, "PENDING")).toEqual({ status: 200, value: "Pending" });
    expect(await viaQuery(Status, "done")).toEqual({ status: 200, value: "Done" });
    expect((await viaQuery(Status, "cancelled")).status).toBe(400);
    const mapped = Enumeration({ values: { Json: "application/json" }, enumCaseSensitive: false });
    expect(mapped.parse("JSON")).toBe("application/json");
  });

  it("lists the values as written in the document, case-insensitive or not", () => {
    const insensitive = documentOf(Enumeration({ values: ["Pending", "Done"], enumCaseSensitive: false }));
    expect(insensitive.parameter.schema).toEqual({ type: "string", enum: ["Pending", "Done"] });
    expect(insensitive.property).toEqual({ type: "string", enum: ["Pending", "Done"] });
  });

  it("takes default, example and description like the other helpers", async () => {
    const Order = Enumeration({ values: ["asc", "desc"], default: "asc", description: "Sort order", example: "desc" });
    expect(await viaQuery(Order)).toEqual({ status: 200, value: "asc" });
    expect(documentOf(Order).parameter).toMatchObject({
      required: false,
      description: "Sort order",
      example: "desc",
      schema: { type: "string", enum: ["asc", "desc"], default: "asc" },
    });
  });
});

describe("Arr", () => {
  it("turns one or repeated query values into an array of the inner type", async () => {
    expect(await viaQuery(Arr(Int()), "7")).toEqual({ status: 200, value: [7] });
    const { app } = appWith(Arr(Int()));
    const res = await app.request("/query?v=1&v=2");
    expect(await res.json()).toEqual({ query: [1, 2] });
    expect((await viaQuery(Arr(Int()), "x")).status).toBe(400);
  });
  it("accepts chanfana 2's shorthand for the inner type", () => {
    expect(Arr(String).parse(["a"])).toEqual(["a"]);
    expect(accepts(Arr(Number), ["a"])).toBe(false);
    expect(Arr(z.email()).safeParse(["nope"]).success).toBe(false);
    // A helper passed uncalled, as chanfana 2 allowed.
    expect(accepts(Arr(Email), ["ada@example.com"])).toBe(true);
    expect(accepts(Arr(Email), ["nope"])).toBe(false);
  });
  it("is an array of the inner schema in the document", () => {
    const { parameter } = documentOf(Arr(Str(), { required: false, description: "Tags" }));
    expect(parameter).toMatchObject({ required: false, description: "Tags" });
    expect(parameter.schema).toEqual({ type: "array", items: { type: "string" } });
  });
});

describe("Obj", () => {
  const Address = Obj({ street: Str(), number: Int({ required: false }), zip: String, tags: [String] });
  it("validates each field with its own schema", () => {
    expect(accepts(Address, { street: "Main", zip: "1000", tags: [] })).toBe(true);
    expect(accepts(Address, { street: "Main", number: 1.5, zip: "1000", tags: [] })).toBe(false);
    expect(accepts(Address, { street: "Main", tags: [] })).toBe(false);
  });
  it("is an object with its required fields in the document", async () => {
    const { property } = documentOf(Address);
    expect(property).toEqual({
      type: "object",
      properties: {
        street: { type: "string" },
        number: { type: "integer" },
        zip: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["street", "zip", "tags"],
    });
  });
  it("takes chanfana 2's sample-value shorthand as the field's example", () => {
    const { property } = documentOf(Obj({ name: "Ada" }));
    const name = property.properties.name;
    expect(name.type).toBe("string");
    expect(name.example ?? name.examples?.[0]).toBe("Ada");
  });
});
