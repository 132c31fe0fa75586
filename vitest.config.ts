import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Examples and documentation snippets import the package by name, as users do.
    alias: [
      { find: /^specroute$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
      { find: /^specroute\/node$/, replacement: fileURLToPath(new URL("./src/node/index.ts", import.meta.url)) },
      { find: /^specroute\/client$/, replacement: fileURLToPath(new URL("./src/client/index.ts", import.meta.url)) },
      { find: /^specroute\/mcp$/, replacement: fileURLToPath(new URL("./src/mcp/index.ts", import.meta.url)) },
      { find: /^specroute\/otel$/, replacement: fileURLToPath(new URL("./src/otel/index.ts", import.meta.url)) },
      { find: /^specroute\/drizzle$/, replacement: fileURLToPath(new URL("./src/drizzle/index.ts", import.meta.url)) },
    ],
  },
  test: {
    reporters: ["default", "./test/engine-summary.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // A worker per core (vitest's default leaves one idle): each has a database schema of its own.
    maxWorkers: availableParallelism(),
    globalSetup: ["./test/setup/databases.global.ts"],
    setupFiles: ["./test/setup/databases.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
