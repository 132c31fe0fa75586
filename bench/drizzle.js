// `npm run bench:drizzle [-- --quick]`: DrizzleListEndpoint against SqlListEndpoint and a hand-written
// Hono + Drizzle handler, on one app and one SQLite database (lib/cases/drizzle.js). Prints the table
// and writes results/drizzle.{json,md} (quick: results/drizzle-quick.*). About 1 minute (quick: 10 s).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { renderDrizzle, runDrizzle } from "./lib/cases/drizzle.js";
import { BENCH_DIR } from "./lib/frameworks.js";

const { values: flags } = parseArgs({ options: { quick: { type: "boolean" } } });
const mode = flags.quick ? "quick" : "full";
const startedAt = Date.now();
const log = (message) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}`);

if (!existsSync(join(BENCH_DIR, "node_modules", "drizzle-orm", "package.json"))) {
  throw new Error(
    "bench/node_modules/drizzle-orm is missing: run `npm install` at the repository root, then in bench/",
  );
}
log(ensureBuilt(log));
const outcome = await runDrizzle({ mode, log });
const markdown = renderDrizzle(outcome);
console.log(`\n${markdown}`);
const name = mode === "full" ? "drizzle" : "drizzle-quick";
const results = join(BENCH_DIR, "results");
mkdirSync(results, { recursive: true });
writeFileSync(join(results, `${name}.json`), `${JSON.stringify(outcome, null, 2)}\n`);
writeFileSync(join(results, `${name}.md`), `# specroute: the Drizzle list\n\n${markdown}\n`);
log(`wrote results/${name}.{json,md}`);
