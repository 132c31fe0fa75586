// Two builds of specroute, before and after a change, timed in ONE process by ab.js: per app and endpoint,
// ab.js gets two copies of the same app module, each importing one checkout's dist/ by its absolute path
// (the apps' own code unchanged otherwise; zod, hono, itty-router and apps/shared/ are the bench's, shared).
//   node ab-versions.js <before-checkout> [endpoints=get,create,list] [apps=specroute-hono,specroute-itty]
//                       [requests=100000] [rounds=5] [--after=<checkout>]
// <before-checkout> is an absolute path with dist/ built (a worktree at the older commit, its node_modules a
// link to the repository's, as for `--before` in ops.js and live.js); --after defaults to this repository.
// Prints ab.js's rounds, then per app and endpoint the CPU ns per request of each build (median of rounds)
// and after/before in cost (above 1: after is slower), median and min–max over rounds.
import { spawnSync } from "node:child_process";
import { isAbsolute, join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, ROOT_DIR } from "./lib/frameworks.js";
import { median } from "./lib/stats.js";
import { APPS, build, copyOf, writeCopies } from "./lib/versions.js";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { after: { type: "string" } },
});
const [before, endpoints = "get,create,list", appIds = "specroute-hono,specroute-itty", n = "100000", r = "5"] =
  positionals;
if (!before || !isAbsolute(before)) throw new Error("usage: node ab-versions.js <absolute before-checkout> ...");
const after = flags.after ?? ROOT_DIR;

/** The ns/request of each app line ab.js printed, in the order given. */
function parse(stdout, count) {
  const rows = stdout
    .split("\n")
    .filter((line) => line.includes(" ns/req;"))
    .map((line) => line.split(" ns/req;")[0].trim().split(/\s+/).slice(1).map(Number));
  if (rows.length !== count) throw new Error(`ab.js printed ${rows.length} rows, expected ${count}:\n${stdout}`);
  return rows;
}

const builds = [build("before", before), build("after", after)];
for (const b of builds) writeCopies(b);
console.log(`before: ${builds[0].rev} (${builds[0].dist})\nafter:  ${builds[1].rev} (${builds[1].dist})`);

const summary = [];
for (const app of appIds.split(",")) {
  if (!APPS.includes(app)) throw new Error(`apps: among ${APPS.join(", ")}`);
  for (const endpoint of endpoints.split(",")) {
    const paths = builds.map((b) => copyOf(b, app));
    const args = [join(BENCH_DIR, "ab.js"), endpoint, paths.join(","), n, r];
    console.log(`\n$ node ${args.join(" ")}`);
    const result = spawnSync(process.execPath, args, { cwd: BENCH_DIR, encoding: "utf8", timeout: 20 * 60_000 });
    process.stdout.write(result.stdout ?? "");
    if (result.status !== 0) throw new Error(`ab.js failed (${result.status ?? result.signal}):\n${result.stderr}`);
    const [was, is] = parse(result.stdout, 2);
    const ratios = is.map((ns, i) => ns / was[i]);
    summary.push({ app, endpoint, before: median(was), after: median(is), ratios });
  }
}

console.log(`\n${n} requests × ${r} rounds per build; CPU ns/request, medians of rounds; after/before in cost`);
console.log("app             endpoint  before   after  after/before (min–max)");
for (const { app, endpoint, before: b, after: a, ratios } of summary) {
  const spread = `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`;
  console.log(
    `${app.padEnd(15)} ${endpoint.padEnd(8)} ${String(Math.round(b)).padStart(7)} ${String(Math.round(a)).padStart(7)}  ` +
      `${median(ratios).toFixed(3)} (${spread})`,
  );
}
