import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  type CallToolRequest,
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
import { jsonRpcError, type MessageLimits, readMessages } from "./messages";
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
  /**
   * Most JSON-RPC messages one POST may carry as a batch: 1 by default, so each tool call is an HTTP
   * request of its own to whatever counts requests in front of the app. MCP 2025-06-18 and later have no
   * batches; raise it (to 100 at most) for clients of 2025-03-26 that send them. A larger batch is
   * refused whole, before any call runs.
   */
  maxBatchSize?: number;
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
// The SDK's own bound on a batch (MAX_BATCH_SIZE of its HTTP transports).
const SDK_BATCH_LIMIT = 100;

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
  private readonly limits: MessageLimits;

  constructor(
    private readonly router: Wrapper,
    private readonly options: ServeMcpOptions,
  ) {
    this.core = router.core;
    const { maxBatchSize = 1 } = options;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1 || maxBatchSize > SDK_BATCH_LIMIT) {
      throw new RangeError(
        `serveMcp() maxBatchSize must be an integer from 1 to ${SDK_BATCH_LIMIT}, got ${maxBatchSize}`,
      );
    }
    this.limits = {
      bodyLimit: Math.max(SDK_BODY_LIMIT, this.core.options.maxBodySize + JSON_RPC_ALLOWANCE),
      maxBatchSize,
    };
  }

  async answer(args: unknown[]): Promise<Response> {
    const request = this.core.getRequest(args);
    if (request.method !== "POST") {
      // As the transport specifies for a server with no stream and no session; -32000, its own refusals' code.
      return jsonRpcError(405, -32000, "Method not allowed: a stateless server takes POST only", { allow: "POST" });
    }
    // Read here, not by the transport, to bound the batch before any call runs.
    const read = await readMessages(request, this.limits);
    if (read instanceof Response) return read;
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
    server.setRequestHandler(CallToolRequestSchema, ({ params }, extra) => {
      const refused = read?.refusedArguments.get(extra.requestId);
      if (refused !== undefined) return toolError(refused);
      return this.call(this.toolsOf(doc), params, request, args);
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      // Stateless: no session id, and answers as JSON, not an event stream (see docs/mcp.md).
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: this.limits.bodyLimit,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, read && { parsedBody: read.body });
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

  /**
   * Runs the route of the tool `called` names, with its arguments, through the router, as the HTTP
   * request `mcp` came in (its environment, its headers).
   */
  private async call(
    tools: ToolSet,
    called: CallToolRequest["params"],
    mcp: Request,
    args: unknown[],
  ): Promise<CallToolResult> {
    const { name } = called;
    const plan = tools.byName.get(name);
    if (!plan) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const request = requestFor(plan, called.arguments ?? {}, mcp);
      const fetch = this.core.entryFetch ?? this.router.fetch!;
      return await resultOf(plan, await fetch(request, ...this.core.fetchArgs(args)));
    } catch (error) {
      if (error instanceof ToolArgumentsError) return toolError(error.message);
      // What the router let through (itty-router without a catch), or a failure of specroute's own: logged,
      // and no detail reaches the client.
      console.error(`[specroute] MCP tool ${name} (${plan.method} ${plan.path}):`, error);
      return toolError("Internal Error");
    }
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
