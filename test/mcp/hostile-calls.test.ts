import http from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { Router } from "itty-router";
import { contentJson, fromHono, fromIttyRouter, memoryRateLimitStore, OpenAPIRoute, rateLimit } from "specroute";
import { serveMcp } from "specroute/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { listenOnLoopback } from "../helpers";
import { callTool, connectMcp, textOf } from "./mcp-client";

// A hostile MCP client, over real HTTP: what its tool arguments may set on the route's request (only the
// header parameters the route declares, never a header its MCP request carries), arguments no request
// can be made of (tool errors saying why), and how many calls one HTTP request may carry.

/** The client's address as the proxy in front of the app asserts it (nginx's `X-Real-IP`). */
const PROXY_ASSERTED_IP = "203.0.113.9";
/** What the proxy (or a gateway) sets on every request it forwards: the MCP client cannot change these. */
const proxyHeaders = { "X-Real-IP": PROXY_ASSERTED_IP, "X-Tenant": "acme" };

/** The routes, fresh per server: a rate-limited one, one declaring header parameters, one taking a body. */
function routes() {
  const handled = { ping: 0 };
  // Keyed by the header the proxy sets, as docs/operations.md tells an app behind a proxy to do.
  const perClient = rateLimit({
    limit: 2,
    windowSeconds: 600,
    key: ({ request }) => request.headers.get("x-real-ip") ?? undefined,
    store: memoryRateLimitStore(),
  });

  class Ping extends OpenAPIRoute {
    schema = { "x-mcp": true, rateLimit: perClient, responses: {} };
    handle() {
      handled.ping++;
      return { pong: true };
    }
  }

  class Whoami extends OpenAPIRoute {
    schema = {
      "x-mcp": true,
      request: { headers: z.object({ "x-tenant": z.string().optional(), "x-note": z.string().optional() }) },
      responses: {},
    };
    async handle() {
      const { headers } = await this.getValidatedData<typeof this.schema>();
      return { tenant: headers["x-tenant"] ?? null, note: headers["x-note"] ?? null };
    }
  }

  class Save extends OpenAPIRoute {
    schema = {
      "x-mcp": true,
      request: {
        query: z.object({ tags: z.array(z.string()).optional() }),
        body: contentJson(z.object({ data: z.unknown() })),
      },
      responses: {},
    };
    async handle() {
      const { body } = await this.getValidatedData<typeof this.schema>();
      return { saved: body.data };
    }
  }

  return {
    handled,
    register(router: any) {
      router.get("/ping", Ping);
      router.get("/whoami", Whoami);
      router.post("/save", Save);
      serveMcp(router, { path: "/mcp" });
      serveMcp(router, { path: "/mcp-batch", maxBatchSize: 3 });
    },
  };
}

const servers = {
  async hono() {
    const { handled, register } = routes();
    const app = new Hono();
    register(fromHono(app));
    return { handled, ...(await listenOnLoopback((request, env) => app.fetch(request, env))) };
  },
  async "itty-router"() {
    const { handled, register } = routes();
    const router = fromIttyRouter(Router());
    register(router);
    const server = await listenOnLoopback(
      async (request) => (await router.fetch(request)) ?? new Response("no route", { status: 404 }),
    );
    return { handled, ...server };
  },
};

/** A JSON-RPC `tools/call` message. */
const toolCall = (name: string, args: unknown, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe.each(Object.keys(servers) as Array<keyof typeof servers>)("a hostile MCP client on %s", (adapter) => {
  let server: Awaited<ReturnType<(typeof servers)["hono"]>>;
  let client: Client;

  /** POSTs `text` to an MCP endpoint as a client that skips the SDK would, through the same proxy. */
  const post = async (text: string, path = "/mcp") => {
    const response = await fetch(`${server.origin}${path}`, {
      method: "POST",
      headers: {
        ...proxyHeaders,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: text,
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** The result of one raw `tools/call`, which must be a result (a tool error at worst), never a JSON-RPC error. */
  const rawCall = async (text: string): Promise<CallToolResult> => {
    const { status, body } = await post(text);
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    return body.result;
  };

  beforeAll(async () => {
    server = await servers[adapter]();
    client = await connectMcp(`${server.origin}/mcp`, proxyHeaders);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it("refuses an undeclared header in arguments.headers, so a spent rate limit stays spent", async () => {
    expect((await callTool(client, "get_Ping")).isError).toBeFalsy();
    expect((await callTool(client, "get_Ping")).isError).toBeFalsy();
    const limited = await callTool(client, "get_Ping");
    expect(limited.isError).toBe(true);
    expect(JSON.parse(textOf(limited)).errors[0]).toMatchObject({ code: 7008 });
    for (let i = 0; i < 10; i++) {
      const spoofed = await callTool(client, "get_Ping", { headers: { "X-Real-IP": `10.0.0.${i}` } });
      expect(spoofed.isError).toBe(true);
      expect(textOf(spoofed)).toBe(
        'arguments.headers: "X-Real-IP" is not a header parameter of this tool (it takes none)',
      );
    }
    expect(server.handled.ping).toBe(2);
  });

  it("never replaces a header the MCP request carries, whatever its case", async () => {
    for (const name of ["X-Tenant", "x-tenant"]) {
      const result = await callTool(client, "get_Whoami", { headers: { [name]: "globex" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `arguments.headers: "${name}" comes with the MCP request itself, and a tool call does not replace it`,
      );
    }
    const undeclared = await callTool(client, "get_Whoami", { headers: { "X-Forwarded-For": "10.0.0.1" } });
    expect(textOf(undeclared)).toBe(
      'arguments.headers: "X-Forwarded-For" is not a header parameter of this tool (it takes: x-tenant, x-note)',
    );
    const plain = await callTool(client, "get_Whoami");
    expect(JSON.parse(textOf(plain))).toEqual({ tenant: "acme", note: null });
  });

  it("sets a declared header parameter the MCP request does not carry", async () => {
    const result = await callTool(client, "get_Whoami", { headers: { "X-Note": "hello", "x-unused": undefined } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ tenant: "acme", note: "hello" });
  });

  it("answers a header value no request can carry with a tool error saying why", async () => {
    const crlf = await rawCall(
      JSON.stringify(toolCall("get_Whoami", { headers: { "x-note": "a\r\nX-Tenant: globex" } })),
    );
    expect(crlf.isError).toBe(true);
    expect(textOf(crlf)).toBe(
      'arguments.headers."x-note" holds a line break, a control character or a character beyond U+00FF, which no header value may',
    );
    const nested = await rawCall(JSON.stringify(toolCall("get_Whoami", { headers: { "x-note": { a: 1 } } })));
    expect(textOf(nested)).toBe('arguments.headers."x-note" must be a string, a number or a boolean');
  });

  it("answers deeply nested arguments with a tool error, in the body or the query", async () => {
    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    for (const args of [`{"body":{"data":${deep}}}`, `{"query":{"tags":${deep}},"body":{"data":1}}`]) {
      const text = JSON.stringify(toolCall("post_Save", "ARGS")).replace('"ARGS"', args);
      const result = await rawCall(text);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe("arguments are nested more than 256 levels deep");
    }
    // Within the bound, the route reads it as an HTTP request would.
    const fine = await callTool(client, "post_Save", { body: { data: [[["ok"]]] } });
    expect(JSON.parse(textOf(fine))).toEqual({ saved: [[["ok"]]] });
  });

  it("answers arguments, or members of them, that are no object with a tool error saying so", async () => {
    for (const [args, message] of [
      ["hello", "arguments must be an object { path, query, headers, body }, not a string"],
      [[1, 2], "arguments must be an object { path, query, headers, body }, not an array"],
      [7, "arguments must be an object { path, query, headers, body }, not a number"],
      [{ headers: "x-note: hi" }, "arguments.headers must be an object of header values"],
      [{ query: ["tags"] }, "arguments.query must be an object of query values"],
    ] as const) {
      const result = await rawCall(JSON.stringify(toolCall("get_Whoami", args)));
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result), JSON.stringify(args)).toBe(message);
    }
  });

  it("refuses a body declared larger than the limit before reading it", async () => {
    // 100 MB declared, 1 byte sent: answered at once, not after waiting for (and holding) the rest.
    const url = new URL(`${server.origin}/mcp`);
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: "POST",
          headers: {
            ...proxyHeaders,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "content-length": String(100 * 1024 * 1024),
          },
        },
        (response) => {
          let text = "";
          response.on("data", (chunk) => (text += chunk));
          response.on("end", () => {
            request.destroy();
            resolve({ status: response.statusCode!, body: JSON.parse(text) });
          });
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.write("[");
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "Payload Too Large: Request body must not exceed 4194304 bytes" },
    });
  });

  it("refuses a JSON-RPC batch larger than maxBatchSize (1 by default) before running any call", async () => {
    const before = server.handled.ping;
    const batch = (size: number, tool = "get_Ping") =>
      JSON.stringify(Array.from({ length: size }, (_, i) => toolCall(tool, {}, i + 1)));
    const refused = await post(batch(100));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request: a batch of 100 messages; this server takes at most 1 per request",
      },
    });
    const overOption = await post(batch(4), "/mcp-batch");
    expect(overOption.status).toBe(400);
    expect(overOption.body.error.message).toBe(
      "Invalid Request: a batch of 4 messages; this server takes at most 3 per request",
    );
    expect(server.handled.ping).toBe(before);
    // Within the bound, a batch is answered as one.
    const within = await post(batch(3, "get_Whoami"), "/mcp-batch");
    expect(within.status).toBe(200);
    expect(within.body.map((answer: any) => [answer.id, JSON.parse(answer.result.content[0].text)])).toEqual([
      [1, { tenant: "acme", note: null }],
      [2, { tenant: "acme", note: null }],
      [3, { tenant: "acme", note: null }],
    ]);
    const one = await post(batch(1, "get_Whoami"));
    expect(one.status).toBe(200);
    expect([one.body].flat().map((answer: any) => answer.id)).toEqual([1]);
  });
});
