import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The official SDK's client, connected over HTTP to `url`, sending `headers` with every request. */
export async function connectMcp(url: URL | string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "specroute-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls a tool; the result typed as a plain tool result (the SDK's type also allows a legacy shape). */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's one text content. */
export function textOf(result: CallToolResult): string {
  const [content] = result.content;
  if (content?.type !== "text") throw new Error(`expected one text content, got ${JSON.stringify(result.content)}`);
  return content.text;
}
