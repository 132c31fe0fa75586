import { describe, expect, it } from "vitest";
import { z } from "zod";
import { extendZodWithOpenApi } from "../../src/openapi/extend-zod";
import { toOpenApiSchema, useSchemaConverter } from "../../src/schema/zod/json-schema";

extendZodWithOpenApi(z);

describe("toOpenApiSchema", () => {
  it("returns the same frozen object for the same schema, version and side", () => {
    const schema = z.object({ name: z.string() });
    const first = toOpenApiSchema(schema, "3.1", "output");
    expect(toOpenApiSchema(schema, "3.1", "output")).toBe(first);
    expect(Object.isFrozen(first.schema)).toBe(true);
    expect(toOpenApiSchema(schema, "3", "output")).not.toBe(first);
    expect(toOpenApiSchema(schema, "3.1", "input")).not.toBe(first);
  });

  it("has no $schema keyword", () => {
    expect(toOpenApiSchema(z.string(), "3.1", "output").schema).toEqual({ type: "string" });
  });

  it("documents dates as date-time strings and bigints as int64 integers", () => {
    for (const version of ["3", "3.1"] as const) {
      expect(toOpenApiSchema(z.date(), version, "input").schema).toEqual({ type: "string", format: "date-time" });
      expect(toOpenApiSchema(z.bigint(), version, "output").schema).toEqual({ type: "integer", format: "int64" });
    }
  });

  it("drops the safe-integer bounds zod adds for .int() but keeps bounds the user wrote", () => {
    expect(toOpenApiSchema(z.number().int(), "3.1", "input").schema).toEqual({ type: "integer" });
    expect(toOpenApiSchema(z.int().min(1).max(100), "3.1", "input").schema).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100,
    });
    expect(toOpenApiSchema(z.int().positive(), "3.1", "input").schema).toEqual({
      type: "integer",
      exclusiveMinimum: 0,
    });
  });

  it("forbids extra keys only for strict objects", () => {
    const plain = toOpenApiSchema(z.object({ a: z.string() }), "3.1", "output").schema;
    const strict = toOpenApiSchema(z.strictObject({ a: z.string() }), "3.1", "output").schema;
    expect(plain).not.toHaveProperty("additionalProperties");
    expect(strict.additionalProperties).toBe(false);
  });

  it("describes defaults as optional on the request side and present on the response side", () => {
    const schema = z.object({ role: z.enum(["a", "b"]).default("a") });
    expect(toOpenApiSchema(schema, "3.1", "input").schema).not.toHaveProperty("required");
    expect(toOpenApiSchema(schema, "3.1", "output").schema.required).toEqual(["role"]);
  });

  it("writes nullable as `nullable: true` in 3.0 and as a type array in 3.1", () => {
    expect(toOpenApiSchema(z.string().nullable(), "3", "output").schema).toEqual({ type: "string", nullable: true });
    expect(toOpenApiSchema(z.string().nullable(), "3.1", "output").schema).toEqual({ type: ["string", "null"] });
  });

  it("keeps metadata keys given with .openapi(), .meta() and .describe()", () => {
    const schema = z.object({
      password: z.string().min(8).openapi({ format: "password", description: "Secret" }),
      age: z.number().meta({ example: 42 }),
      nick: z.string().describe("Shown to others"),
    });
    const properties = toOpenApiSchema(schema, "3.1", "input").schema.properties as any;
    expect(properties.password).toEqual({ type: "string", minLength: 8, format: "password", description: "Secret" });
    expect(properties.age.example).toBe(42);
    expect(properties.nick.description).toBe("Shown to others");
  });

  it("leaves param details out of the schema", () => {
    expect(toOpenApiSchema(z.string().openapi({ param: { description: "p" } }), "3.1", "input").schema).toEqual({
      type: "string",
    });
  });

  it("turns a JSON Schema examples array into the single example 3.0 allows", () => {
    const schema = z.string().meta({ examples: ["a", "b"] });
    expect(toOpenApiSchema(schema, "3", "output").schema).toEqual({ type: "string", example: "a" });
    expect(toOpenApiSchema(schema, "3.1", "output").schema).toEqual({ type: "string", examples: ["a", "b"] });
  });

  it("drops string checks zod reports as formats", () => {
    const schema = toOpenApiSchema(z.string().startsWith("ab"), "3.1", "input").schema;
    expect(schema).not.toHaveProperty("format");
    expect(schema.pattern).toBe("^ab.*");
  });

  it("extracts schemas with an id as components and points at them", () => {
    const Address = z.object({ city: z.string() }).openapi("Address");
    const User = z.object({ home: Address, work: Address.optional() }).openapi("User");
    const converted = toOpenApiSchema(User, "3", "output");
    expect(converted.schema).toEqual({ $ref: "#/components/schemas/User" });
    expect(Object.keys(converted.components).sort()).toEqual(["Address", "User"]);
    expect((converted.components.User as any).properties.home).toEqual({ $ref: "#/components/schemas/Address" });
  });

  it("names recursive schemas without an id so their self references resolve", () => {
    const Category = z.object({
      name: z.string(),
      get children() {
        return z.array(Category);
      },
    });
    const converted = toOpenApiSchema(Category, "3.1", "output");
    const ref = converted.schema.$ref as string;
    expect(ref).toMatch(/^#\/components\/schemas\/Schema[0-9a-f]{8}$/);
    const component = converted.components[ref.slice("#/components/schemas/".length)] as any;
    expect(component.properties.children.items).toEqual({ $ref: ref });
  });
});

describe("defaults in requests and answers", () => {
  it("documents a default where a request may leave the value out, not in an answer, which always carries it", () => {
    for (const converter of ["direct", "zod"] as const) {
      useSchemaConverter(converter);
      try {
        const Project = z.object({ description: z.string().nullable().default(null), size: z.number().prefault(1) });
        for (const version of ["3", "3.1"] as const) {
          const input = toOpenApiSchema(Project, version, "input").schema as any;
          const output = toOpenApiSchema(Project, version, "output").schema as any;
          expect(input.properties.description.default, `${converter} ${version}`).toBeNull();
          expect(output.properties.description, `${converter} ${version}`).not.toHaveProperty("default");
          expect(output.properties.size, `${converter} ${version}`).not.toHaveProperty("default");
          expect(output.required).toEqual(["description", "size"]);
        }
      } finally {
        useSchemaConverter("direct");
      }
    }
  });
});
