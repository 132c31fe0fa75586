import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, OpenAPIRoute } from "../../src";

// The lowest zod the package accepts (4.1.0), for specroute and this file alike: its schemas carry
// `~standard` without `jsonSchema`, which must not make them look like an unusable Standard Schema.
vi.mock("zod", async () => await import("zod-lowest"));

class CreateNote extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({ draft: z.boolean().optional() }),
      body: contentJson(z.object({ text: z.string().min(1) })),
    },
    responses: { 200: { description: "The note", ...contentJson(z.object({ text: z.string(), draft: z.boolean() })) } },
  };

  async handle() {
    const { query, body } = await this.getValidatedData<typeof this.schema>();
    return { text: body.text, draft: query.draft ?? false };
  }
}

describe("a route on zod 4.1", () => {
  it("is zod 4.1 here: its schemas' ~standard has no jsonSchema", () => {
    // Without this, a mock that did not apply would run the test below on the newest zod, where it proves nothing.
    const standard = (z.string() as unknown as { "~standard": Record<string, unknown> })["~standard"];
    expect(standard.vendor).toBe("zod");
    expect(standard.jsonSchema).toBeUndefined();
  });

  it("compiles, is documented and validates its request", async () => {
    const app = new Hono();
    const router = fromHono(app);
    router.post("/notes", CreateNote);
    router.compile();
    expect(Object.keys(router.getGeneratedSchema().paths)).toEqual(["/notes"]);
    const ok = await app.request("/notes?draft=true", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hi" }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ text: "hi", draft: true });
    const bad = await app.request("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "" }),
    });
    expect(bad.status).toBe(400);
  });
});
