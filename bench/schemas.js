// `npm run bench:schemas [-- --quick]`: issue #31's bench. The same endpoints written in zod, valibot and
// ArkType (apps/schemas-*.js, specroute on Hono), each in its own server process on 127.0.0.1, in one run:
// requests per server CPU-second for a GET with path and query parameters, a valid POST body and an
// invalid one (400), and the first document's time (lib/cases/schemas.js). Prints the table and writes
// results/schemas.{json,md} (quick: results/schemas-quick.*). About 4 minutes on a busy 2-core machine (quick: 35 s).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { renderSchemas, runSchemas } from "./lib/cases/schemas.js";
import { BENCH_DIR } from "./lib/frameworks.js";
import { killAll } from "./lib/processes.js";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" } } });
const mode = flags.quick ? "quick" : "full";
const startedAt = Date.now();
const log = (message) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}`);

// Bounded: whatever hangs, the run ends (the servers with it).
const watchdog = setTimeout(
  () => {
    console.error("schemas bench: the watchdog stopped the run");
    killAll();
    process.exit(2);
  },
  mode === "full" ? 15 * 60_000 : 3 * 60_000,
);
watchdog.unref();

try {
  log(ensureBuilt(log));
  const outcome = await runSchemas({ mode, log });
  const markdown = renderSchemas(outcome);
  console.log(`\n${markdown}`);
  const name = mode === "full" ? "schemas" : "schemas-quick";
  const results = join(BENCH_DIR, "results");
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, `${name}.json`), `${JSON.stringify(outcome, null, 2)}\n`);
  writeFileSync(join(results, `${name}.md`), `# specroute: schema libraries\n\n${markdown}\n`);
  log(`wrote results/${name}.{json,md}`);
} catch (error) {
  console.error(`schemas bench: ${error.message}`);
  process.exitCode = 1;
} finally {
  killAll();
  clearTimeout(watchdog);
}
