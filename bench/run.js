// `npm run bench [-- --quick] [-- --only=throughput,document,cold-start,bundle,growth] [-- --frameworks=a,b]`
// Runs the cases, prints the tables, writes results/latest.{json,md} (quick: results/quick.{json,md}).
// README.md's recorded run changes only by `npm run bench:record` (record.js), a separate decision.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { runBundle } from "./lib/cases/bundle.js";
import { runColdStart } from "./lib/cases/cold-start.js";
import { runDocument } from "./lib/cases/document.js";
import { runGrowth } from "./lib/cases/growth.js";
import { runThroughput } from "./lib/cases/throughput.js";
import { BENCH_DIR, FRAMEWORKS, frameworksFor, versions } from "./lib/frameworks.js";
import { killAll, PINNING } from "./lib/processes.js";
import { buildRows, checkTargets, renderMarkdown } from "./lib/report.js";

const SETTINGS = {
  full: {
    connections: 10,
    sampleSeconds: 10,
    warmupSeconds: 3,
    rounds: 3,
    minServerUtilization: 0.8,
    contentionRetries: 18,
    documentRoutes: 200,
    documentProcesses: 5,
    documentRepeatBudgetMs: 3000,
    coldStartRoutes: 50,
    coldStartProcesses: 15,
    budgetMs: 26 * 60_000,
  },
  quick: {
    connections: 10,
    sampleSeconds: 2,
    warmupSeconds: 1,
    rounds: 1,
    minServerUtilization: 0.8,
    contentionRetries: 4,
    documentRoutes: 200,
    documentProcesses: 1,
    documentRepeatBudgetMs: 1000,
    coldStartRoutes: 50,
    coldStartProcesses: 5,
    budgetMs: 290_000,
  },
};
const CASES = ["throughput", "document", "cold-start", "bundle", "growth"];

const { values: flags } = parseArgs({
  options: { quick: { type: "boolean" }, only: { type: "string" }, frameworks: { type: "string" } },
});
const mode = flags.quick ? "quick" : "full";
const settings = SETTINGS[mode];
const cases = flags.only ? flags.only.split(",") : CASES;
for (const name of cases)
  if (!CASES.includes(name)) throw new Error(`Unknown case ${name}; cases: ${CASES.join(", ")}`);
// The baseline always runs: every ratio is taken to it (or to chanfana, which the document and bundle cases need).
const wanted = flags.frameworks?.split(",");
const frameworks = FRAMEWORKS.filter(({ id }) => !wanted || wanted.includes(id) || id === "baseline");

const startedAt = Date.now();
// Other work on the machine shows up here; the req/CPU-s figures are the ones it disturbs least.
const loadAtStart = loadavg().map((n) => n.toFixed(2));
const log = (message) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}`);

// Every loop below is bounded; this is the backstop for a hung child.
const watchdog = setTimeout(() => {
  console.error(`bench: exceeded its ${settings.budgetMs / 60_000} min budget, stopping`);
  killAll();
  process.exit(1);
}, settings.budgetMs);
watchdog.unref();

async function main() {
  const build = ensureBuilt(log);
  log(`${build}; ${mode} run of ${cases.join(", ")} for ${frameworks.map((f) => f.id).join(", ")}`);
  log(PINNING ? `server on core ${PINNING.server}, load generator on core ${PINNING.load}` : "no core pinning");
  const context = (name) => ({ frameworks: frameworksFor(frameworks, name), settings, log, mode });
  const outcome = {};
  if (cases.includes("bundle")) outcome.bundle = await runBundle(context("bundle"));
  if (cases.includes("cold-start")) outcome.coldStart = await runColdStart(context("cold-start"));
  if (cases.includes("document")) outcome.document = await runDocument(context("document"));
  if (cases.includes("throughput")) outcome.throughput = await runThroughput(context("throughput"));
  if (cases.includes("growth")) outcome.growth = await runGrowth(context("growth"));

  const date = new Date().toISOString();
  const load = loadavg().map((n) => n.toFixed(2));
  const meta = {
    date,
    mode,
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${load.join(" ")} at end`,
    method:
      `c=${settings.connections}, ${settings.sampleSeconds} s samples after ${settings.warmupSeconds} s warm-up, ` +
      `${settings.rounds} interleaved round(s), medians` +
      (PINNING ? `; server and load generator pinned to separate cores` : "; not pinned") +
      (outcome.throughput ? `; ${outcome.throughput.note}` : ""),
  };
  const { rows, baselines } = buildRows(outcome);
  const targets = checkTargets(outcome);
  const markdown = renderMarkdown({ outcome, frameworks, meta, targets });
  console.log(`\n${markdown}`);

  const resultsDir = join(BENCH_DIR, "results");
  mkdirSync(join(resultsDir, "raw"), { recursive: true });
  // Only a complete full run replaces latest.*: a partial run (--only, --frameworks) would hide the last one.
  const complete = mode === "full" && CASES.every((name) => cases.includes(name)) && !wanted;
  const name = complete ? "latest" : mode === "full" ? "partial" : "quick";
  const json = {
    ...meta,
    build,
    commit: headCommit(),
    settings,
    cases,
    // Every case and every framework in full: what `npm run bench:record` accepts without --partial.
    complete,
    versions: versions(),
    frameworks: Object.fromEntries(frameworks.map((f) => [f.id, f.label])),
    baselines,
    rows,
    targets,
  };
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(resultsDir, `${name}.md`), `# specroute benchmark results\n\n${markdown}`);
  const raw = { ...json, samples: mapSamples(outcome) };
  writeFileSync(join(resultsDir, "raw", `${date.replaceAll(":", "-")}-${mode}.json`), JSON.stringify(raw));
  log(`wrote results/${name}.json and results/${name}.md`);
  if (mode === "full")
    log("README.md is unchanged: `npm run bench:record` copies this run into it, when it should be the recorded one");
}

/** The checked-out commit (read-only); the measured dist/ may include uncommitted changes on top. */
function headCommit() {
  const result = spawnSync("git", ["rev-parse", "HEAD"], { cwd: BENCH_DIR, encoding: "utf8", timeout: 5000 });
  return result.status === 0 ? result.stdout.trim() : null;
}

function mapSamples(outcome) {
  return Object.fromEntries(Object.entries(outcome).map(([key, value]) => [key, value.samples ?? value.results]));
}

try {
  await main();
} catch (err) {
  console.error(`\nbench failed: ${err?.stack ?? err}`);
  process.exitCode = 1;
} finally {
  killAll();
}
