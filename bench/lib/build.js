// specroute is consumed from the repository's dist/: rebuild it when missing or older than src/.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, ROOT_DIR } from "./frameworks.js";

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Returns a note for the report: "dist up to date", "rebuilt", or a warning that dist may be stale. */
export function ensureBuilt(log) {
  for (const peer of ["zod", "hono", "itty-router"]) {
    if (!existsSync(join(BENCH_DIR, "node_modules", peer, "package.json"))) {
      throw new Error(
        `bench/node_modules/${peer} is missing: run \`npm install\` at the repository root, then in bench/`,
      );
    }
  }
  const dist = join(ROOT_DIR, "dist/index.js");
  if (existsSync(dist) && statSync(dist).mtimeMs >= newestMtime(join(ROOT_DIR, "src"))) return "dist up to date";
  log("building specroute (npm run build at the repository root) ...");
  const result = spawnSync("npm", ["run", "build"], { cwd: ROOT_DIR, encoding: "utf8", timeout: 240_000 });
  if (result.status === 0) return "dist rebuilt";
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.slice(-3000);
  if (!existsSync(dist)) throw new Error(`npm run build failed and there is no dist/:\n${output}`);
  log(`WARNING: npm run build failed; measuring the existing (older) dist/.\n${output}`);
  return "WARNING: build failed, dist older than src";
}
