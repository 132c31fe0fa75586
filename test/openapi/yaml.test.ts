import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildDocument } from "../../src/openapi/document";
import { toYaml } from "../../src/openapi/yaml";
import { userRoutes } from "./fixtures";
import { validateDocument } from "./helpers";

describe("toYaml", () => {
  const doc = buildDocument(userRoutes(), {
    openapiVersion: "3.1",
    schema: {
      info: { description: "A description long enough that a YAML writer folding at 80 columns would break it." },
    },
    problemDetails: true,
  });
  const text = toYaml(doc);

  it("reads back as the same document", () => {
    expect(parse(text)).toEqual(doc);
  });

  it("starts with the version and uses no anchors or aliases", () => {
    expect(text.startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(text).not.toMatch(/[&*]a\d+\b/);
  });

  it("does not fold long lines", () => {
    expect(text).toContain("A description long enough that a YAML writer folding at 80 columns would break it.");
  });

  it("keeps numeric status codes as strings", () => {
    expect(Object.keys((parse(text) as any).paths["/users"].get.responses)).toEqual(["200", "400"]);
  });

  it("is accepted by the validator as YAML text", async () => {
    expect(await new Validator().validate(text)).toEqual({ valid: true });
  });
});

describe("validateDocument", () => {
  it("rejects a document that breaks the OpenAPI schema, so the other tests mean something", async () => {
    const broken = { openapi: "3.0.3", info: { title: "x" }, paths: { "/a": { get: { responses: { "200": {} } } } } };
    expect((await validateDocument(broken as any)).valid).toBe(false);
  });
});
