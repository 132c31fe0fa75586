import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { Hono } from "hono";
import { hc } from "hono/client";
import { AutoRouter } from "itty-router";
import { createClient } from "specroute/client";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { contentJson, fromHono, fromIttyRouter, OpenAPIRoute } from "../../src";
import { listenOnLoopback } from "../helpers";

// specroute's typed client and Hono's `hc` calling valibot and ArkType endpoints over real HTTP: the
// request validates through the library, the answer is the typed data (types: test/types/standard-schema-client.test-d.ts).

type Item = { id: number; title: string; page: number | null };

class ValibotSave extends OpenAPIRoute {
  schema = {
    request: {
      params: toStandardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()) })),
      query: toStandardJsonSchema(v.object({ page: v.optional(v.number()) })),
      body: contentJson(toStandardJsonSchema(v.object({ title: v.pipe(v.string(), v.minLength(1)) }))),
    },
    responses: {
      "200": {
        description: "Saved",
        ...contentJson(
          toStandardJsonSchema(v.object({ id: v.number(), title: v.string(), page: v.nullable(v.number()) })),
        ),
      },
    },
  };
  async handle() {
    const { params, query, body } = await this.getValidatedData<typeof this.schema>();
    return { id: params.id, title: body.title, page: query.page ?? null };
  }
}

class ArkTypeSave extends OpenAPIRoute {
  schema = {
    request: {
      params: type({ id: "number.integer" }),
      query: type({ "page?": "number" }),
      body: contentJson(type({ title: "string > 0" })),
    },
    responses: {
      "200": { description: "Saved", ...contentJson(type({ id: "number", title: "string", page: "number | null" })) },
    },
  };
  async handle() {
    const { params, query, body } = await this.getValidatedData<typeof this.schema>();
    return { id: params.id, title: body.title, page: query.page ?? null };
  }
}

function honoApp() {
  const app = new Hono();
  const routes = fromHono(app).post("/valibot/:id", ValibotSave).post("/arktype/:id", ArkTypeSave);
  return { fetch: (request: Request) => app.fetch(request), routes };
}

function ittyApp() {
  const router = AutoRouter();
  const routes = fromIttyRouter(router).post("/valibot/:id", ValibotSave).post("/arktype/:id", ArkTypeSave);
  return { fetch: (request: Request) => router.fetch(request), routes };
}

describe.each([
  { name: "Hono", make: honoApp },
  { name: "itty-router", make: ittyApp },
])("the typed client over valibot and ArkType routes on $name, over HTTP", ({ make }) => {
  const app = make();
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  beforeAll(async () => {
    server = await listenOnLoopback(app.fetch);
  });
  afterAll(() => server.close());

  it.each(["/valibot/:id", "/arktype/:id"] as const)("%s: sends typed inputs and gets the typed data", async (path) => {
    const api = createClient<typeof app.routes>(server.origin);
    const saved = await api.post(path, { param: { id: 7 }, query: { page: 2 }, json: { title: "milk" } });
    if (!saved.ok) throw new Error(`expected 200, got ${saved.status}: ${JSON.stringify(saved.error)}`);
    expectTypeOf(saved.data).toEqualTypeOf<Item>();
    expect(saved.status).toBe(200);
    expect(saved.data).toEqual({ id: 7, title: "milk", page: 2 });
  });

  it.each(["/valibot/:id", "/arktype/:id"] as const)("%s: gets the 400 naming the field", async (path) => {
    const api = createClient<typeof app.routes>(server.origin);
    const refused = await api.post(path, { param: { id: 7 }, json: { title: "" } });
    expect(refused.ok).toBe(false);
    expect(refused.status).toBe(400);
    if (refused.status !== 400) return;
    expect(refused.error.errors.map((error) => error.path)).toContainEqual(["body", "title"]);
  });
});

describe("Hono's hc over valibot and ArkType routes, over HTTP", () => {
  const app = honoApp();
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  beforeAll(async () => {
    server = await listenOnLoopback(app.fetch);
  });
  afterAll(() => server.close());

  it("sends Hono's string inputs and reads the typed answer", async () => {
    const client = hc<typeof app.routes>(server.origin);
    const valibot = await client.valibot[":id"].$post({
      param: { id: "3" },
      query: { page: "1" },
      json: { title: "a" },
    });
    expect(valibot.status).toBe(200);
    if (valibot.status === 200) expect(await valibot.json()).toEqual({ id: 3, title: "a", page: 1 });
    const arktype = await client.arktype[":id"].$post({ param: { id: "4" }, json: { title: "b" } });
    expect(arktype.status).toBe(200);
    if (arktype.status === 200) expect(await arktype.json()).toEqual({ id: 4, title: "b", page: null });
  });
});
