import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRoute } from "../../src";
import { adaptPlainSchema } from "../../src/schema";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";
import { danglingRefs, redoclyErrors, validateDocument } from "../openapi/helpers";

// Design-first schemas, as chanfana passes them through: a plain JSON Schema object, `{}` or a `$ref`
// where a zod schema could go is documented as written and validates nothing.
afterAll(closeHttpHarnesses);

const noteSchema = {
  type: "object",
  properties: { text: { type: ["string", "null"] }, stars: { type: "integer", exclusiveMinimum: 0 } },
  required: ["text"],
};

class SaveNote extends OpenAPIRoute {
  schema = {
    request: { body: { content: { "application/json": { schema: noteSchema } } } },
    responses: {
      "200": {
        description: "The note as stored",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } },
      },
      "202": { description: "Anything", content: { "application/json": { schema: {} } } },
    },
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return body;
  }
}

/** A JSON body declared optional (`required: false`), as chanfana apps do for PATCH-like routes. */
class Touch extends OpenAPIRoute {
  schema = {
    request: {
      body: { required: false, ...contentJson(z.object({ description: z.string().optional() })) },
    },
    responses: { "200": { description: "What the handler read", ...contentJson(z.object({}).passthrough()) } },
  };
  async handle() {
    const { body } = await this.getValidatedData();
    // chanfana reads an absent body as {}: this must not throw.
    return { description: body.description ?? "none", body };
  }
}

class TouchForm extends OpenAPIRoute {
  schema = {
    request: {
      body: {
        required: false,
        content: {
          "application/x-www-form-urlencoded": { schema: z.object({ note: z.string().optional() }) },
          "multipart/form-data": { schema: z.object({ note: z.string().optional() }) },
        },
      },
    },
    responses: { "200": { description: "What the handler read", ...contentJson(z.object({}).passthrough()) } },
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return { note: body?.note ?? "none" };
  }
}

for (const harness of httpHarnesses) {
  describe(`plain JSON Schema objects and optional bodies over HTTP: ${harness.name}`, () => {
    const make = () => {
      const app = harness.make();
      app.router.registry.registerComponent("schemas", "Note", noteSchema);
      app.router.post("/notes", SaveNote);
      app.router.post("/touch", Touch);
      app.router.post("/touch-form", TouchForm);
      return app;
    };

    it("serves a route whose body and responses are plain schemas, passing the body through unvalidated", async () => {
      const app = make();
      const response = await app.request("/notes", jsonBody({ text: 5, extra: true }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ text: 5, extra: true });
    });

    it("refuses a missing plain-schema body (required unless it says otherwise) and malformed JSON", async () => {
      const app = make();
      const missing = await app.request("/notes", { method: "POST" });
      expect(missing.status).toBe(400);
      expect(JSON.stringify(await missing.json())).toContain("Request body is required");
      const malformed = await app.request("/notes", jsonBody("{not json"));
      expect(malformed.status).toBe(400);
    });

    it("documents plain schemas as written in 3.1 and converted in 3.0, valid and without dangling refs", async () => {
      const app = make();
      const served = await app.request("/openapi.json");
      expect(served.status).toBe(200);
      for (const [version, doc] of [
        ["3.1", await served.json()],
        ["3", app.router.getGeneratedSchema("3")],
      ] as const) {
        const operation = doc.paths["/notes"].post;
        const body = operation.requestBody;
        expect(body.required).toBe(true);
        const schema = body.content["application/json"].schema;
        if (version === "3.1") {
          expect(schema).toEqual(noteSchema);
        } else {
          expect(schema.properties.text).toEqual({ type: "string", nullable: true });
          expect(schema.properties.stars).toEqual({ type: "integer", minimum: 0, exclusiveMinimum: true });
        }
        expect(operation.responses["200"].content["application/json"].schema).toEqual({
          $ref: "#/components/schemas/Note",
        });
        expect(operation.responses["202"].content["application/json"].schema).toEqual({});
        expect((await validateDocument(doc)).errors ?? null, version).toBeNull();
        expect(danglingRefs(doc)).toEqual([]);
        expect(await redoclyErrors(doc)).toEqual([]);
      }
    });

    it("runs the handler for an absent optional JSON body, which reads as {} (no body, no Content-Type)", async () => {
      const app = make();
      const absent = await app.request("/touch", { method: "POST" });
      expect(absent.status).toBe(200);
      expect(await absent.json()).toEqual({ description: "none", body: {} });
      const typed = await app.request("/touch", { method: "POST", headers: { "content-type": "application/json" } });
      expect(typed.status).toBe(200);
      const sent = await app.request("/touch", jsonBody({ description: "hi" }));
      expect(await sent.json()).toEqual({ description: "hi", body: { description: "hi" } });
      // A body that is sent is still validated.
      const wrong = await app.request("/touch", jsonBody({ description: 5 }));
      expect(wrong.status).toBe(400);
    });

    it("runs the handler for an absent optional form or multipart body", async () => {
      const app = make();
      for (const contentType of [null, "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
        const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
        const response = await app.request("/touch-form", { method: "POST", headers });
        expect(response.status, String(contentType)).toBe(200);
        expect(await response.json()).toEqual({ note: "none" });
      }
      const sent = await app.request("/touch-form", { method: "POST", body: new URLSearchParams({ note: "n" }) });
      expect(await sent.json()).toEqual({ note: "n" });
    });
  });
}

describe("adaptPlainSchema", () => {
  it("rewrites what 3.0 and 3.1 spell differently, deep in the schema, and keeps the rest", () => {
    const written = {
      type: "object",
      properties: {
        a: { type: ["integer", "null"], exclusiveMaximum: 10, examples: [3] },
        b: { const: "x" },
        c: { anyOf: [{ $ref: "#/components/schemas/C" }, { type: "string", nullable: true }] },
      },
      items: { type: "string", nullable: true, minimum: 1, exclusiveMinimum: true },
    };
    expect(adaptPlainSchema(written, "3")).toEqual({
      type: "object",
      properties: {
        a: { type: "integer", nullable: true, maximum: 10, exclusiveMaximum: true, example: 3 },
        b: { enum: ["x"] },
        c: { anyOf: [{ $ref: "#/components/schemas/C" }, { type: "string", nullable: true }] },
      },
      items: { type: "string", nullable: true, minimum: 1, exclusiveMinimum: true },
    });
    expect(adaptPlainSchema(written, "3.1")).toEqual({
      type: "object",
      properties: {
        a: { type: ["integer", "null"], exclusiveMaximum: 10, examples: [3] },
        b: { const: "x" },
        c: { anyOf: [{ $ref: "#/components/schemas/C" }, { type: ["string", "null"] }] },
      },
      items: { type: ["string", "null"], exclusiveMinimum: 1 },
    });
    // The written object is not changed.
    expect(written.items).toEqual({ type: "string", nullable: true, minimum: 1, exclusiveMinimum: true });
  });
});
