// `npm run bench:live [-- --quick] [-- --before /abs/other/checkout]`: issue #30's bench. N listeners of a
// live collection on one server process (full: 1,000; quick: 100) and one write per 10 ms (full: 20 s;
// quick: 5 s), for specroute and a hand-written Hono SSE + LISTEN/NOTIFY baseline, one after the other
// (lib/cases/live.js); with `--before`, specroute's server from that checkout's build (its dist/, built
// there; lib/builds.js) too, in the same run. Needs PostgreSQL (SPECROUTE_PG_URL, default
// postgres://postgres@127.0.0.1:5432/test). Prints the table and writes results/live.{json,md} (quick:
// results/live-quick.*; with --before: results/live-before.*, live-before-quick.*). About 1.5 minutes,
// 2.5 with --before (quick: 30 s, 45 s).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { specrouteBuilds } from "./lib/builds.js";
import { DEFAULT_PG_URL, renderLive, runLive } from "./lib/cases/live.js";
import { BENCH_DIR } from "./lib/frameworks.js";
import { killAll } from "./lib/processes.js";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" }, before: { type: "string" } } });
const mode = flags.quick ? "quick" : "full";
const url = process.env.SPECROUTE_PG_URL || DEFAULT_PG_URL;
const startedAt = Date.now();
const log = (message) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}`);

// Bounded: whatever hangs, the run ends (the servers with it).
const watchdog = setTimeout(
  () => {
    console.error("live bench: the watchdog stopped the run");
    killAll();
    process.exit(2);
  },
  (mode === "full" ? 15 : 4) * 60_000 * (flags.before ? 1.5 : 1),
);
watchdog.unref();

try {
  log(ensureBuilt(log));
  const builds = specrouteBuilds(flags.before);
  const outcome = await runLive({ mode, url, builds, log });
  const markdown = renderLive(outcome);
  console.log(`\n${markdown}`);
  const name = `live${flags.before ? "-before" : ""}${mode === "full" ? "" : "-quick"}`;
  const results = join(BENCH_DIR, "results");
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, `${name}.json`), `${JSON.stringify(outcome, null, 2)}\n`);
  writeFileSync(join(results, `${name}.md`), `# specroute: live collections\n\n${markdown}\n`);
  log(`wrote results/${name}.{json,md}`);
} catch (error) {
  console.error(`live bench: ${error.message}`);
  process.exitCode = 1;
} finally {
  killAll();
  clearTimeout(watchdog);
}
