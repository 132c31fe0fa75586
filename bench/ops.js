// `npm run bench:ops [-- --quick] [--before /abs/other/checkout] [--rounds N]`: the rate limit and idempotency
// issue's bench. The same create route served plain, behind an API key, rate-limited by address or by API key
// (memory store; SQL store on SQLite) and with idempotency keys (SQL store on SQLite, a fresh key per
// request), each in its own server process on 127.0.0.1, in one run with interleaved rounds: requests per
// server CPU-second and the ratio to the plain route (lib/cases/ops.js). With `--before`, each route is also
// served by that checkout's build (its dist/, built there; lib/builds.js), in the same rounds, and the table
// shows both builds and their ratio. `--rounds` takes another number of rounds than the mode's (5; quick: 1),
// for a machine too busy for 5 to agree. Prints the table and writes results/ops.{json,md} (quick:
// results/ops-quick.*; with --before: results/ops-before.*, ops-before-quick.*). About 2 minutes on a busy
// 2-core machine, 3 with --before (quick: 20 s, 1 minute).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { specrouteBuilds } from "./lib/builds.js";
import { renderOps, runOps } from "./lib/cases/ops.js";
import { BENCH_DIR } from "./lib/frameworks.js";
import { killAll } from "./lib/processes.js";

const { values: flags } = parseArgs({
  options: { quick: { type: "boolean" }, before: { type: "string" }, rounds: { type: "string" } },
});
const mode = flags.quick ? "quick" : "full";
const rounds = flags.rounds === undefined ? undefined : Number(flags.rounds);
if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1 && rounds <= 50)) {
  console.error(`ops bench: --rounds takes a whole number from 1 to 50, got ${flags.rounds}`);
  process.exit(1);
}
const startedAt = Date.now();
const log = (message) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}`);

// Bounded: whatever hangs, the run ends (the servers with it).
const watchdog = setTimeout(
  () => {
    console.error("ops bench: the watchdog stopped the run");
    killAll();
    process.exit(2);
  },
  (mode === "full" ? 10 : 3) * 60_000 * (flags.before ? 2 : 1) * Math.max(1, (rounds ?? 0) / (mode === "full" ? 5 : 1)),
);
watchdog.unref();

try {
  log(ensureBuilt(log));
  const builds = specrouteBuilds(flags.before);
  const outcome = await runOps({ mode, builds, rounds, log });
  const markdown = renderOps(outcome);
  console.log(`\n${markdown}`);
  const name = `ops${flags.before ? "-before" : ""}${mode === "full" ? "" : "-quick"}`;
  const results = join(BENCH_DIR, "results");
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, `${name}.json`), `${JSON.stringify(outcome, null, 2)}\n`);
  writeFileSync(join(results, `${name}.md`), `# specroute: rate limits and idempotency keys\n\n${markdown}\n`);
  log(`wrote results/${name}.{json,md}`);
} catch (error) {
  console.error(`ops bench: ${error.message}`);
  process.exitCode = 1;
} finally {
  killAll();
  clearTimeout(watchdog);
}
