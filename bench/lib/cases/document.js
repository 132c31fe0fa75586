// Case 2: the OpenAPI document of a 200-route app. Fresh process per sample, frameworks interleaved.
import { join } from "node:path";
import { BENCH_DIR } from "../frameworks.js";
import { PINNING, runToCompletion } from "../processes.js";
import { median, percentile } from "../stats.js";

export async function runDocument({ frameworks, settings, log }) {
  const documented = frameworks.filter((f) => f.document);
  const samples = Object.fromEntries(documented.map(({ id }) => [id, []]));
  for (let i = 0; i < settings.documentProcesses; i++) {
    for (const { id, module } of documented) {
      const result = await runToCompletion(
        join(BENCH_DIR, "lib/document-main.js"),
        [module, String(settings.documentRoutes), String(settings.documentRepeatBudgetMs), "2000"],
        { cpu: PINNING?.server, timeoutMs: 120_000 },
      );
      if (result.operations !== settings.documentRoutes) {
        throw new Error(`${id}: the document has ${result.operations} operations, expected ${settings.documentRoutes}`);
      }
      samples[id].push(result);
      log(
        `document | ${id} | process ${i + 1}/${settings.documentProcesses}: build ${result.buildMs.toFixed(1)} ms, ` +
          `first ${result.firstMs.toFixed(1)} ms, repeat median ${median(result.repeats).toFixed(3)} ms ` +
          `(${result.repeats.length} hits, ${(result.bytes / 1024).toFixed(0)} KiB, OpenAPI ${result.openapi})`,
      );
    }
  }
  const results = {};
  for (const [id, runs] of Object.entries(samples)) {
    const repeats = runs.flatMap((r) => r.repeats);
    results[id] = {
      buildMs: median(runs.map((r) => r.buildMs)),
      firstMs: median(runs.map((r) => r.firstMs)),
      // Registration and the first document together: all the schema work, wherever a framework does it.
      buildAndFirstMs: median(runs.map((r) => r.buildMs + r.firstMs)),
      repeatMedianMs: median(repeats),
      repeatP99Ms: percentile(repeats, 99),
      bytes: runs[0].bytes,
    };
  }
  return { results, samples };
}
