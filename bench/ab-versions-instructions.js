// ab-versions.js in instructions instead of CPU time, for a machine too busy for a few per cent: both builds
// in ONE process under valgrind's callgrind (lib/versions-count-main.js), `app.fetch` with the global Request
// in-process, the main thread's instructions counted for `counted` requests of each build in turn (ABBA).
//   node ab-versions-instructions.js <before-checkout> [endpoints=get,create,list]
//                                    [apps=specroute-hono,specroute-itty] [warm=3000] [counted=1000] [--after=<checkout>]
// Instructions leave out what a cache miss or the other processes cost, but not the garbage collections a
// window happens to hold: with 1000 requests (2026-12-02) one build's two counts differed by 2-20 %, so
// count more requests (or repeat the run) before reading a few per cent from them.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parseArgs } from "node:util";
import { callgrindControl, lastMainThreadCount, requireValgrind } from "./lib/callgrind.js";
import { BENCH_DIR, ROOT_DIR } from "./lib/frameworks.js";
import { APPS, build, copyOf, writeCopies } from "./lib/versions.js";

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { after: { type: "string" } } });
const [
  before,
  endpoints = "get,create,list",
  appIds = "specroute-hono,specroute-itty",
  warm = "3000",
  counted = "1000",
] = positionals;
if (!before || !isAbsolute(before))
  throw new Error("usage: node ab-versions-instructions.js <absolute before-checkout> ...");
requireValgrind();
const RAW = join(BENCH_DIR, "results/raw/versions-callgrind");
mkdirSync(RAW, { recursive: true });

const builds = [build("before", before), build("after", flags.after ?? ROOT_DIR)];
for (const b of builds) writeCopies(b);
console.log(`before: ${builds[0].rev} (${builds[0].dist})\nafter:  ${builds[1].rev} (${builds[1].dist})`);

/** The next IPC message of `child`, within `ms`. */
function next(child, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message from the child in ${ms} ms`)), ms);
    child.once("message", (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code})`)));
  });
}

async function measure(app, endpoint) {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${join(RAW, "%p.out")}`,
      process.execPath,
      join(BENCH_DIR, "lib/versions-count-main.js"),
      endpoint,
      builds.map((b) => copyOf(b, app)).join(","),
      warm,
      counted,
    ],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  try {
    await next(child, 20 * 60_000);
    const counts = [[], []];
    for (const index of [0, 1, 1, 0]) {
      callgrindControl(child.pid, "-i", "on");
      callgrindControl(child.pid, "-z");
      child.send({ serve: index });
      await next(child, 10 * 60_000);
      callgrindControl(child.pid, "-d");
      callgrindControl(child.pid, "-i", "off");
      counts[index].push(lastMainThreadCount(RAW, child.pid) / Number(counted));
    }
    child.send({});
    return counts;
  } finally {
    child.kill("SIGKILL");
  }
}

const rows = [];
for (const app of appIds.split(",")) {
  if (!APPS.includes(app)) throw new Error(`apps: among ${APPS.join(", ")}`);
  for (const endpoint of endpoints.split(",")) {
    const [was, is] = await measure(app, endpoint);
    const row = { app, endpoint, before: was, after: is };
    rows.push(row);
    console.log(
      `${app} ${endpoint}: before ${was.map(Math.round).join(", ")}; after ${is.map(Math.round).join(", ")} instructions/request`,
    );
  }
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(`\n${counted} requests per count, two counts per build (ABBA), after ${warm}×2 warm-up each; main thread`);
console.log("app             endpoint  before   after   after-before  after/before");
for (const { app, endpoint, before: b, after: a } of rows) {
  const [mb, ma] = [mean(b), mean(a)];
  console.log(
    `${app.padEnd(15)} ${endpoint.padEnd(8)} ${String(Math.round(mb)).padStart(7)} ${String(Math.round(ma)).padStart(7)}  ` +
      `${String(Math.round(ma - mb)).padStart(12)}  ${(ma / mb).toFixed(4)}`,
  );
}
