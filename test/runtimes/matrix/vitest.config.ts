// What the runtime matrix runs under vitest on Node 22, Node 24 and Deno: the repository's own config
// (aliases, timeouts) over the adapter suites and the SQL suite on node:sqlite.
import { defineConfig } from "vitest/config";
import base from "../../../vitest.config";
import { ADAPTER_SUITE } from "./suite";

export default defineConfig({
  ...base,
  test: { ...base.test, include: [...ADAPTER_SUITE, "test/sql/node-sqlite.runtime.ts"], reporters: ["default"] },
});
