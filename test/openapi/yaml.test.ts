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

describe("toYaml with awkward values", () => {
  const awkward = {
    openapi: "3.1.0",
    info: { title: "Colon: and # hash", version: "1.0.0" },
    paths: {},
    "x-samples": {
      empty: "",
      spaces: "  leading and trailing  ",
      reserved: ["true", "false", "null", "yes", "no", "on", "off", "~", "y"],
      numbers: ["123", "1.5", "1e3", "0x10", "0o7", ".inf", "-1", "+1"],
      dates: ["2024-01-01", "2024-01-01T10:00:00Z", "12:30"],
      punctuation: [
        "- dash",
        "[x]",
        "{y}",
        "*star",
        "&amp",
        "!tag",
        "|pipe",
        ">fold",
        "'q'",
        '"dq"',
        "%p",
        "@a",
        "`b`",
      ],
      multiline: "line one\nline two\ttab",
      unicode: "naïve café ✓ \u2028",
      nested: [[], {}, [[1, 2], { a: [] }], { "200": { "": null } }],
      numbersAndBools: [0, -1.25, 1e21, true, false, null],
    },
  };

  it("reads back identically under YAML 1.2 and 1.1", () => {
    const text = toYaml(awkward as never);
    expect(parse(text)).toEqual(awkward);
    expect(parse(text, { version: "1.1" })).toEqual(awkward);
  });
});
