// `npm run bench:record`: copies the last full run (results/latest.md) into README.md's "Last full run"
// section, and the last full growth run (results/growth.md) into its "Growth" section. A run never rewrites the README by itself: which run is the recorded one is a decision.
// Refuses a run that is not a full run of every case and every framework (run.js marks those
// `complete`), unless `--partial`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR } from "./lib/frameworks.js";

const START = "<!-- last-full-run:start -->";
const END = "<!-- last-full-run:end -->";

const { values: flags } = parseArgs({ options: { partial: { type: "boolean" } } });
const results = join(BENCH_DIR, "results");
// A complete full run writes latest.*; a partial full run (--only, --frameworks) writes partial.*.
const source = flags.partial ? "partial" : "latest";
const run = JSON.parse(readFileSync(join(results, `${source}.json`), "utf8"));
if (run.complete !== true && !flags.partial) {
  const cases = run.cases?.join(", ") ?? "?";
  const frameworks = Object.keys(run.frameworks ?? {}).join(", ");
  console.error(
    `results/latest.json (${run.date}) is not a complete full run: ${run.mode} run of ${cases} for ${frameworks}.`,
  );
  console.error("Run `npm run bench` without --only/--frameworks first, or pass --partial to record it anyway.");
  process.exit(1);
}

const path = join(BENCH_DIR, "README.md");
let readme = readFileSync(path, "utf8");

/** The README with the text between two markers replaced, or null when it has no such markers. */
function between(text, start, end, markdown) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) return null;
  return `${text.slice(0, from + start.length)}\n${markdown}\n${text.slice(to)}`;
}

const lastRun = readFileSync(join(results, `${source}.md`), "utf8")
  .replace(/^# .*\n+/, "")
  .trimEnd();
readme = between(readme, START, END, `${lastRun}\n`);
if (readme === null) {
  console.error("README.md has no last-full-run markers; nothing written");
  process.exit(1);
}
console.log(`README.md now records the run of ${run.date}${run.commit ? ` (commit ${run.commit.slice(0, 10)})` : ""}.`);

// The growth page links its chart beside it; from the README the chart is under results/.
if (cases(run).includes("growth") && existsSync(join(results, "growth.md"))) {
  const growth = readFileSync(join(results, "growth.md"), "utf8")
    .replace(/^# .*\n+/, "")
    .replace("](growth.svg)", "](results/growth.svg)")
    .trimEnd();
  const withGrowth = between(readme, "<!-- growth:start -->", "<!-- growth:end -->", growth);
  if (withGrowth !== null) {
    readme = withGrowth;
    console.log("README.md's Growth section now shows results/growth.md.");
  }
}
writeFileSync(path, readme);

function cases(recorded) {
  return recorded.cases ?? [];
}
