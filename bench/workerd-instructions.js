// Instructions per request inside workerd: `npm run bench:workerd-instructions`.
//   node workerd-instructions.js [--frameworks=specroute-hono,...] [--only=get,create,list]
//   node workerd-instructions.js --frameworks=specroute-hono,specroute-hono@/path/to/other/dist   # two builds
// Each Worker of the workerd case (bare Hono + zod, specroute on Hono and itty-router, ...; the empty
// Worker always) is served by workerd under valgrind's callgrind, which counts the instructions workerd's
// main thread executes (HTTP, isolate entry, the framework, the handler; V8's compiler and GC helper
// threads work in bursts no request pays for in turn). Per case: a warm-up uncounted, a counted warm-up
// thrown away (the code is recompiled once counting starts), then a counted window. The counts repeat to
// about 1 % whatever else the machine runs, where workerd's CPU time per request moves by 20 % and more:
// this is the measure to compare a change against; `workerd.js`'s CPU time is the one to publish.
// Writes results/workerd-instructions.{json,md}.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ensureBuilt } from "./lib/build.js";
import { callgrindControl, lastMainThreadCount, requireValgrind } from "./lib/callgrind.js";
import { BENCH_DIR } from "./lib/frameworks.js";
import { table } from "./lib/report.js";
import { ENDPOINTS } from "./lib/requests.js";
import { bundleWorker, freePort, startServing, WORKER_FRAMEWORKS, WORKERD, writeWorker } from "./lib/workerd.js";

const { values } = parseArgs({ options: { frameworks: { type: "string" }, only: { type: "string" } } });
const chosen = values.frameworks?.split(",") ?? ["specroute-hono", "specroute-itty"];
// `specroute-hono@/abs/path/dist` serves the framework with specroute from another build, to compare two.
const variant = (spec) => {
  const [id, dist] = spec.split("@");
  const found = WORKER_FRAMEWORKS.find((framework) => framework.id === id);
  if (!found) throw new Error(`unknown framework ${id}`);
  return dist ? { ...found, id: spec, name: `${found.name} (${basename(dist)})`, dist } : found;
};
const frameworks = [null, variant("baseline"), ...chosen.filter((id) => id !== "baseline").map(variant)];
const cases = ENDPOINTS.filter((e) => e.id !== "db-list" && (!values.only || values.only.split(",").includes(e.id)));
// Requests per phase: [warm-up, counted warm-up, counted].
const [WARM, COUNTED_WARM, COUNTED] = [3000, 1000, 3000];
const RAW = join(BENCH_DIR, "results/raw/callgrind-workerd");

requireValgrind();
ensureBuilt(console.error);
rmSync(RAW, { recursive: true, force: true });
mkdirSync(RAW, { recursive: true });

/** Sends `amount` requests; resolves with how many were answered (a few connection errors under valgrind's slowness are tolerated). */
async function load(origin, endpoint, amount) {
  const result = await autocannon({
    url: `${origin}${endpoint.path}`,
    method: endpoint.method,
    headers: endpoint.headers,
    body: endpoint.body,
    // One request at a time: with several in flight, how many an event-loop turn takes (and so what
    // each pays of the turn) depends on timing.
    connections: 1,
    amount,
    timeout: 60,
  });
  if (result.non2xx > 0 || result.errors + result.timeouts > amount / 100) {
    const counts = `${result.non2xx} not 2xx, ${result.errors} errors, ${result.timeouts} timeouts`;
    throw new Error(`${endpoint.name}: ${amount} requests went wrong (${counts})`);
  }
  return result["2xx"];
}

async function measure(framework) {
  const id = framework?.id ?? "empty";
  const { code } = await bundleWorker(framework, { dist: framework?.dist });
  const port = await freePort();
  // V8 on one thread: compiling and collecting garbage on the main thread, where they are counted, instead
  // of on helper threads whose progress under valgrind depends on timing (counts then moved by 30 %).
  const config = writeWorker(
    join(BENCH_DIR, "results/raw/workerd", `instructions-${id.replace(/\W+/g, "-")}`),
    code,
    port,
    {
      v8Flags: ["--single-threaded"],
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  const valgrind = [
    "--tool=callgrind",
    "--instr-atstart=no",
    "--separate-threads=yes",
    `--callgrind-out-file=${join(RAW, "%p.out")}`,
    WORKERD,
    "serve",
    config,
  ];
  const { child } = await startServing("valgrind", valgrind, origin, { timeoutMs: 180_000 });
  try {
    const perRequest = {};
    for (const endpoint of cases) {
      // The empty Worker answers "ok" to anything: its count is what workerd alone costs a request.
      await load(origin, endpoint, WARM);
      callgrindControl(child.pid, "-i", "on");
      await load(origin, endpoint, COUNTED_WARM);
      callgrindControl(child.pid, "-z");
      const answered = await load(origin, endpoint, COUNTED);
      callgrindControl(child.pid, "-d");
      callgrindControl(child.pid, "-i", "off");
      perRequest[endpoint.id] = lastMainThreadCount(RAW, child.pid) / answered;
      console.error(
        `${id} | ${endpoint.name}: ${Math.round(perRequest[endpoint.id]).toLocaleString("en")} instructions`,
      );
    }
    return perRequest;
  } finally {
    child.kill("SIGKILL");
  }
}

const results = {};
for (const framework of frameworks) results[framework?.id ?? "empty"] = await measure(framework);

const empty = results.empty;
const baseline = results.baseline;
const cell = (id, endpoint) => {
  const count = results[id][endpoint.id];
  if (id === "empty") return `${Math.round(count / 1000)}k`;
  const net = count - empty[endpoint.id];
  const baseNet = baseline[endpoint.id] - empty[endpoint.id];
  if (id === "baseline") return `${Math.round(count / 1000)}k (net ${Math.round(net / 1000)}k)`;
  const whole = (count / baseline[endpoint.id]).toFixed(2);
  return `${Math.round(count / 1000)}k (${whole}×; net ${Math.round(net / 1000)}k, ${(net / baseNet).toFixed(2)}×)`;
};
const ids = Object.keys(results);
const names = { empty: "empty Worker", ...Object.fromEntries(frameworks.slice(1).map((f) => [f.id, f.name])) };
const markdown = [
  `Run ${new Date().toISOString()}: instructions workerd's main thread executes per request (valgrind callgrind), thousands; ratios to bare Hono + zod (lower is better), net of the empty Worker's count.`,
  "",
  ...table(
    ["workerd instructions per request", ...ids.map((id) => names[id])],
    cases.map((endpoint) => [endpoint.name, ...ids.map((id) => cell(id, endpoint))]),
  ),
  "",
].join("\n");
writeFileSync(
  join(BENCH_DIR, "results/workerd-instructions.json"),
  `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
);
writeFileSync(join(BENCH_DIR, "results/workerd-instructions.md"), markdown);
console.log(`\n${markdown}`);
