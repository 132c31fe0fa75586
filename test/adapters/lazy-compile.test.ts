import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAPIRoute } from "../../src";
import { harnesses } from "../helpers";

// Registration records a route; the route is compiled when first needed, once, and a route that cannot
// compile says which it is.

class Ok extends OpenAPIRoute {
  schema = { request: { query: z.object({ q: z.string().optional() }) }, responses: {} };
  async handle() {
    return { ok: true };
  }
}

class Broken extends OpenAPIRoute {
  schema = { responses: {} };
  override prepareRoute(): void {
    throw new Error("the table this endpoint reads is not configured");
  }
  async handle() {
    return {};
  }
}

for (const harness of harnesses) {
  describe(`${harness.name}: routes compiled when first needed`, () => {
    it("registers a route that cannot compile, and router.compile() names it", () => {
      const { router } = harness.make();
      router.get("/ok", Ok);
      expect(() => router.get("/broken", Broken)).not.toThrow();
      expect(() => router.compile()).toThrow("GET /broken (Broken): the table this endpoint reads is not configured");
    });

    it("answers a route that cannot compile through the router's error handling, and the others still answer", async () => {
      const { router, request, caught } = harness.make();
      router.get("/ok", Ok);
      router.get("/broken", Broken);
      for (let attempt = 0; attempt < 2; attempt++) {
        expect((await request("/broken")).status).toBe(500);
        expect(String(caught.at(-1))).toMatch(/GET \/broken \(Broken\)/);
      }
      expect(await (await request("/ok")).json()).toEqual({ ok: true });
    });

    it("compiles a route once, for its first request or the first document", async () => {
      let constructed = 0;
      class Counted extends Ok {
        constructor(...args: ConstructorParameters<typeof Ok>) {
          super(...args);
          constructed++;
        }
      }
      const { router, request } = harness.make();
      router.get("/counted", Counted);
      router.get("/documented", Counted);
      expect(constructed).toBe(0);
      await request("/counted");
      await request("/counted?q=again");
      expect(constructed).toBe(1);
      const document = await (await request("/openapi.json")).json();
      expect(Object.keys(document.paths)).toEqual(["/counted", "/documented"]);
      expect(constructed).toBe(2);
    });
  });
}
