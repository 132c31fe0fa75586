import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleOf } from "./bundle";

const root = join(__dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

// A runtime import is any `import ... from "x"` or `import "x"` that is not `import type`.
const runtimeImport = /^import\s+(?!type\b)(?:[^"']*\sfrom\s+)?["']([^"']+)["']/gm;

describe("package boundaries", () => {
  const files = sourceFiles(join(root, "src"));

  it("never loads hono, itty-router, valibot or ArkType at import time (they are optional peers)", () => {
    const offenders = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(runtimeImport)]
        .map((match) => match[1]!)
        .filter((specifier) => /^(hono|itty-router|valibot|arktype|@valibot\/[^/]+)(\/|$)/.test(specifier))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("loads @opentelemetry/api only from specroute/otel (an optional peer)", () => {
    const importers = files.filter((file) =>
      [...readFileSync(file, "utf8").matchAll(/from\s+["']([^"']+)["']/g)].some((match) =>
        match[1]!.startsWith("@opentelemetry/"),
      ),
    );
    expect(importers.map((file) => relative(root, file))).toEqual(["src/otel/index.ts"]);
  });

  it("keeps core free of routers, SQL drivers and docs pages", () => {
    const offenders = files
      .filter((file) => relative(root, file).startsWith("src/core/"))
      .flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/from\s+["']([^"']+)["']/g)]
          .map((match) => match[1]!)
          .filter((specifier) => /adapters|sql|docs-ui|^hono|^itty-router|^pg$|^mysql2|better-sqlite3/.test(specifier))
          .map((specifier) => `${relative(root, file)} imports ${specifier}`),
      );
    expect(offenders).toEqual([]);
  });

  it("declares zod as a peer, and the routers, the MCP SDK, OpenTelemetry's API, Drizzle, valibot and ArkType as optional peers", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const optional = [
      "@modelcontextprotocol/sdk",
      "@opentelemetry/api",
      "@valibot/to-json-schema",
      "arktype",
      "drizzle-orm",
      "drizzle-zod",
      "hono",
      "itty-router",
      "valibot",
    ];
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([...optional, "zod"]);
    for (const name of optional) expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
    expect(pkg.peerDependenciesMeta.zod?.optional).not.toBe(true);
    expect(Object.keys(pkg.dependencies ?? {})).not.toContain("hono");
  });
});

describe("Workers bundle of a minimal app", () => {
  it("leaves out the SQL layer and any YAML library when the app uses neither", async () => {
    const { files: inputs } = await bundleOf(`import { Hono } from "hono";
import { fromHono, OpenAPIRoute } from "specroute";
import { z } from "zod";
class Hello extends OpenAPIRoute {
  schema = { request: { query: z.object({ name: z.string() }) }, responses: {} };
  async handle() { return { hello: (await this.getValidatedData()).query.name }; }
}
const app = new Hono();
fromHono(app).get("/hello", Hello);
export default app;`);
    expect(inputs.filter((file) => file.includes("src/sql/"))).toEqual([]);
    expect(inputs.filter((file) => file.includes("node_modules/yaml/"))).toEqual([]);
    expect(inputs.filter((file) => file.includes("src/otel/") || file.includes("@opentelemetry"))).toEqual([]);
  });

  // What an app only gets by calling something (rateLimit(), idempotency(), an auto endpoint over a
  // Standard model) comes with that call: a zod app that calls none bundles none of it.
  const zodApp = `import { Hono } from "hono";
import { contentJson, fromHono, OpenAPIRoute } from "specroute";
import { z } from "zod";
class CreateTask extends OpenAPIRoute {
  schema = { request: { body: contentJson(z.object({ title: z.string() })) }, responses: {} };
  async handle() { return (await this.getValidatedData()).body; }
}
const app = new Hono();
fromHono(app).post("/tasks", CreateTask);
export default app;`;

  it("leaves out rate limiting and idempotency keys when no route declares them", async () => {
    const { code } = await bundleOf(zodApp);
    // Messages of the rate limit's 429 and document, and of the idempotency key's answers and parameter.
    expect(code).not.toContain("Rate limit ");
    expect(code).not.toContain("RateLimit-Policy");
    expect(code).not.toContain("was used for another request");
    expect(code).not.toContain("Makes a retry safe");
  });

  it("leaves out schema composition when the app composes no schema", async () => {
    const { files: inputs } = await bundleOf(zodApp);
    expect(inputs.filter((file) => file.includes("src/schema/composed"))).toEqual([]);
  });

  it("bundles rate limiting and idempotency keys with the app that declares them", async () => {
    const { code } = await bundleOf(`import { Hono } from "hono";
import { fromHono, idempotency, memoryRateLimitStore, OpenAPIRoute, rateLimit } from "specroute";
const once = idempotency({ store: { claim: async () => ({ state: "claimed" }), complete: async () => {}, release: async () => {} } });
class Create extends OpenAPIRoute {
  schema = { idempotency: once, responses: {} };
  async handle() { return {}; }
}
const app = new Hono();
fromHono(app, { rateLimit: rateLimit({ limit: 5, windowSeconds: 60, store: memoryRateLimitStore() }) }).post("/x", Create);
export default app;`);
    expect(code).toContain("Rate limit ");
    expect(code).toContain("was used for another request");
  });
});

describe("the specroute/otel entry", () => {
  it("is exported and built like the other entries", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./otel"].import).toEqual({ types: "./dist/otel.d.ts", default: "./dist/otel.js" });
    expect(pkg.exports["./otel"].require).toEqual({ types: "./dist/otel.d.cts", default: "./dist/otel.cjs" });
    expect(readFileSync(join(root, "tsup.config.ts"), "utf8")).toContain('otel: "src/otel/index.ts"');
  });
});

describe("the specroute/client entry", () => {
  it("is exported and built like the other entries", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./client"].import).toEqual({ types: "./dist/client.d.ts", default: "./dist/client.js" });
    expect(pkg.exports["./client"].require).toEqual({ types: "./dist/client.d.cts", default: "./dist/client.cjs" });
    expect(readFileSync(join(root, "tsup.config.ts"), "utf8")).toContain('client: "src/client/index.ts"');
  });

  it("bundles for a browser without any server code, zod or a router", async () => {
    const { files: inputs } = await bundleOf(`import { createClient } from "specroute/client";
export const api = createClient("https://api.example.com");`);
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.filter((file) => file !== "<stdin>" && !file.startsWith("src/client/"))).toEqual([]);
  });
});

describe("the packed package", () => {
  /** The paths `npm pack` puts in the tarball (dist/ only once built; nothing here needs it). */
  const packed = () => {
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return (JSON.parse(output)[0].files as Array<{ path: string }>).map((file) => file.path);
  };

  it("carries the license its package.json names", () => {
    expect(packed()).toContain("LICENSE");
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).license).toBe("MIT");
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
  });

  it("ships the guides written for coding agents: AGENTS.md, llms.txt and the write-endpoints skill", () => {
    const files = packed();
    expect(files).toEqual(expect.arrayContaining(["AGENTS.md", "llms.txt", "skills/write-endpoints/SKILL.md"]));
    // An agent loads a skill by the name and description in its front matter.
    const skill = readFileSync(join(root, "skills/write-endpoints/SKILL.md"), "utf8");
    expect(skill).toMatch(/^---\nname: write-endpoints\ndescription: \S.{40,}\n---\n/);
  });

  it("links its Markdown and llms.txt only to files the tarball holds", () => {
    const files = packed();
    const holds = (path: string) => files.includes(path) || files.some((file) => file.startsWith(`${path}/`));
    const broken = files
      .filter((file) => file.endsWith(".md") || file === "llms.txt")
      .flatMap((file) =>
        [...readFileSync(join(root, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)]
          .map((match) => match[1]!)
          .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
          .filter((target) => !holds(posix.normalize(posix.join(posix.dirname(file), target.split("#")[0]!))))
          .map((target) => `${file} -> ${target}`),
      );
    expect(broken).toEqual([]);
  });
});
