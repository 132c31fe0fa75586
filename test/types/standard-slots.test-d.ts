import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { Hono } from "hono";
import { createClient } from "specroute/client";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import {
  contentEventStream,
  contentForm,
  contentJsonLines,
  contentMultipart,
  fromHono,
  type Meta,
  type O,
  OpenAPIRoute,
  SqlReadEndpoint,
} from "../../src";

// Form and multipart bodies, stream items and auto-endpoint models in valibot and ArkType are typed from
// the libraries' own types, without a cast.

const Signup = toStandardJsonSchema(v.object({ email: v.string(), age: v.pipe(v.string(), v.transform(Number)) }));
const Tick = type({ n: "number.integer" });

class FormRoute extends OpenAPIRoute {
  schema = {
    request: { body: contentForm(Signup) },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    expectTypeOf(body).toEqualTypeOf<{ email: string; age: number }>();
    return body;
  }
}

class NoteRoute extends OpenAPIRoute {
  schema = { request: { body: contentMultipart(type({ text: "string", "tags?": "string[]" })) }, responses: {} };
  async handle() {
    const { body } = await this.getValidatedData();
    expectTypeOf(body).toEqualTypeOf<{ text: string; tags?: string[] }>();
    return body;
  }
}

class Ticks extends OpenAPIRoute {
  schema = { responses: { "200": { description: "Ticks", ...contentEventStream(Tick) } } };
  async *handle() {
    yield { data: { n: 1 } };
  }
}

class Lines extends OpenAPIRoute {
  schema = { responses: { "200": { description: "Ticks", ...contentJsonLines(Tick) } } };
  async *handle() {
    yield { n: 1 };
  }
}

const TaskModel = toStandardJsonSchema(
  v.object({ id: v.number(), title: v.string(), done: v.optional(v.boolean(), false) }),
);
const taskMeta = { model: { tableName: "tasks", schema: TaskModel, primaryKeys: ["id"] } } satisfies Meta<
  typeof TaskModel
>;

class ReadTask extends SqlReadEndpoint {
  _meta = taskMeta;
}

const router = fromHono(new Hono());
const routes = router
  .post("/signup", FormRoute)
  .post("/notes", NoteRoute)
  .get("/ticks", Ticks)
  .get("/lines", Lines)
  .get("/tasks/:id", ReadTask);

describe("valibot and ArkType beyond JSON bodies", () => {
  it("types a stream's items on the typed client", async () => {
    const api = createClient<typeof routes>("http://127.0.0.1:8787");
    const events = await api.get("/ticks");
    if (events.ok) {
      for await (const event of events.data) {
        expectTypeOf(event.data).toEqualTypeOf<{ n: number }>();
        expectTypeOf(event.id).toEqualTypeOf<string | undefined>();
      }
    }
    const lines = await api.get("/lines");
    if (lines.ok) for await (const line of lines.data) expectTypeOf(line).toEqualTypeOf<{ n: number }>();
  });

  it("types a form body from the library's input type on the client", async () => {
    const api = createClient<typeof routes>("http://127.0.0.1:8787");
    // @ts-expect-error: age is sent as the string the transform reads
    await api.post("/signup", { form: { email: "a@b.c", age: 3 } });
  });

  it("types the object an auto endpoint's Meta describes from the library's output", () => {
    expectTypeOf<O<typeof taskMeta>>().toEqualTypeOf<{ id: number; title: string; done: boolean }>();
  });
});
