import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleOf } from "../bundle";

const root = join(__dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("the specroute/mcp entry", () => {
  it("is exported and built like the other entries", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./mcp"].import).toEqual({ types: "./dist/mcp.d.ts", default: "./dist/mcp.js" });
    expect(pkg.exports["./mcp"].require).toEqual({ types: "./dist/mcp.d.cts", default: "./dist/mcp.cjs" });
    expect(readFileSync(join(root, "tsup.config.ts"), "utf8")).toContain('mcp: "src/mcp/index.ts"');
  });

  it("is the only part of the source that imports the MCP SDK", () => {
    const importers = sourceFiles(join(root, "src"))
      .filter((file) => /from\s+["']@modelcontextprotocol\/sdk/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith("src/mcp/"))).toEqual([]);
  });

  it("stays out of the Workers bundle of an app that serves no MCP", async () => {
    const { files: inputs } = await bundleOf(`import { Hono } from "hono";
import { fromHono, OpenAPIRoute } from "specroute";
class Hello extends OpenAPIRoute {
  schema = { "x-mcp": true, responses: {} };
  handle() { return { hello: "world" }; }
}
const app = new Hono();
fromHono(app).get("/hello", Hello);
export default app;`);
    expect(inputs.filter((file) => file.includes("@modelcontextprotocol") || file.includes("src/mcp/"))).toEqual([]);
  });

  it("brings the SDK's server and web-standard transport, and no Node transport, to an app that serves MCP", async () => {
    const { files: inputs } = await bundleOf(`import { Hono } from "hono";
import { fromHono } from "specroute";
import { serveMcp } from "specroute/mcp";
const app = new Hono();
serveMcp(fromHono(app));
export default app;`);
    const sdk = inputs.filter((file) => file.includes("@modelcontextprotocol/sdk/"));
    expect(sdk.some((file) => file.endsWith("server/webStandardStreamableHttp.js"))).toBe(true);
    expect(sdk.filter((file) => /server\/(streamableHttp|express|sse|stdio)\.js$/.test(file))).toEqual([]);
  });
});
