// The tests `npm run mutation` runs against each mutant: those of the group being mutated
// (SPECROUTE_MUTATION_TESTS, set by scripts/mutation.mjs from scripts/mutation/groups.json), else every
// group's. Tests that run the code in other processes are in no group: a mutant is switched on in the
// test runner's process only, so they could not notice one.
import { defineConfig } from "vitest/config";
import { groups } from "./scripts/mutation/groups.json";
import base from "./vitest.config";

const tests: string[] = process.env.SPECROUTE_MUTATION_TESTS
  ? JSON.parse(process.env.SPECROUTE_MUTATION_TESTS)
  : groups.flatMap((group) => group.tests);

// A group whose mutants leave tests waiting for an event names a shorter test timeout: the test then
// fails in place, where Stryker's own timeout would restart the runner.
const group: { testTimeoutMS?: number } | undefined = groups.find(
  (one) => one.name === process.env.SPECROUTE_MUTATION_GROUP,
);

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    reporters: ["default"],
    include: tests,
    testTimeout: group?.testTimeoutMS ?? base.test?.testTimeout,
  },
});
