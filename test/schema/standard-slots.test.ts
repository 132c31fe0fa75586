import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import {
  contentEventStream,
  contentForm,
  contentJson,
  contentJsonLines,
  contentMultipart,
  OpenAPIRoute,
} from "../../src";
import { closeHttpHarnesses, documentErrors, httpHarnesses, jsonBody } from "../helpers";

// The slots beyond params, query, headers and JSON bodies (test/schema/standard-schema.test.ts): form and
// multipart bodies, stream items, response headers, and validators that answer asynchronously.
afterAll(closeHttpHarnesses);

const taken = new Set(["taken@example.com"]);
const libraries = {
  valibot: {
    form: toStandardJsonSchema(
      v.object({ email: v.pipe(v.string(), v.email()), age: v.pipe(v.number(), v.integer()) }),
    ),
    note: toStandardJsonSchema(
      v.object({ text: v.pipe(v.string(), v.minLength(1)), tags: v.optional(v.array(v.string())) }),
    ),
    tick: toStandardJsonSchema(v.object({ n: v.pipe(v.number(), v.integer()) })),
    headers: toStandardJsonSchema(v.object({ "x-count": v.string() })),
    // An email no one has taken, checked by an asynchronous lookup. @valibot/to-json-schema's types take
    // only synchronous schemas; its wrapper validates an asynchronous one all the same.
    signup: toStandardJsonSchema(
      // @ts-expect-error: the types' refusal described above
      v.objectAsync({
        email: v.pipeAsync(
          v.string(),
          v.checkAsync(async (email) => !taken.has(email), "This email is taken"),
        ),
      }),
    ),
  },
  arktype: {
    form: type({ email: "string.email", age: "number.integer" }),
    note: type({ text: "string > 0", "tags?": "string[]" }),
    tick: type({ n: "number.integer" }),
    headers: type({ "x-count": "string" }),
    signup: null,
  },
};

for (const [name, lib] of Object.entries(libraries)) {
  const schemas = lib as any;
  class Form extends OpenAPIRoute {
    schema = { request: { body: contentForm(schemas.form) }, responses: {} };
    async handle() {
      return (await this.getValidatedData()).body;
    }
  }
  class Note extends OpenAPIRoute {
    schema = { request: { body: contentMultipart(schemas.note) }, responses: {} };
    async handle() {
      return (await this.getValidatedData()).body;
    }
  }
  class Ticks extends OpenAPIRoute {
    schema = {
      request: { query: type({ "broken?": "boolean" }) },
      responses: {
        "200": {
          description: "Ticks",
          headers: schemas.headers,
          content: {
            ...contentEventStream(schemas.tick).content,
            ...contentJsonLines(schemas.tick).content,
          },
        },
      },
    };
    async *handle() {
      const { query } = await this.getValidatedData();
      yield { data: { n: 1 } };
      yield { data: { n: query.broken ? 1.5 : 2 } };
    }
  }
  class Lines extends OpenAPIRoute {
    schema = { responses: { "200": { description: "Ticks", ...contentJsonLines(schemas.tick) } } };
    async *handle() {
      yield { n: 1 };
      yield { n: 2 };
    }
  }
  class Signup extends OpenAPIRoute {
    schema = { request: { body: contentJson(schemas.signup ?? schemas.form) }, responses: {} };
    async handle() {
      return (await this.getValidatedData()).body;
    }
  }

  describe.each(httpHarnesses)(`${name} in every slot, on $name over HTTP`, (harness) => {
    const app = harness.make({ validateResponse: true });
    app.router.post("/form", Form);
    app.router.post("/note", Note);
    app.router.get("/ticks", Ticks);
    app.router.get("/lines", Lines);
    app.router.post("/signup", Signup);

    it("reads a form body, coercing its strings from the JSON Schema, and names a bad field", async () => {
      const ok = await app.request("/form", {
        method: "POST",
        body: new URLSearchParams({ email: "a@example.com", age: "31" }),
      });
      expect(await ok.json()).toEqual({ email: "a@example.com", age: 31 });
      const bad = await app.request("/form", { method: "POST", body: new URLSearchParams({ email: "no", age: "x" }) });
      expect(bad.status).toBe(400);
      const paths = (await bad.json()).errors.map((e: any) => e.path.join("."));
      expect(paths.sort()).toEqual(["body.age", "body.email"]);
    });

    it("reads the text members of a multipart body, repeated keys as an array", async () => {
      const form = new FormData();
      form.append("text", "hello");
      form.append("tags", "a");
      form.append("tags", "b");
      const ok = await app.request("/note", { method: "POST", body: form });
      expect(await ok.json()).toEqual({ text: "hello", tags: ["a", "b"] });
      const empty = new FormData();
      empty.append("text", "");
      expect((await app.request("/note", { method: "POST", body: empty })).status).toBe(400);
    });

    it("streams items checked by the library, as events and as JSON lines", async () => {
      const events = await app.request("/ticks", { headers: { accept: "text/event-stream" } });
      expect(await events.text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
      const lines = await app.request("/lines");
      expect(await lines.text()).toBe('{"n":1}\n{"n":2}\n');
    });

    it("ends a stream whose item its schema refuses, after the items that passed", async () => {
      const events = await app.request("/ticks?broken=true", { headers: { accept: "text/event-stream" } });
      const text = await events.text().catch(() => "cut off");
      expect(text).toContain('data: {"n":1}');
      expect(text).not.toContain('"n":1.5');
    });

    it.runIf(name === "valibot")("waits for an asynchronous check and answers its refusal as a 400", async () => {
      expect((await app.request("/signup", jsonBody({ email: "new@example.com" }))).status).toBe(200);
      const refused = await app.request("/signup", jsonBody({ email: "taken@example.com" }));
      expect(refused.status).toBe(400);
      expect((await refused.json()).errors).toEqual([
        expect.objectContaining({ message: "This email is taken", path: ["body", "email"] }),
      ]);
    });

    it.each(["3", "3.1", "3.2"] as const)("documents every slot in a valid %s document", async (version) => {
      const doc = app.router.getGeneratedSchema(version) as any;
      expect(await documentErrors(doc)).toBeNull();
      const form = doc.paths["/form"].post.requestBody.content["application/x-www-form-urlencoded"].schema;
      expect(form.properties.age.type).toBe("integer");
      const ticks = doc.paths["/ticks"].get.responses["200"];
      expect(ticks.headers["x-count"]).toBeDefined();
      const stream = ticks.content["text/event-stream"];
      const item = version === "3.2" ? stream.itemSchema : stream["x-itemSchema"];
      expect(JSON.stringify(item)).toContain('"n"');
    });
  });
}
