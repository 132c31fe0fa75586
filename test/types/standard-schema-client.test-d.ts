import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { Hono } from "hono";
import { hc } from "hono/client";
import { AutoRouter } from "itty-router";
import { createClient, type ErrorEnvelope } from "specroute/client";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { contentJson, fromHono, fromIttyRouter, OpenAPIRoute } from "../../src";

// The typed client and Hono's `hc` read valibot and ArkType routes through `~standard.types`: inputs
// from the libraries' input types, answers from their output types.

type Item = { id: number; title: string; done: boolean };

class ValibotSave extends OpenAPIRoute {
  schema = {
    request: {
      params: toStandardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()) })),
      query: toStandardJsonSchema(v.object({ page: v.optional(v.number()), tags: v.optional(v.array(v.string())) })),
      body: contentJson(
        toStandardJsonSchema(v.object({ title: v.pipe(v.string(), v.minLength(1)), done: v.optional(v.boolean()) })),
      ),
    },
    responses: {
      "200": {
        description: "Saved",
        ...contentJson(toStandardJsonSchema(v.object({ id: v.number(), title: v.string(), done: v.boolean() }))),
      },
    },
  };
  async handle() {
    return { id: 1, title: "x", done: false };
  }
}

class ArkTypeSave extends OpenAPIRoute {
  schema = {
    request: {
      params: type({ id: "number.integer" }),
      query: type({ "page?": "number", "tags?": "string[]" }),
      body: contentJson(type({ title: "string > 0", "done?": "boolean" })),
    },
    responses: {
      "200": { description: "Saved", ...contentJson(type({ id: "number", title: "string", done: "boolean" })) },
    },
  };
  async handle() {
    return { id: 1, title: "x", done: false };
  }
}

/** Input and output types differ: the caller sends a string, the handler and the answer see a number. */
class ValibotTransform extends OpenAPIRoute {
  schema = {
    request: {
      body: contentJson(toStandardJsonSchema(v.object({ count: v.pipe(v.string(), v.transform(Number)) }))),
    },
    responses: {
      "200": { description: "Counted", ...contentJson(toStandardJsonSchema(v.object({ count: v.number() }))) },
    },
  };
  async handle() {
    return { count: 1 };
  }
}

/** An ArkType morph (a numeric string in, a number out), a header, and a declared error schema. */
class ArkTypeMorph extends OpenAPIRoute {
  schema = {
    request: {
      headers: type({ "x-team": "string" }),
      body: contentJson(type({ count: "string.numeric.parse" })),
    },
    responses: {
      "200": { description: "Counted", ...contentJson(type({ count: "number" })) },
      "404": { description: "No such team", ...contentJson(type({ missing: "string" })) },
    },
  };
  async handle() {
    return { count: 1 };
  }
}

const honoRoutes = fromHono(new Hono())
  .post("/valibot/:id", ValibotSave)
  .post("/arktype/:id", ArkTypeSave)
  .post("/count", ValibotTransform)
  .post("/morph", ArkTypeMorph);
const ittyRoutes = fromIttyRouter(AutoRouter()).post("/valibot/:id", ValibotSave).post("/arktype/:id", ArkTypeSave);

type SaveInput = {
  param: { id: number };
  query?: { page?: number; tags?: string[] };
  json: { title: string; done?: boolean };
};

describe("createClient over valibot and ArkType routes", () => {
  const api = createClient<typeof honoRoutes>("http://localhost");

  it("types the call's inputs from the libraries' input types", () => {
    expectTypeOf(api.post<"/valibot/:id">)
      .parameter(1)
      .toEqualTypeOf<SaveInput>();
    expectTypeOf(api.post<"/arktype/:id">)
      .parameter(1)
      .toEqualTypeOf<SaveInput>();
    expectTypeOf(api.post<"/count">)
      .parameter(1)
      .toEqualTypeOf<{ json: { count: string } }>();
    expectTypeOf(api.post<"/morph">)
      .parameter(1)
      .toEqualTypeOf<{ header: { "x-team": string }; json: { count: string } }>();
  });

  it("types a declared error schema's body, and the router's error format for the other statuses", async () => {
    const morph = await api.post("/morph", { header: { "x-team": "core" }, json: { count: "3" } });
    if (morph.status === 200) expectTypeOf(morph.data).toEqualTypeOf<{ count: number }>();
    if (morph.status === 404) expectTypeOf(morph.error).toEqualTypeOf<{ missing: string }>();
    if (morph.status === 400) expectTypeOf(morph.error).toEqualTypeOf<ErrorEnvelope>();
  });

  it("types the answer's data from the libraries' output types", async () => {
    const saved = await api.post("/valibot/:id", { param: { id: 1 }, json: { title: "milk" } });
    if (saved.ok) {
      expectTypeOf(saved.status).toEqualTypeOf<200>();
      expectTypeOf(saved.data).toEqualTypeOf<Item>();
    } else {
      expectTypeOf(saved.error).toEqualTypeOf<ErrorEnvelope>();
    }
    const ark = await api.post("/arktype/:id", { param: { id: 1 }, query: { tags: ["a"] }, json: { title: "milk" } });
    if (ark.ok) expectTypeOf(ark.data).toEqualTypeOf<Item>();
    const counted = await api.post("/count", { json: { count: "3" } });
    if (counted.ok) expectTypeOf(counted.data).toEqualTypeOf<{ count: number }>();
  });

  it("refuses wrong field types and missing fields", () => {
    // @ts-expect-error: valibot's title is a string
    api.post("/valibot/:id", { param: { id: 1 }, json: { title: 1 } });
    // @ts-expect-error: ArkType's title is a string
    api.post("/arktype/:id", { param: { id: 1 }, json: { title: 1 } });
    // @ts-expect-error: the body's title is required
    api.post("/arktype/:id", { param: { id: 1 }, json: { done: true } });
    // @ts-expect-error: the path id is a number
    api.post("/valibot/:id", { param: { id: "one" }, json: { title: "x" } });
    // @ts-expect-error: page is a number
    api.post("/arktype/:id", { param: { id: 1 }, query: { page: "2" }, json: { title: "x" } });
    // @ts-expect-error: the transform's input is a string
    api.post("/count", { json: { count: 3 } });
    // @ts-expect-error: the morph's input is a string
    api.post("/morph", { header: { "x-team": "core" }, json: { count: 3 } });
    // @ts-expect-error: the header is required
    api.post("/morph", { json: { count: "3" } });
  });

  it("types routes registered on itty-router alike", async () => {
    const itty = createClient<typeof ittyRoutes>("http://localhost");
    expectTypeOf(itty.post<"/arktype/:id">)
      .parameter(1)
      .toEqualTypeOf<SaveInput>();
    const saved = await itty.post("/valibot/:id", { param: { id: 1 }, json: { title: "x" } });
    if (saved.ok) expectTypeOf(saved.data).toEqualTypeOf<Item>();
  });
});

describe("Hono's hc over valibot and ArkType routes", () => {
  const client = hc<typeof honoRoutes>("http://localhost");

  it("types inputs the Hono way and outputs from the libraries' output types", async () => {
    type ValibotArgs = Parameters<(typeof client.valibot)[":id"]["$post"]>[0];
    expectTypeOf<ValibotArgs["param"]>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<ValibotArgs["json"]>().toEqualTypeOf<{ title: string; done?: boolean }>();
    expectTypeOf<NonNullable<ValibotArgs["query"]>>().toEqualTypeOf<{ page?: string; tags?: string[] }>();
    type ArkArgs = Parameters<(typeof client.arktype)[":id"]["$post"]>[0];
    expectTypeOf<ArkArgs["json"]>().toEqualTypeOf<{ title: string; done?: boolean }>();
    const res = await client.arktype[":id"].$post({ param: { id: "1" }, json: { title: "x" } });
    if (res.status === 200) expectTypeOf(await res.json()).toEqualTypeOf<Item>();
    const counted = await client.count.$post({ json: { count: "3" } });
    if (counted.ok) expectTypeOf(await counted.json()).toEqualTypeOf<{ count: number }>();
  });

  it("refuses wrong inputs", () => {
    // @ts-expect-error: valibot's title is a string
    client.valibot[":id"].$post({ param: { id: "1" }, json: { title: 1 } });
    // @ts-expect-error: ArkType's title is required
    client.arktype[":id"].$post({ param: { id: "1" }, json: { done: true } });
    // @ts-expect-error: Hono takes path values as strings
    client.arktype[":id"].$post({ param: { id: 1 }, json: { title: "x" } });
  });
});
