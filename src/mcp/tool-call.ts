import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MAX_JSON_DEPTH, nestingExceeds } from "../core/request/body";
import { isResponse } from "../core/route/respond";
import { forwardedHeaders, headerValueProblem } from "./headers";
import type { ToolPlan } from "./tool-plan";

const MEMBERS = new Set(["path", "query", "headers", "body"]);

/** Arguments that cannot make the route's request; the client is told so in a tool error. */
export class ToolArgumentsError extends Error {}

/**
 * The HTTP request a tool call makes: the route's method and path (parameters filled in, encoded), the
 * query, the MCP request's own headers with the declared header parameters it lacks given, the body as
 * JSON. It goes to the same origin as the MCP request. Throws a `ToolArgumentsError` saying what is wrong
 * with arguments that cannot make one.
 */
export function requestFor(plan: ToolPlan, args: Record<string, unknown>, mcp: Request): Request {
  // One level more than a body may nest over HTTP: the arguments object around it.
  if (nestingExceeds(args, MAX_JSON_DEPTH + 1)) {
    throw new ToolArgumentsError(`arguments are nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  for (const key of Object.keys(args)) {
    if (!MEMBERS.has(key)) {
      throw new ToolArgumentsError(
        `Unknown argument "${key}": a tool takes { path, query, headers, body }, each as its inputSchema describes`,
      );
    }
  }
  const url = new URL(filledPath(plan.path, member(args, "path")), mcp.url);
  for (const [name, value] of Object.entries(member(args, "query"))) appendQuery(url.searchParams, name, value);

  const headers = forwardedHeaders(mcp.headers);
  for (const [name, value] of givenHeaders(plan, member(args, "headers"), headers)) headers.set(name, value);
  headers.set("accept", "application/json");
  const init: RequestInit = { method: plan.method, headers };
  // A GET or HEAD request has no body in the fetch API, whatever the document declares.
  if (args.body !== undefined && plan.bodyType !== undefined && plan.method !== "GET" && plan.method !== "HEAD") {
    headers.set("content-type", plan.bodyType);
    init.body = JSON.stringify(args.body);
  }
  return new Request(url, init);
}

/**
 * The tool result of the route's answer: a 2xx answer's body as text, and as `structuredContent` where the
 * tool has an output schema; any other answer is a tool error carrying the same error body.
 */
export async function resultOf(plan: ToolPlan, response: unknown): Promise<CallToolResult> {
  if (!isResponse(response)) return toolError(`${plan.method} ${plan.path}: no route answered`);
  const text = await response.text();
  if (!response.ok) return toolError(text || `${response.status} ${response.statusText}`.trim());
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (plan.structured) {
    const value = parsedJson(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      result.structuredContent = value as Record<string, unknown>;
    }
  }
  return result;
}

/** A tool error with `text` as its content. */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/**
 * The header parameters `values` gives: only those the tool declares, never one the MCP request carries
 * (`forwarded`: a proxy's `X-Real-IP`, Workers' `CF-Connecting-IP`, the caller's own credentials), each a
 * value a header can hold.
 */
function givenHeaders(plan: ToolPlan, values: Record<string, unknown>, forwarded: Headers): Map<string, string> {
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    const key = name.toLowerCase();
    if (!plan.headers.has(key)) {
      const takes = plan.headers.size === 0 ? "it takes none" : `it takes: ${[...plan.headers.values()].join(", ")}`;
      throw new ToolArgumentsError(`arguments.headers: "${name}" is not a header parameter of this tool (${takes})`);
    }
    if (forwarded.has(key)) {
      throw new ToolArgumentsError(
        `arguments.headers: "${name}" comes with the MCP request itself, and a tool call does not replace it`,
      );
    }
    if (given.has(key)) throw new ToolArgumentsError(`arguments.headers names "${key}" twice`);
    const problem = headerValueProblem(value);
    if (problem !== undefined) throw new ToolArgumentsError(`arguments.headers.${JSON.stringify(name)} ${problem}`);
    given.set(key, String(value));
  }
  return given;
}

/** The template with each `{name}` replaced by its argument, percent-encoded. */
function filledPath(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || typeof value === "object") {
      throw new ToolArgumentsError(`Missing path parameter: arguments.path.${name} is required`);
    }
    const text = String(value);
    // URLs resolve these segments away, even percent-encoded: the request would reach another route.
    if (text === "." || text === "..") {
      throw new ToolArgumentsError(`arguments.path.${name} cannot be "${text}"`);
    }
    return encodeURIComponent(text);
  });
}

/** A query value: repeated for an array, JSON for an object, left out when null. */
function appendQuery(params: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendQuery(params, name, item);
    return;
  }
  params.append(name, typeof value === "object" ? JSON.stringify(value) : String(value));
}

/** One of `path`, `query`, `headers`: an object, or none. */
function member(args: Record<string, unknown>, key: "path" | "query" | "headers"): Record<string, unknown> {
  const value = args[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ToolArgumentsError(`arguments.${key} must be an object of ${key === "headers" ? "header" : key} values`);
  }
  return value as Record<string, unknown>;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
