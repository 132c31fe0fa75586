// Case 3: cold start. Fresh process per sample, frameworks interleaved, medians.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR } from "../frameworks.js";
import { PINNING, runToCompletion } from "../processes.js";
import { median } from "../stats.js";

export async function runColdStart({ frameworks, settings, log }) {
  const samples = Object.fromEntries(frameworks.map(({ id }) => [id, []]));
  for (let i = 0; i < settings.coldStartProcesses; i++) {
    for (const { id, module } of frameworks) {
      const result = await runToCompletion(
        join(BENCH_DIR, "lib/cold-start-main.js"),
        [pathToFileURL(join(BENCH_DIR, module)).href, String(settings.coldStartRoutes)],
        { cpu: PINNING?.server, timeoutMs: 30_000 },
      );
      if (result.status !== 200) throw new Error(`${id}: first request answered ${result.status}`);
      samples[id].push(result);
    }
  }
  const results = {};
  for (const [id, runs] of Object.entries(samples)) {
    results[id] = {
      readyMs: median(runs.map((r) => r.readyMs)),
      firstResponseMs: median(runs.map((r) => r.firstResponseMs)),
    };
    log(
      `cold start | ${id}: ready ${results[id].readyMs.toFixed(1)} ms, first response ` +
        `${results[id].firstResponseMs.toFixed(1)} ms (median of ${runs.length})`,
    );
  }
  return { results, samples };
}
