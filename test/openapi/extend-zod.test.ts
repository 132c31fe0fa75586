import { describe, expect, it } from "vitest";
import { z } from "zod";
import { extendZodWithOpenApi } from "../../src/openapi/extend-zod";

extendZodWithOpenApi(z);

describe("extendZodWithOpenApi", () => {
  it("adds .openapi() to every kind of schema", () => {
    for (const schema of [z.string(), z.email().optional(), z.object({}), z.coerce.number(), z.enum(["a"])]) {
      expect(typeof schema.openapi).toBe("function");
    }
  });

  it("can be called again without effect", () => {
    const before = (z.ZodType.prototype as any).openapi;
    extendZodWithOpenApi(z);
    expect((z.ZodType.prototype as any).openapi).toBe(before);
  });

  it("stores metadata through zod's .meta() and returns a new schema", () => {
    const base = z.string();
    const described = base.openapi({ description: "A name", example: "Ada" });
    expect(described).not.toBe(base);
    expect(described.meta()).toEqual({ description: "A name", example: "Ada" });
    expect(base.meta()).toBeUndefined();
    expect(described.parse("x")).toBe("x");
  });

  it("merges with metadata already present, including nested param details", () => {
    const schema = z
      .string()
      .describe("first")
      .openapi({ example: "x", param: { description: "p" } })
      .openapi({ param: { example: "y" } });
    expect(schema.meta()).toEqual({ description: "first", example: "x", param: { description: "p", example: "y" } });
  });

  it("turns a refId into zod's meta id, which later metadata does not inherit", () => {
    const User = z.object({ name: z.string() }).openapi("User", { description: "A user" });
    expect(User.meta()).toEqual({ id: "User", description: "A user" });
    expect(User.openapi({ description: "Owner" }).meta()).toEqual({ description: "Owner" });
  });

  it("keeps the schema's type for chained calls", () => {
    const schema = z.object({ n: z.number().openapi({ minimum: 0 }) }).openapi({ title: "T" });
    const value: { n: number } = schema.parse({ n: 1 });
    expect(value).toEqual({ n: 1 });
  });
});
