// `npm run bench:record`: copies the last full run (results/latest.md) into README.md's "Last full run"
// section. A run never rewrites the README by itself: which run is the recorded one is a decision.
// Refuses a run that is not a full run of every case and every framework (run.js marks those
// `complete`), unless `--partial`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR } from "./lib/frameworks.js";

const START = "<!-- last-full-run:start -->";
const END = "<!-- last-full-run:end -->";

const { values: flags } = parseArgs({ options: { partial: { type: "boolean" } } });
const results = join(BENCH_DIR, "results");
const run = JSON.parse(readFileSync(join(results, "latest.json"), "utf8"));
if (run.complete !== true && !flags.partial) {
  const cases = run.cases?.join(", ") ?? "?";
  const frameworks = Object.keys(run.frameworks ?? {}).join(", ");
  console.error(
    `results/latest.json (${run.date}) is not a complete full run: ${run.mode} run of ${cases} for ${frameworks}.`,
  );
  console.error("Run `npm run bench` without --only/--frameworks first, or pass --partial to record it anyway.");
  process.exit(1);
}

const markdown = readFileSync(join(results, "latest.md"), "utf8")
  .replace(/^# .*\n+/, "")
  .trimEnd();
const path = join(BENCH_DIR, "README.md");
const readme = readFileSync(path, "utf8");
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from === -1 || to === -1) {
  console.error("README.md has no last-full-run markers; nothing written");
  process.exit(1);
}
writeFileSync(path, `${readme.slice(0, from + START.length)}\n${markdown}\n\n${readme.slice(to)}`);
console.log(`README.md now records the run of ${run.date}${run.commit ? ` (commit ${run.commit.slice(0, 10)})` : ""}.`);
