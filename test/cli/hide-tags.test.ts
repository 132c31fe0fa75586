import { describe, expect, it } from "vitest";
import { hideTags } from "../../src/cli/hide-tags";
import type { OpenAPIDocument } from "../../src/openapi/types";

const ok = { responses: { "200": { description: "ok" } } };

function sampleDocument(): OpenAPIDocument {
  return {
    openapi: "3.1.0",
    info: { title: "Sample", version: "1.0.0" },
    tags: [{ name: "public" }, { name: "internal", description: "Operators only" }],
    paths: {
      "/items": {
        parameters: [{ name: "tenant", in: "header" }],
        get: { tags: ["public"], ...ok },
        post: { tags: ["public", "internal"], ...ok },
      },
      "/internal/jobs/{id}": {
        parameters: [{ name: "id", in: "path", required: true }],
        get: { tags: ["internal"], ...ok },
        delete: { tags: ["internal"], ...ok },
      },
      "/untagged": { get: ok },
    },
    components: { schemas: { Job: { type: "object" } } },
  };
}

describe("hideTags", () => {
  it("drops operations carrying a hidden tag and path items left without operations", () => {
    const doc = hideTags(sampleDocument(), ["internal"]);
    expect(doc.paths).toEqual({
      "/items": { parameters: [{ name: "tenant", in: "header" }], get: { tags: ["public"], ...ok } },
      "/untagged": { get: ok },
    });
  });

  it("drops the hidden tags from the top-level tag list, and the list when it ends up empty", () => {
    expect(hideTags(sampleDocument(), ["internal"]).tags).toEqual([{ name: "public" }]);
    expect("tags" in hideTags(sampleDocument(), ["internal", "public"])).toBe(false);
  });

  it("keeps everything else as it was", () => {
    const { paths: _paths, tags: _tags, ...rest } = hideTags(sampleDocument(), ["internal"]);
    const { paths: _p, tags: _t, ...expected } = sampleDocument();
    expect(rest).toEqual(expected);
  });

  it("does not change the document it is given", () => {
    const doc = sampleDocument();
    hideTags(doc, ["internal", "public"]);
    expect(doc).toEqual(sampleDocument());
  });

  it("returns the same document when there is nothing to hide", () => {
    const doc = sampleDocument();
    expect(hideTags(doc, [])).toBe(doc);
    expect(hideTags(doc, ["unused"])).toEqual(doc);
  });
});
