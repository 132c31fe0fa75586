import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { isRouterWrapper, type RouterCore } from "../adapters/router-core";
import type { OpenAPIDocument } from "../openapi/types";
import { requestFor, resultOf, ToolArgumentsError, toolError } from "./tool-call";
import { type McpExpose, type ToolPlan, toolPlans } from "./tool-plan";

/** How a router serves MCP: where, under which name, and which of its operations are tools. */
export interface ServeMcpOptions {
  /** Where MCP is served, relative to the router's base (as its routes are): `/mcp` by default. */
  path?: string;
  /** The server's name in `initialize`: the document's `info.title` by default. */
  name?: string;
  /** The server's version: the document's `info.version` by default. */
  version?: string;
  /** What the server tells clients in `initialize`: the document's `info.description` by default. */
  instructions?: string;
  /**
   * Operations that are tools besides those whose schema says `"x-mcp": true`: those with one of `tags`,
   * or those a predicate accepts. Without it only marked operations are tools.
   */
  expose?: McpExpose;
}

/** A router `fromHono()` or `fromIttyRouter()` made. */
export interface SpecrouteRouter {
  readonly isSpecroute: true;
}

/** A router wrapper, as `isRouterWrapper` finds it. */
type Wrapper = { core: RouterCore; fetch?: (request: Request, ...args: unknown[]) => unknown };

/** The tools of one document: by name for calls, listed in document order. */
interface ToolSet {
  byName: Map<string, ToolPlan>;
  list: Tool[];
}

// JSON-RPC answers are bodies of the router's size, plus their framing; never under the SDK's own default.
const SDK_BODY_LIMIT = 4 * 1024 * 1024;
const JSON_RPC_ALLOWANCE = 64 * 1024;

/**
 * Serves the router's operations as MCP tools (Streamable HTTP, stateless) at `path`: a tool call runs
 * the route through the router itself, with the MCP request's credentials, as an HTTP request would.
 *
 * @example
 * const openapi = fromHono(new Hono());
 * openapi.get("/tasks/:id", GetTask).post("/tasks", CreateTask);
 * serveMcp(openapi, { path: "/mcp", expose: { tags: ["tasks"] } });
 */
export function serveMcp(router: SpecrouteRouter, options: ServeMcpOptions = {}): void {
  if (!isRouterWrapper(router)) throw new TypeError("serveMcp() takes a router made by fromHono() or fromIttyRouter()");
  const endpoint = new McpEndpoint(router as Wrapper, options);
  // Like the docs routes, the router's own: a router mounted into another leaves it out, since its tool calls
  // would not pass the parent's security. The parent serves MCP itself, over every route it mounted.
  const handler = router.core.ownHandler((...args: unknown[]) => endpoint.answer(args));
  const register = router as unknown as Record<"post" | "get" | "delete", (path: string, handler: unknown) => unknown>;
  const path = options.path ?? "/mcp";
  // GET and DELETE are answered 405, as the transport specifies for a server with no stream and no session.
  for (const method of ["post", "get", "delete"] as const) register[method](path, handler);
}

/** One router's MCP endpoint; a server and a transport per request, the tools built once per document. */
class McpEndpoint {
  private readonly core: RouterCore;
  private readonly toolSets = new WeakMap<OpenAPIDocument, ToolSet>();
  private readonly bodyLimit: number;

  constructor(
    private readonly router: Wrapper,
    private readonly options: ServeMcpOptions,
  ) {
    this.core = router.core;
    this.bodyLimit = Math.max(SDK_BODY_LIMIT, this.core.options.maxBodySize + JSON_RPC_ALLOWANCE);
  }

  async answer(args: unknown[]): Promise<Response> {
    const request = this.core.getRequest(args);
    if (request.method !== "POST") return methodNotAllowed();
    // The 3.1 document whatever the router serves: its schemas are JSON Schema 2020-12, as MCP's are.
    // The one this call's environment sees, so a route hidden from it is no tool either.
    const doc = this.core.document.get("3.1", () => this.core.contextOf(args)).doc;
    const { options } = this;
    const server = new Server(
      { name: options.name ?? doc.info.title, version: options.version ?? doc.info.version },
      {
        capabilities: { tools: {} },
        instructions: options.instructions ?? (doc.info as { description?: string }).description,
        jsonSchemaValidator: NO_ELICITATION,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.toolsOf(doc).list }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) =>
      this.call(this.toolsOf(doc), params.name, params.arguments ?? {}, request, args),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      // Stateless: no session id, and answers as JSON, not an event stream (see docs/mcp.md).
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: this.bodyLimit,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }

  private toolsOf(doc: OpenAPIDocument): ToolSet {
    let tools = this.toolSets.get(doc);
    if (!tools) {
      const byName = toolPlans(doc, this.options.expose);
      tools = { byName, list: [...byName.values()].map((plan) => plan.tool) };
      this.toolSets.set(doc, tools);
    }
    return tools;
  }

  /** Runs the tool's route through the router, as the HTTP request `mcp` came in (its environment, its headers). */
  private async call(
    tools: ToolSet,
    name: string,
    toolArgs: Record<string, unknown>,
    mcp: Request,
    args: unknown[],
  ): Promise<CallToolResult> {
    const plan = tools.byName.get(name);
    if (!plan) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    let request: Request;
    try {
      request = requestFor(plan, toolArgs, mcp);
    } catch (error) {
      if (error instanceof ToolArgumentsError) return toolError(error.message);
      throw error;
    }
    let response: unknown;
    try {
      const fetch = this.core.entryFetch ?? this.router.fetch!;
      response = await fetch(request, ...this.core.fetchArgs(args));
    } catch (error) {
      // What the router let through (itty-router without a catch): logged, and no detail reaches the client.
      console.error(`[specroute] MCP tool ${name} (${plan.method} ${plan.path}):`, error);
      return toolError("Internal Error");
    }
    return resultOf(plan, response);
  }
}

/**
 * The server asks clients for nothing (no elicitation), so it never validates an answer against a schema;
 * given so each request does not build the SDK's default validator (Ajv, which Workers cannot compile with).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error("specroute's MCP server does not ask clients for input");
  },
};

function methodNotAllowed(): Response {
  const body = {
    jsonrpc: "2.0",
    // -32000, the code the SDK's transport answers its own HTTP-level refusals with.
    error: { code: -32000, message: "Method not allowed: a stateless server takes POST only" },
    id: null,
  };
  return new Response(JSON.stringify(body), {
    status: 405,
    headers: { allow: "POST", "content-type": "application/json" },
  });
}
