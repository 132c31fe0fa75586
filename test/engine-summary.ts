import type { Reporter, TestModule } from "vitest/node";

// Engines as they are named in suite titles, most specific first.
const ENGINES: Array<[string, RegExp]> = [
  // Each of these runs a whole runtime (its SQL suite included), on its own SQLite driver.
  ["runtime matrix (5 runtimes)", /runtimes\/matrix\.test/],
  ["D1 (workerd via Miniflare)", /\bd1\b|workerd/i],
  ["PGlite", /pglite/i],
  ["PostgreSQL", /postgres/i],
  ["MariaDB/MySQL", /maria|mysql/i],
  ["SQLite (better-sqlite3)", /sqlite/i],
];

/** Prints, after the run, how many tests ran on each database engine (and how many were skipped). */
export default class EngineSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = new Map<string, { passed: number; failed: number; skipped: number }>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const name = `${module.moduleId} ${test.fullName}`;
        const engine = ENGINES.find(([, pattern]) => pattern.test(name))?.[0];
        if (!engine) continue;
        const entry = counts.get(engine) ?? { passed: 0, failed: 0, skipped: 0 };
        const state = test.result().state;
        if (state === "passed") entry.passed++;
        else if (state === "failed") entry.failed++;
        else entry.skipped++;
        counts.set(engine, entry);
      }
    }
    if (counts.size === 0) return;
    console.log("\nTests per database engine:");
    for (const [engine] of ENGINES) {
      const entry = counts.get(engine);
      if (entry)
        console.log(`  ${engine.padEnd(28)} ${entry.passed} passed, ${entry.failed} failed, ${entry.skipped} skipped`);
    }
  }
}
