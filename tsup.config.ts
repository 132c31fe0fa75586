import { defineConfig } from "tsup";

const external = ["zod", "hono", "itty-router"];

export default defineConfig([
  {
    entry: { index: "src/index.ts", node: "src/node/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    external,
  },
  {
    // The CLI is an ES module program; tsx stays outside the bundle and is loaded only for .ts apps.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
    sourcemap: true,
    target: "es2022",
    external: [...external, "tsx"],
  },
]);
