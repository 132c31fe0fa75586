import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

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

/** Files that gave code to a browser-platform bundle of `contents` (specroute from this repo's source). */
async function bundledInputs(contents: string): Promise<string[]> {
  const { build } = await import("esbuild");
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    alias: { specroute: join(root, "src/index.ts"), "specroute/mcp": join(root, "src/mcp/index.ts") },
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
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
    const inputs = await bundledInputs(`import { Hono } from "hono";
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
    const inputs = await bundledInputs(`import { Hono } from "hono";
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
