import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRoute } from "../../src";
import { type AdapterHarness, documentErrors } from "../helpers";

class Download extends OpenAPIRoute {
  schema = {
    responses: {
      "200": {
        description: "The report",
        headers: z.object({
          "X-Rate-Limit-Remaining": z.number().int().describe("Requests left in this window"),
          ETag: z.string().optional(),
        }),
        ...contentJson(z.object({ total: z.number() })),
      },
    },
  };
  async handle() {
    return new Response(JSON.stringify({ total: 3 }), {
      headers: { "content-type": "application/json", "x-rate-limit-remaining": "41", etag: '"v1"' },
    });
  }
}

class Forget extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.number().int() }) }, responses: { "204": { description: "Gone" } } };
  async handle() {
    await this.getValidatedData();
  }
}

async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

/** Declared response headers and empty responses, on every adapter. */
export function runResponsesSuite(harness: AdapterHarness): void {
  describe(`${harness.name}: response headers and empty responses`, () => {
    for (const version of ["3", "3.1"] as const) {
      it(`documents zod response headers and a 204 without content (OpenAPI ${version})`, async () => {
        const { router, request } = harness.make({ openapiVersion: version });
        router.get("/report", Download);
        router.delete("/things/:id", Forget);
        const doc = await json(await request("/openapi.json"));
        expect(await documentErrors(doc)).toBeNull();
        expect(doc.paths["/report"].get.responses["200"].headers).toEqual({
          "X-Rate-Limit-Remaining": {
            required: true,
            description: "Requests left in this window",
            schema: { type: "integer" },
          },
          ETag: { required: false, schema: { type: "string" } },
        });
        const { "204": gone, ...errors } = doc.paths["/things/{id}"].delete.responses;
        expect(gone).toEqual({ description: "Gone" });
        expect(Object.keys(errors)).toEqual(["400"]);
      });
    }

    it("sends the declared headers and a 204 without a body", async () => {
      const { router, request } = harness.make();
      router.get("/report", Download);
      router.delete("/things/:id", Forget);
      const report = await request("/report");
      expect(report.headers.get("x-rate-limit-remaining")).toBe("41");
      expect(await json(report)).toEqual({ total: 3 });
      const gone = await request("/things/4", { method: "DELETE" });
      expect(gone.status).toBe(204);
      expect(gone.headers.get("content-type")).toBeNull();
      expect(await gone.text()).toBe("");
    });
  });
}
