import { defineConfig } from "tsup";

const external = [
  "zod",
  "hono",
  "itty-router",
  "@modelcontextprotocol/sdk",
  "@opentelemetry/api",
  "drizzle-orm",
  "drizzle-zod",
];

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      node: "src/node/index.ts",
      client: "src/client/index.ts",
      mcp: "src/mcp/index.ts",
      drizzle: "src/drizzle/index.ts",
      otel: "src/otel/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    external,
  },
  {
    // The CLI is an ES module program; tsx (for .ts apps) and typescript (for `migrate`) stay outside the bundle, loaded only when used.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    sourcemap: true,
    target: "es2022",
    external: [...external, "tsx", "typescript"],
  },
]);
