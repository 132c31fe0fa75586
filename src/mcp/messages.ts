// The JSON-RPC body of an MCP POST, read by specroute before the SDK's transport is handed it: within the
// body limit, at most `maxBatchSize` messages, and `tools/call` arguments that are no object noted, so
// the call answers a tool error instead of the SDK's schema error.

import { essenceOf } from "../core/media-type";
import { declaredLength, declaredTooLarge, decodeUtf8, readBodyBytes } from "../core/request/body";

/** The body read: what the transport parses as the POST's messages, and why each of some calls failed already. */
export interface ReadMessages {
  readonly body: unknown;
  /** By JSON-RPC id: a `tools/call` whose arguments are no object (its arguments replaced by `{}`), and why. */
  readonly refusedArguments: ReadonlyMap<unknown, string>;
}

/** How an MCP POST's body is read. */
export interface MessageLimits {
  /** Largest body in bytes. */
  readonly bodyLimit: number;
  /** Most JSON-RPC messages in one POST. */
  readonly maxBatchSize: number;
}

/**
 * The messages of an MCP POST, or the JSON-RPC error that refuses it (413 over the limit, 400 for a body
 * that is no JSON or a batch over the bound), or undefined for a body the transport refuses unread (not
 * JSON). A call of a batch over the bound never runs: the whole POST is refused before any does.
 */
export async function readMessages(
  request: Request,
  limits: MessageLimits,
): Promise<ReadMessages | Response | undefined> {
  const type = request.headers.get("content-type");
  if (type === null || essenceOf(type) !== "application/json") return undefined;
  const tooLarge = () =>
    jsonRpcError(413, -32000, `Payload Too Large: Request body must not exceed ${limits.bodyLimit} bytes`);
  // A declared length over the limit is refused unread: a body of declared length is read whole.
  const length = declaredLength(request.headers.get("content-length"));
  if (declaredTooLarge(length, limits.bodyLimit)) return tooLarge();
  let body: unknown;
  try {
    const bytes = await readBodyBytes(request, length, limits.bodyLimit);
    body = JSON.parse(bytes === null ? "" : decodeUtf8(bytes));
  } catch (error) {
    // By shape: the 413 body.ts throws for a streamed body past the limit.
    if ((error as { status?: unknown }).status === 413) return tooLarge();
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > limits.maxBatchSize) {
    return jsonRpcError(
      400,
      -32600,
      `Invalid Request: a batch of ${messages.length} messages; this server takes at most ${limits.maxBatchSize} per request`,
    );
  }
  const refusedArguments = new Map<unknown, string>();
  for (const message of messages) {
    const params = toolCallParams(message);
    if (params === undefined || isObject(params.arguments)) continue;
    if (params.arguments !== undefined && params.arguments !== null) {
      refusedArguments.set(
        (message as { id?: unknown }).id,
        `arguments must be an object { path, query, headers, body }, not ${kindOf(params.arguments)}`,
      );
    }
    params.arguments = {};
  }
  return { body, refusedArguments };
}

/** A JSON-RPC error answered to a whole POST (`id` null), as the transport answers its own refusals. */
export function jsonRpcError(status: number, code: number, message: string, headers: HeadersInit = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/** The params of a `tools/call` request, when `message` is one with params. */
function toolCallParams(message: unknown): Record<string, unknown> | undefined {
  if (!isObject(message) || message.method !== "tools/call" || !isObject(message.params)) return undefined;
  return message.params;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}
