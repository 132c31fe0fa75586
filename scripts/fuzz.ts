// npm run fuzz [-- --runs 100000 --seed 123]: fuzzes both adapters and prints the count per status.
import { parseArgs } from "node:util";
import { type FuzzReport, runFuzz } from "../test/reliability/fuzz";
import type { AdapterName } from "../test/reliability/fuzz-app";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "100000" }, seed: { type: "string" } },
});
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
const adapters: AdapterName[] = ["hono", "itty-router"];

console.log(`fuzz: ${runs} cases (${runs / adapters.length} per adapter), seed ${seed}`);
const reports: FuzzReport[] = [];
for (const adapter of adapters) {
  const report = await runFuzz(adapter, Math.ceil(runs / adapters.length), seed);
  reports.push(report);
  const rate = Math.round(report.cases / (report.millis / 1000));
  console.log(
    `  ${adapter}: ${report.cases} cases in ${(report.millis / 1000).toFixed(1)} s (${rate}/s), slowest answer ${report.slowest.toFixed(0)} ms`,
  );
  if (report.failure) break;
}

const statuses = [...new Set(reports.flatMap((report) => [...report.statuses.keys()]))].sort((a, b) => a - b);
const pad = (text: string | number, width: number) => String(text).padStart(width);
console.log(`\n${"status".padEnd(8)}${adapters.map((name) => pad(name, 13)).join("")}${pad("total", 10)}`);
for (const status of statuses) {
  const counts = reports.map((report) => report.statuses.get(status) ?? 0);
  console.log(
    `${String(status).padEnd(8)}${counts.map((n) => pad(n, 13)).join("")}${pad(
      counts.reduce((a, b) => a + b),
      10,
    )}`,
  );
}
const sum = (pick: (report: FuzzReport) => number) => reports.reduce((total, report) => total + pick(report), 0);
console.log(
  `${"refused".padEnd(8)}${reports.map((r) => pad(r.refused, 13)).join("")}${pad(
    sum((r) => r.refused),
    10,
  )}  (the fetch API would not build the request)`,
);
console.log(
  `\nvalid requests checked for an exact answer: ${sum((r) => r.valid)}; 5xx: ${sum((r) => r.statuses.get(500) ?? 0)}; unhandled rejections: ${sum((r) => r.unhandledRejections)}`,
);

const failed = reports.find((report) => report.failure);
if (failed) {
  console.log(`\nFAIL on ${failed.adapter} (replay with --seed ${seed}):\n${failed.failure}`);
  process.exit(1);
}
console.log("result: every invariant held");
