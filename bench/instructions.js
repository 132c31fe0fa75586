// Server CPU per request as instructions, over real HTTP: `npm run bench:instructions`.
//   node instructions.js [--frameworks=baseline,specroute-hono,...] [--only=get,create,list,db-list]
// Each framework's server (lib/server-main.js on @hono/node-server) runs under valgrind's callgrind, which
// counts the instructions the server executes (user space: the HTTP parsing and writing Node does in
// JavaScript and C++, the router, validation, the app). autocannon loads it from another process on
// 127.0.0.1. Per endpoint: a warm-up with counting off, a counted warm-up that is thrown away (the code
// is recompiled once counting starts), then a counted window. Counts mostly repeat to within about 1 %
// whatever else the machine is doing (the list's moved by 7 % between two runs on 2026-11-27, when garbage
// collections fell differently), where requests per second on a shared machine move by 20 % and more; they
// leave out the kernel (the socket calls, alike for every framework), what a cache miss costs, and V8's
// compiler and GC helper threads (only the main thread, which serves the requests, is counted).
// Writes results/instructions.{json,md}.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { ensureBuilt } from "./lib/build.js";
import { callgrindControl, lastMainThreadCount, requireValgrind } from "./lib/callgrind.js";
import { BENCH_DIR, FRAMEWORKS, framework } from "./lib/frameworks.js";
import { killAll, PINNING, waitForMessage } from "./lib/processes.js";
import { table } from "./lib/report.js";
import { ENDPOINTS } from "./lib/requests.js";

const { values } = parseArgs({ options: { frameworks: { type: "string" }, only: { type: "string" } } });
const ids = (values.frameworks ?? "baseline,specroute-hono,specroute-itty,zod-openapi").split(",");
const endpoints = values.only ? ENDPOINTS.filter((e) => values.only.split(",").includes(e.id)) : ENDPOINTS;
// Requests per phase: [warm-up, counted warm-up, counted]; the SQLite list is 20× the work of the others.
const AMOUNTS = { "db-list": [400, 100, 300], default: [3000, 1000, 4000] };
const RAW = join(BENCH_DIR, "results/raw/callgrind");

requireValgrind();
ensureBuilt(console.log);
rmSync(RAW, { recursive: true, force: true });
mkdirSync(RAW, { recursive: true });

async function load(port, endpoint, amount) {
  const { method, headers, body } = endpoint;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${endpoint.path}`,
    method,
    headers,
    body,
    connections: 10,
    amount,
    timeout: 60,
  });
  const wrong = result.non2xx + result.errors + result.timeouts;
  if (wrong > 0) throw new Error(`${endpoint.name}: ${wrong} of ${amount} requests failed or answered other than 2xx`);
}

async function measure(id) {
  const { module } = framework(id);
  const command = [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    // The main thread alone: V8's compiler and GC helper threads work in bursts no request pays for in turn.
    "--separate-threads=yes",
    `--callgrind-out-file=${join(RAW, "%p.out")}`,
    process.execPath,
    join(BENCH_DIR, "lib/server-main.js"),
    id,
  ];
  const [file, ...args] = PINNING ? ["taskset", "-c", PINNING.server, ...command] : command;
  const server = spawn(file, args, { stdio: ["ignore", "pipe", "pipe", "ipc"] });
  server.stdout.resume();
  server.stderr.resume();
  try {
    const { port } = await waitForMessage(server, "ready", 180_000);
    const perRequest = {};
    for (const endpoint of endpoints) {
      const [warm, countedWarm, counted] = AMOUNTS[endpoint.id] ?? AMOUNTS.default;
      await load(port, endpoint, warm);
      callgrindControl(server.pid, "-i", "on");
      await load(port, endpoint, countedWarm);
      callgrindControl(server.pid, "-z");
      await load(port, endpoint, counted);
      callgrindControl(server.pid, "-d");
      callgrindControl(server.pid, "-i", "off");
      perRequest[endpoint.id] = lastMainThreadCount(RAW, server.pid) / counted;
      console.log(
        `${id} | ${endpoint.name}: ${Math.round(perRequest[endpoint.id]).toLocaleString("en")} instructions/request (${module})`,
      );
    }
    return perRequest;
  } finally {
    server.kill("SIGKILL");
  }
}

const results = {};
try {
  for (const id of ids) results[id] = await measure(id);
} finally {
  killAll();
}

const labels = Object.fromEntries(FRAMEWORKS.map((f) => [f.id, f.label]));
const baseline = results.baseline;
const rows = endpoints.map((endpoint) => [
  endpoint.name,
  ...ids.map((id) => {
    const count = results[id][endpoint.id];
    const ratio = baseline ? ` (${(baseline[endpoint.id] / count).toFixed(2)})` : "";
    return `${Math.round(count / 1000).toLocaleString("en")}k${ratio}`;
  }),
]);
const markdown = [
  `Run ${new Date().toISOString()}, Node ${process.version}: instructions the server's main thread executes per request over HTTP (valgrind callgrind, user space), thousands; in brackets the baseline's count over the framework's (higher is better, as for requests per CPU-second).`,
  "",
  ...table(["case", ...ids.map((id) => labels[id] ?? id)], rows),
  "",
].join("\n");
writeFileSync(
  join(BENCH_DIR, "results/instructions.json"),
  `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
);
writeFileSync(join(BENCH_DIR, "results/instructions.md"), markdown);
console.log(`\n${markdown}`);
