import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import {
  bearerAuth,
  contentJson,
  contentJsonLines,
  contentMultipart,
  fileField,
  fromHono,
  OpenAPIRoute,
} from "specroute";
import { serveMcp } from "specroute/mcp";
import { describe, expect, it } from "vitest";
import { z } from "zod";

// The SDK's client handing its requests to the app in-process: the options and edge cases of serveMcp.

async function clientOf(app: Hono<any, any, any>, url: string, env: unknown = {}, headers: HeadersInit = {}) {
  const client = new Client({ name: "specroute-options", version: "1.0.0" });
  const fetch = async (input: string | URL | Request, init?: RequestInit) =>
    app.request(input as string, init, env as any);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch, requestInit: { headers } }));
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

class Hello extends OpenAPIRoute {
  schema = {
    tags: ["greetings"],
    request: { query: z.object({ name: z.string().default("world") }) },
    responses: { "200": { description: "A greeting", ...contentJson(z.object({ hello: z.string() })) } },
  };
  async handle() {
    return { hello: (await this.getValidatedData<typeof this.schema>()).query.name };
  }
}

class Bye extends OpenAPIRoute {
  schema = { tags: ["farewells"], responses: {} };
  handle() {
    return { bye: true };
  }
}

describe("serveMcp options", () => {
  it("serves under the app's basePath, and calls routes there", async () => {
    const app = new Hono().basePath("/api");
    const openapi = fromHono(app);
    openapi.get("/hello", Hello);
    serveMcp(openapi, { path: "/tools", expose: { tags: ["greetings"] } });
    const client = await clientOf(app, "http://localhost/api/tools");
    const result = (await client.callTool({
      name: "get_Hello",
      arguments: { query: { name: "ada" } },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ hello: "ada" });
  });

  it("sends a tool call through the app given to fromHono, so its onError set afterwards answers it as it answers HTTP", async () => {
    class Broken extends OpenAPIRoute {
      schema = { tags: ["greetings"], responses: {} };
      handle(): never {
        throw new Error("the store is down");
      }
    }
    const app = new Hono();
    const openapi = fromHono(app, { base: "/api" });
    openapi.get("/broken", Broken);
    serveMcp(openapi, { path: "/mcp", expose: { tags: ["greetings"] } });
    app.onError((err, c) => c.json({ handledBy: "app.onError", message: err.message }, 503));
    const http = await app.request("/api/broken");
    expect(http.status).toBe(503);
    const client = await clientOf(app, "http://localhost/api/mcp");
    const result = (await client.callTool({ name: "get_Broken", arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(await http.json());
  });

  it("names the server after the document, or as told", async () => {
    const app = new Hono();
    const openapi = fromHono(app, {
      schema: { info: { title: "Greeter", version: "2.1.0", description: "Says hello." } },
    });
    openapi.get("/hello", Hello);
    serveMcp(openapi, { path: "/mcp" });
    serveMcp(openapi, { path: "/named", name: "greeter-mcp", version: "9", instructions: "Be kind." });
    const fromDocument = await clientOf(app, "http://localhost/mcp");
    expect(fromDocument.getServerVersion()).toMatchObject({ name: "Greeter", version: "2.1.0" });
    expect(fromDocument.getInstructions()).toBe("Says hello.");
    const named = await clientOf(app, "http://localhost/named");
    expect(named.getServerVersion()).toMatchObject({ name: "greeter-mcp", version: "9" });
    expect(named.getInstructions()).toBe("Be kind.");
    // Neither marked nor exposed: no tools.
    expect(await names(fromDocument)).toEqual([]);
  });

  it("selects operations with a predicate, asked once per document", async () => {
    const app = new Hono();
    const openapi = fromHono(app);
    openapi.get("/hello", Hello).delete("/bye", Bye);
    const seen: Array<[string, string, string | undefined]> = [];
    serveMcp(openapi, {
      expose: (operation) => {
        seen.push([operation.method, operation.path, operation.operationId]);
        return operation.method === "delete";
      },
    });
    const client = await clientOf(app, "http://localhost/mcp");
    expect(await names(client)).toEqual(["delete_Bye"]);
    expect(await names(client)).toEqual(["delete_Bye"]);
    expect(seen).toEqual([
      ["get", "/hello", "get_Hello"],
      ["delete", "/bye", "delete_Bye"],
    ]);
  });

  it("leaves out a route hidden from the environment of the MCP request", async () => {
    const app = new Hono<{ Bindings: { STAGE: string } }>();
    const openapi = fromHono(app);
    class Beta extends OpenAPIRoute {
      schema = {
        "x-mcp": true,
        hidden: ({ env }: { env: Record<string, unknown> }) => env.STAGE !== "beta",
        responses: {},
      };
      handle() {
        return { beta: true };
      }
    }
    openapi.get("/hello", Hello).get("/beta", Beta);
    serveMcp(openapi, { expose: { tags: ["greetings"] } });
    expect(await names(await clientOf(app, "http://localhost/mcp", { STAGE: "prod" }))).toEqual(["get_Hello"]);
    expect(await names(await clientOf(app, "http://localhost/mcp", { STAGE: "beta" }))).toEqual([
      "get_Beta",
      "get_Hello",
    ]);
  });

  it("serves a nested router's routes from the parent, under the parent's auth; the nested endpoint stays behind", async () => {
    const auth = bearerAuth({ verify: (token) => (token === "parent" ? { who: "parent" } : null) });
    const nested = fromHono(new Hono());
    nested.get("/hello", Hello);
    serveMcp(nested, { expose: { tags: ["greetings"] } });
    const app = new Hono();
    const parent = fromHono(app, { auth });
    parent.route("/inner", nested);
    serveMcp(parent, { expose: { tags: ["greetings"] } });

    // The nested router's MCP endpoint would call routes without the parent's auth: it is not mounted.
    expect((await app.request("/inner/mcp", { method: "POST" })).status).toBe(404);
    const anonymous = await clientOf(app, "http://localhost/mcp");
    expect(await names(anonymous)).toEqual(["get_Hello"]);
    const refused = (await anonymous.callTool({ name: "get_Hello", arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text).errors[0].code).toBe(7003);
    const allowed = await clientOf(app, "http://localhost/mcp", {}, { authorization: "Bearer parent" });
    const result = (await allowed.callTool({ name: "get_Hello", arguments: {} })) as CallToolResult;
    expect(result.structuredContent).toEqual({ hello: "world" });
  });

  it("refuses an operation marked as a tool whose body is not JSON, and a mark that is not a boolean", async () => {
    class Upload extends OpenAPIRoute {
      schema = {
        "x-mcp": true,
        request: { body: contentMultipart(z.object({ file: fileField() })) },
        responses: {},
      };
      handle() {
        return {};
      }
    }
    const app = new Hono();
    const openapi = fromHono(app);
    openapi.post("/upload", Upload);
    serveMcp(openapi);
    const client = await clientOf(app, "http://localhost/mcp");
    await expect(client.listTools()).rejects.toThrow(
      /POST \/upload is marked "x-mcp": true but takes its body as multipart\/form-data/,
    );

    class Odd extends OpenAPIRoute {
      schema = { "x-mcp": "yes", responses: {} };
      handle() {
        return {};
      }
    }
    const other = new Hono();
    serveMcp(fromHono(other).get("/odd", Odd));
    await expect((await clientOf(other, "http://localhost/mcp")).listTools()).rejects.toThrow(
      /"x-mcp" of GET \/odd is "yes"; it takes true or false/,
    );
  });

  it("leaves out an operation answering an event stream, and refuses one marked as a tool", async () => {
    const events = {
      "200": { description: "Events", content: { "text/event-stream": { schema: { type: "string" } } } },
    };
    class Listen extends OpenAPIRoute {
      schema = { tags: ["greetings"], responses: events };
      handle() {
        return new Response("data: hi\n\n", { headers: { "content-type": "text/event-stream" } });
      }
    }
    const app = new Hono();
    serveMcp(fromHono(app).get("/hello", Hello).get("/listen", Listen), { expose: { tags: ["greetings"] } });
    expect(await names(await clientOf(app, "http://localhost/mcp"))).toEqual(["get_Hello"]);

    class MarkedListen extends OpenAPIRoute {
      schema = { "x-mcp": true, responses: events };
      handle() {
        return new Response("data: hi\n\n", { headers: { "content-type": "text/event-stream" } });
      }
    }
    const other = new Hono();
    serveMcp(fromHono(other).get("/listen", MarkedListen));
    await expect((await clientOf(other, "http://localhost/mcp")).listTools()).rejects.toThrow(
      /GET \/listen is marked "x-mcp": true but answers a stream \(text\/event-stream\)/,
    );
  });

  it("leaves out a JSON Lines stream declared with contentJsonLines", async () => {
    class Lines extends OpenAPIRoute {
      schema = {
        tags: ["greetings"],
        responses: { "200": { description: "Lines", ...contentJsonLines(z.object({ n: z.number() })) } },
      };
      async *handle() {
        yield { n: 1 };
      }
    }
    const app = new Hono();
    serveMcp(fromHono(app).get("/hello", Hello).get("/lines", Lines), { expose: { tags: ["greetings"] } });
    expect(await names(await clientOf(app, "http://localhost/mcp"))).toEqual(["get_Hello"]);
  });

  it("takes a maxBatchSize from 1 to 100, the SDK's own bound", () => {
    const openapi = fromHono(new Hono());
    for (const maxBatchSize of [0, 101, 1.5, Number.NaN]) {
      expect(() => serveMcp(openapi, { maxBatchSize }), String(maxBatchSize)).toThrow(
        `serveMcp() maxBatchSize must be an integer from 1 to 100, got ${maxBatchSize}`,
      );
    }
    for (const maxBatchSize of [1, 100]) serveMcp(openapi, { path: `/mcp-${maxBatchSize}`, maxBatchSize });
  });

  it("takes only a specroute router", () => {
    expect(() => serveMcp(new Hono() as any)).toThrow(/takes a router made by fromHono\(\) or fromIttyRouter\(\)/);
  });
});
