// The builds of specroute a run serves: the repository's own dist/ and, with `--before <checkout>`, another
// checkout's (a worktree at an older commit, built there), each server process loading one of them through
// lib/build-alias.js. Both builds must load the zod and hono the apps load, so the other checkout's
// node_modules must be (a link to) the repository's install.
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, ROOT_DIR } from "./frameworks.js";

/** Peers whose objects cross from the apps into specroute: one copy, or `instanceof` and schema checks fail. */
const SHARED_PEERS = ["zod", "hono"];

function revision(checkout) {
  const result = spawnSync("git", ["-C", checkout, "describe", "--always", "--dirty", "--abbrev=7"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  return result.status === 0 ? result.stdout.trim() : "unknown";
}

/**
 * `[after]`, or `[after, before]` where `before` is another checkout's absolute path with its dist/ built:
 * each `{ id, label, revision, execArgv, env }`, the last two for spawning a server on it.
 */
export function specrouteBuilds(before) {
  const mine = revision(ROOT_DIR);
  const after = { id: "after", label: `after (${mine})`, revision: mine, execArgv: [], env: {} };
  if (before === undefined) return [after];
  if (!isAbsolute(before)) throw new Error(`--before takes an absolute path, got ${before}`);
  const dist = join(before, "dist");
  if (!existsSync(join(dist, "index.js"))) {
    throw new Error(`${dist}/index.js is missing: build that checkout first (npm --prefix ${before} run build)`);
  }
  for (const peer of SHARED_PEERS) {
    const ours = realpathSync(join(BENCH_DIR, "node_modules", peer));
    const theirs = join(before, "node_modules", peer);
    if (!existsSync(theirs) || realpathSync(theirs) !== ours) {
      throw new Error(
        `${theirs} is not the bench's ${peer} (${ours}): link that checkout's node_modules to the repository's`,
      );
    }
  }
  const theirs = revision(before);
  return [
    after,
    {
      id: "before",
      label: `before (${theirs})`,
      revision: theirs,
      execArgv: ["--import", pathToFileURL(join(BENCH_DIR, "lib/build-alias.js")).href],
      env: { SPECROUTE_DIST: dist },
    },
  ];
}
