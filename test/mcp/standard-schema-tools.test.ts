import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { contentJson, fromHono, fromIttyRouter, OpenAPIRoute, type OpenAPIRouteClass } from "specroute";
import { serveMcp } from "specroute/mcp";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback } from "../helpers";
import { callTool, connectMcp, textOf } from "./mcp-client";

// valibot and ArkType endpoints as MCP tools, listed and called with the SDK's client over real HTTP:
// the input schema is the route's documented JSON Schema (the schema seam's), and a call goes through
// the route, so the library validates the arguments.

class ValibotSave extends OpenAPIRoute {
  schema = {
    "x-mcp": true,
    summary: "Save with valibot",
    request: {
      params: toStandardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()) })),
      query: toStandardJsonSchema(v.object({ dryRun: v.optional(v.boolean()) })),
      body: contentJson(
        toStandardJsonSchema(v.object({ title: v.pipe(v.string(), v.minLength(1)), tags: v.array(v.string()) })),
      ),
    },
    responses: {
      "200": {
        description: "Saved",
        ...contentJson(
          toStandardJsonSchema(
            v.object({ id: v.number(), title: v.string(), tags: v.array(v.string()), dryRun: v.boolean() }),
          ),
        ),
      },
    },
  };
  async handle() {
    const { params, query, body } = await this.getValidatedData<typeof this.schema>();
    return { id: params.id, title: body.title, tags: body.tags, dryRun: query.dryRun ?? false };
  }
}

class ArkTypeSave extends OpenAPIRoute {
  schema = {
    "x-mcp": true,
    summary: "Save with ArkType",
    request: {
      params: type({ id: "number.integer" }),
      query: type({ "dryRun?": "boolean" }),
      body: contentJson(type({ title: "string > 0", tags: "string[]" })),
    },
    responses: {
      "200": {
        description: "Saved",
        ...contentJson(type({ id: "number", title: "string", tags: "string[]", dryRun: "boolean" })),
      },
    },
  };
  async handle() {
    const { params, query, body } = await this.getValidatedData<typeof this.schema>();
    return { id: params.id, title: body.title, tags: body.tags, dryRun: query.dryRun ?? false };
  }
}

function register(add: (method: "post", path: string, route: OpenAPIRouteClass) => void) {
  add("post", "/valibot/:id", ValibotSave);
  add("post", "/arktype/:id", ArkTypeSave);
}

async function onHono() {
  const app = new Hono();
  const openapi: any = fromHono(app);
  register((method, path, route) => openapi[method](path, route));
  serveMcp(openapi);
  return listenOnLoopback((request) => app.fetch(request));
}

async function onItty() {
  const router: any = fromIttyRouter(AutoRouter());
  register((method, path, route) => router[method](path, route));
  serveMcp(router);
  return listenOnLoopback((request) => router.fetch(request));
}

describe.each([
  { adapter: "Hono", start: onHono },
  { adapter: "itty-router", start: onItty },
])("valibot and ArkType tools on $adapter, over HTTP with the SDK's client", ({ start }) => {
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  let client: Client;
  beforeAll(async () => {
    server = await start();
    client = await connectMcp(`${server.origin}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const tools = [
    { library: "valibot", name: "post_ValibotSave" },
    { library: "ArkType", name: "post_ArkTypeSave" },
  ];

  it("lists both tools", async () => {
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name).sort()).toEqual(["post_ArkTypeSave", "post_ValibotSave"]);
  });

  it.each(tools)("describes the $library tool's input and output from the library's JSON Schema", async ({ name }) => {
    const tool = (await client.listTools()).tools.find((t) => t.name === name)!;
    const { properties, required } = tool.inputSchema as any;
    expect(Object.keys(properties)).toEqual(["path", "query", "body"]);
    expect(properties.path).toEqual({
      type: "object",
      properties: { id: { type: "integer" } },
      required: ["id"],
      additionalProperties: false,
    });
    expect(properties.query.properties.dryRun).toMatchObject({ type: "boolean" });
    expect(properties.body).toMatchObject({
      type: "object",
      properties: { title: { type: "string", minLength: 1 }, tags: { type: "array", items: { type: "string" } } },
    });
    expect(properties.body.required).toEqual(expect.arrayContaining(["title", "tags"]));
    expect(required).toEqual(["path", "body"]);
    expect(tool.outputSchema).toMatchObject({ type: "object", properties: { id: { type: "number" } } });
  });

  it.each(tools)("calls the $library tool and answers the structured result", async ({ name }) => {
    const result = await callTool(client, name, {
      path: { id: 7 },
      query: { dryRun: true },
      body: { title: "milk", tags: ["food"] },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: 7, title: "milk", tags: ["food"], dryRun: true });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it.each(tools)("answers bad $library arguments with a tool error naming each field", async ({ name }) => {
    const result = await callTool(client, name, { path: { id: 1.5 }, body: { title: "", tags: "food" } });
    expect(result.isError).toBe(true);
    const { errors } = JSON.parse(textOf(result));
    expect(errors.map((error: { path: unknown }) => error.path)).toEqual(
      expect.arrayContaining([
        ["params", "id"],
        ["body", "title"],
        ["body", "tags"],
      ]),
    );
    for (const error of errors) expect(typeof error.message).toBe("string");
  });
});
