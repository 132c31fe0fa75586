// specroute/mcp: the router's operations as MCP tools. Its own entry point, so an app that serves no MCP
// bundles none of it, nor the MCP SDK it loads.
export { type ServeMcpOptions, type SpecrouteRouter, serveMcp } from "./serve-mcp";
export type { McpExpose, McpOperation } from "./tool-plan";
