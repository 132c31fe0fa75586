import { describe, expect, it } from "vitest";
import { runFuzz } from "./fuzz";
import type { AdapterName } from "./fuzz-app";

// A fixed seed keeps `npm test` reproducible; `npm run fuzz` runs 100k cases from a fresh seed.
const RUNS = 2000;
const SEED = 20261122;

describe.each<AdapterName>(["hono", "itty-router"])("%s: fuzzed requests", (adapter) => {
  it(`keeps every invariant over ${RUNS} generated requests (seed ${SEED})`, async () => {
    const report = await runFuzz(adapter, RUNS, SEED);
    expect(report.failure).toBeUndefined();
    expect(report.cases).toBe(RUNS);
    expect(report.unhandledRejections).toBe(0);
    // The pass reached every outcome, not only the router's 404s: reads, writes, conflicts, refusals.
    expect(report.valid).toBeGreaterThan(RUNS / 4);
    for (const status of [200, 201, 400, 404, 409, 413, 415])
      expect(report.statuses.get(status), String(status)).toBeGreaterThan(0);
  }, 120_000);
});
