import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { bearerAuth, contentJson, OpenAPIRoute, type OpenAPIRouteClass } from "specroute";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { callTool, connectMcp, textOf } from "./mcp-client";

/** The token the routes accept, read from the environment the server passes to the router's fetch. */
export const TOKEN = "s3cret-token";

/** A router under test, served over HTTP on 127.0.0.1, with the routes `mcpRoutes` registers. */
export interface McpServerUnderTest {
  origin: string;
  /** Paths the router's own middleware saw (Hono's `use`, itty-router's `before`), in order. */
  seen: string[];
  /** Registers one more route on the router; none where the router takes no routes once serving (Hono). */
  addRoute?(method: "get" | "post", path: string, route: OpenAPIRouteClass): void;
  close(): Promise<void>;
}

/**
 * What each adapter's factory registers, then serves MCP at `/mcp` with `expose: { tags: ["public"] }`;
 * `envToken` reads the token from the call's arguments (Hono's `c.env`, itty-router's `env`).
 */
export function mcpRoutes(envToken: (args: unknown[]) => unknown) {
  const auth = bearerAuth({ verify: (token, { args }) => (token === envToken(args) ? { user: "ada" } : null) });
  const Tag = z.object({ label: z.string().min(1) }).openapi("Tag");
  const Item = z.object({ name: z.string().min(1), tags: z.array(Tag) }).openapi("Item");

  /** Three parameters named `id`, one each in the path, the query and the body, and auth. */
  class SaveItem extends OpenAPIRoute {
    schema = {
      tags: ["public"],
      summary: "Save an item",
      description: "Stores the item under its id.",
      auth,
      request: {
        params: z.object({ id: z.number().int() }),
        query: z.object({ id: z.string().optional(), dryRun: z.boolean().default(false) }),
        body: contentJson(Item.extend({ id: z.string().optional() })),
      },
      responses: {
        "200": { description: "Saved", ...contentJson(Item.extend({ pathId: z.number(), by: z.string() })) },
      },
    };
    async handle() {
      const { params, query, body } = await this.getValidatedData<typeof this.schema>();
      const { user } = (await this.getPrincipal()) as { user: string };
      return { name: `${body.name}|${query.id}|${body.id}`, tags: body.tags, pathId: params.id, by: user };
    }
  }

  /** An answer that is an array: no output schema, the JSON as text. */
  class ListNames extends OpenAPIRoute {
    schema = {
      tags: ["public"],
      summary: "List names",
      responses: { "200": { description: "Names", ...contentJson(z.array(z.string())) } },
    };
    handle() {
      return ["ada", "grace"];
    }
  }

  /** Marked on the route; its tag is not exposed. */
  class Marked extends OpenAPIRoute {
    schema = {
      tags: ["internal"],
      "x-mcp": true,
      responses: { "200": { description: "Item", ...contentJson(Item) } },
    };
    handle() {
      return { name: "marked", tags: [{ label: "x" }] };
    }
  }

  /** An exposed tag, but the route says no. */
  class OptedOut extends OpenAPIRoute {
    schema = { tags: ["public"], "x-mcp": false, responses: {} };
    handle() {
      return { ok: true };
    }
  }

  /** Hidden routes are never tools, marked or not. */
  class Hidden extends OpenAPIRoute {
    schema = { tags: ["public"], "x-mcp": true, hidden: true, responses: {} };
    handle() {
      return { ok: true };
    }
  }

  /** Not exposed: its tag is not selected and it is not marked. */
  class Unexposed extends OpenAPIRoute {
    schema = { tags: ["internal"], responses: {} };
    handle() {
      return { ok: true };
    }
  }

  return (register: (method: "get" | "post" | "delete", path: string, route: OpenAPIRouteClass) => void) => {
    register("post", "/items/:id", SaveItem);
    register("get", "/names", ListNames);
    register("get", "/marked", Marked);
    register("get", "/opted-out", OptedOut);
    register("get", "/hidden", Hidden);
    register("get", "/unexposed", Unexposed);
  };
}

/** One suite, run against every adapter: a router's operations as tools, over real HTTP. */
export function describeMcpTools(adapter: string, start: () => Promise<McpServerUnderTest>) {
  describe(`MCP tools on ${adapter}, over HTTP with the SDK's client`, () => {
    let server: McpServerUnderTest;
    let client: Client;
    let anonymous: Client;
    beforeAll(async () => {
      server = await start();
      client = await connectMcp(`${server.origin}/mcp`, { Authorization: `Bearer ${TOKEN}` });
      anonymous = await connectMcp(`${server.origin}/mcp`);
    });
    afterAll(async () => {
      await client?.close();
      await anonymous?.close();
      await server?.close();
    });

    it("lists the marked and the exposed operations, never hidden or opted-out ones", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["get_ListNames", "get_Marked", "post_SaveItem"]);
    });

    it("describes a tool: title, description, annotations, and one member per kind of input", async () => {
      const { tools } = await client.listTools();
      const save = tools.find((tool) => tool.name === "post_SaveItem")!;
      expect(save.title).toBe("Save an item");
      expect(save.description).toBe("Save an item\n\nStores the item under its id.");
      expect(save.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(tools.find((tool) => tool.name === "get_ListNames")!.annotations).toEqual({ readOnlyHint: true });
      const { properties, required } = save.inputSchema as any;
      expect(Object.keys(properties)).toEqual(["path", "query", "body"]);
      expect(properties.path).toEqual({
        type: "object",
        properties: { id: { type: "integer" } },
        required: ["id"],
        additionalProperties: false,
      });
      expect(properties.query.properties.id).toEqual({ type: "string" });
      expect(properties.query.required).toBeUndefined();
      expect(properties.body.properties.id).toEqual({ type: "string" });
      expect(required).toEqual(["path", "body"]);
    });

    it("carries the document's named schemas as $defs, so the tool stands alone", async () => {
      const { tools } = await client.listTools();
      expect(JSON.stringify(tools)).not.toContain("#/components/");
      const marked = tools.find((tool) => tool.name === "get_Marked")!;
      // The answer is a reference to Item: the output schema is Item itself, its Tag under $defs.
      expect(marked.outputSchema).toMatchObject({
        type: "object",
        properties: { tags: { type: "array", items: { $ref: "#/$defs/Tag" } } },
        $defs: { Tag: { type: "object", properties: { label: { type: "string" } } } },
      });
      const save = tools.find((tool) => tool.name === "post_SaveItem")!;
      expect(JSON.stringify(save.inputSchema)).toContain('"$ref":"#/$defs/Tag"');
      expect((save.inputSchema as any).$defs.Tag).toBeDefined();
      // An array answer is no object: no output schema.
      expect(tools.find((tool) => tool.name === "get_ListNames")!.outputSchema).toBeUndefined();
    });

    it("calls a route with the MCP request's credentials, through the router's own middleware", async () => {
      const seenBefore = server.seen.length;
      const result = await callTool(client, "post_SaveItem", {
        path: { id: 7 },
        query: { id: "q" },
        body: { id: "b", name: "box", tags: [{ label: "red" }] },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ name: "box|q|b", tags: [{ label: "red" }], pathId: 7, by: "ada" });
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      expect(server.seen.slice(seenBefore)).toEqual(["/mcp", "/items/7"]);
    });

    it("answers an array as text only", async () => {
      const result = await callTool(anonymous, "get_ListNames");
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(result))).toEqual(["ada", "grace"]);
    });

    it("refuses a call without credentials with the 401 body HTTP answers", async () => {
      const args = { path: { id: 1 }, body: { name: "box", tags: [] } };
      const result = await callTool(anonymous, "post_SaveItem", args);
      expect(result.isError).toBe(true);
      const http = await fetch(`${server.origin}/items/1`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args.body),
      });
      expect(http.status).toBe(401);
      expect(textOf(result)).toBe(await http.text());
    });

    it("answers invalid input with the route's 400 body, naming each field", async () => {
      const result = await callTool(client, "post_SaveItem", { path: { id: "seven" }, body: { name: "", tags: [] } });
      expect(result.isError).toBe(true);
      const { errors } = JSON.parse(textOf(result));
      expect(errors.map((error: { path: unknown }) => error.path)).toEqual(
        expect.arrayContaining([
          ["params", "id"],
          ["body", "name"],
        ]),
      );
    });

    it("tells the client what is wrong with arguments that cannot make a request", async () => {
      const flat = await callTool(client, "post_SaveItem", { id: 7, name: "box" });
      expect(flat).toMatchObject({ isError: true });
      expect(textOf(flat)).toMatch(/^Unknown argument "id"/);
      const missing = await callTool(client, "post_SaveItem", { body: { name: "box", tags: [] } });
      expect(textOf(missing)).toBe("Missing path parameter: arguments.path.id is required");
      const dots = await callTool(client, "post_SaveItem", { path: { id: ".." }, body: { name: "box", tags: [] } });
      expect(textOf(dots)).toBe('arguments.path.id cannot be ".."');
      await expect(client.callTool({ name: "get_Hidden", arguments: {} })).rejects.toThrow(/Unknown tool: get_Hidden/);
    });

    it("answers GET and DELETE 405, as a stateless server does", async () => {
      for (const method of ["GET", "DELETE"]) {
        const response = await fetch(`${server.origin}/mcp`, { method, headers: { accept: "text/event-stream" } });
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("POST");
        expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      }
    });

    it("lists a route registered after the tools were first listed, where the router takes one", async () => {
      if (!server.addRoute) return;
      class Later extends OpenAPIRoute {
        schema = { "x-mcp": true, responses: {} };
        handle() {
          return { later: true };
        }
      }
      server.addRoute("get", "/later", Later);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("get_Later");
      expect((await callTool(client, "get_Later")).content).toEqual([{ type: "text", text: '{"later":true}' }]);
    });
  });
}
