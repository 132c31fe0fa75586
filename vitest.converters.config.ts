import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// Runs the document-building suites with every document also built by both schema converters and
// compared (test/openapi/converters/sweep.setup.ts). `npx vitest run -c vitest.converters.config.ts`.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "test/openapi/**/*.test.ts",
      "test/adapters/**/*.test.ts",
      "test/compat/**/*.test.ts",
      "test/examples/tasks-node.test.ts",
      "test/contract/**/*.test.ts",
      "test/cli/**/*.test.ts",
      "test/surface/**/*.test.ts",
      "test/docs-ui/**/*.test.ts",
      "test/errors/**/*.test.ts",
      "test/spec-examples.test.ts",
    ],
    // These build both ways themselves.
    exclude: ["test/openapi/converters/**", "**/node_modules/**"],
    setupFiles: ["./test/openapi/converters/sweep.setup.ts"],
  },
});
