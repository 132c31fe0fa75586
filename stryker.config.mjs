// Stryker's configuration for `npm run mutation`: scripts/mutation.mjs installs Stryker and runs it once
// per group of scripts/mutation/groups.json, naming the group in SPECROUTE_MUTATION_GROUP (its tests in
// SPECROUTE_MUTATION_TESTS, which vitest.mutation.config.ts reads). docs/reliability.md records a full run.
import { readFileSync } from "node:fs";

const group = process.env.SPECROUTE_MUTATION_GROUP ?? "all";
const { groups } = JSON.parse(readFileSync(new URL("./scripts/mutation/groups.json", import.meta.url), "utf8"));
const chosen = groups.find((one) => one.name === group);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  coverageAnalysis: "perTest",
  mutate: groups.flatMap((one) => one.mutate),
  // The machine has two cores shared with other work; `--concurrency 2` when it is idle.
  concurrency: 1,
  // A group whose mutants mostly leave a test waiting for an event that never comes names a shorter wait.
  timeoutMS: chosen?.timeoutMS ?? 10_000,
  // One folder per group, so groups run at once (`--group`) never remove each other's sandbox.
  tempDirName: `.artifacts/stryker-tmp/${group}`,
  incrementalFile: `.artifacts/mutation/${group}.incremental.json`,
  ignorePatterns: ["/.artifacts", "/bench", "/dist", "/coverage", "/data"],
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `.artifacts/mutation/${group}.html` },
  jsonReporter: { fileName: `.artifacts/mutation/${group}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: "always",
};
