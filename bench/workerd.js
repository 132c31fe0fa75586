// The workerd case: the throughput apps bundled as Workers and served by the workerd binary that Miniflare
// installs, measured by the workerd process's own CPU time per request, read from the kernel.
//
//   node workerd.js                  # 5 interleaved rounds of 10,000 requests per case and framework (--rounds=N)
//   node workerd.js --quick          # 1 round of 2,000, to check the harness
//   node workerd.js --only=bundle    # only the bundle table (no workerd started; no two-core check)
//
// workerd is pinned to core 0 and this process (the load, autocannon over keep-alive connections) to
// core 1. An empty Worker answering "ok" is measured alike; "net" is a framework's CPU minus the empty
// Worker's: what the framework and its handler add. It also times the 200-route start-up (process start
// to the first answer, in workerd CPU) and sizes each 3-route Worker bundle.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { build } from "esbuild";
import { ensureBuilt } from "./lib/build.js";
import { BENCH_DIR, ROOT_DIR } from "./lib/frameworks.js";
import { ENDPOINTS } from "./lib/requests.js";

const quick = process.argv.includes("--quick");
const onlyArg = process.argv.find((arg) => arg.startsWith("--only="));
const ONLY = onlyArg?.slice("--only=".length);
if (ONLY !== undefined && ONLY !== "bundle") throw new Error(`--only takes "bundle", got ${ONLY}`);
const roundsArg = process.argv.find((arg) => arg.startsWith("--rounds="));
const ROUNDS = roundsArg ? Number(roundsArg.slice("--rounds=".length)) : quick ? 1 : 5;
const REQUESTS = quick ? 2_000 : 10_000;
const WARMUP = quick ? 500 : 2_000;
const STARTUPS = quick ? 1 : 3;
const CONNECTIONS = 8;
const WORK_DIR = join(BENCH_DIR, "results/raw/workerd");
const require = createRequire(join(ROOT_DIR, "package.json"));
const WORKERD = join(require.resolve("workerd/package.json"), "../bin/workerd");

/** The Workers measured: the module each is built from, and how its app becomes a Worker. */
const FRAMEWORKS = [
  { id: "baseline", name: "bare Hono + zod", module: "./apps/hono-zod.js" },
  { id: "specroute-hono", name: "specroute on Hono", module: "./apps/specroute-hono.js" },
  { id: "specroute-itty", name: "specroute on itty-router", module: "./apps/specroute-itty.js", itty: true },
  { id: "chanfana", name: "chanfana 3", module: "./apps/chanfana.js" },
  { id: "zod-openapi", name: "@hono/zod-openapi", module: "./apps/hono-zod-openapi.js" },
];
const CASES = ENDPOINTS.filter((endpoint) => endpoint.id !== "db-list");

const log = (...args) => console.error(...args);

/** The Worker module for `framework`'s app (`factory`: the 3-route app, or the 200-route one). */
function workerSource(framework, factory) {
  if (!framework) return 'export default { fetch: () => new Response("ok") };';
  const app = factory === "generated" ? "createGeneratedApp(200)" : "createWorkerApp()";
  const name = factory === "generated" ? "createGeneratedApp" : "createWorkerApp";
  // itty-router answers nothing for an unmatched path; the Worker answers 404 then, as the Node case does.
  const fetch = framework.itty
    ? "async fetch(request, env, ctx) { return (await app.fetch(request, env, ctx)) ?? new Response(null, { status: 404 }); }"
    : "fetch: (request, env, ctx) => app.fetch(request, env, ctx)";
  return `import { ${name} } from "${framework.module}";\nconst app = ${app};\nexport default { ${fetch} };`;
}

async function bundle(framework, factory) {
  const result = await build({
    stdin: { contents: workerSource(framework, factory), resolveDir: BENCH_DIR, sourcefile: "worker.js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    minify: true,
    write: false,
    metafile: true,
    // As an app bundles it: specroute from its package (dist/), not the repository tsconfig's paths to src/.
    tsconfigRaw: {},
    logLevel: "silent",
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts workerd on core 0 serving `code`; resolves once it answers. */
async function startWorkerd(id, code, probe = "/__ready") {
  const dir = join(WORK_DIR, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "worker.js"), code);
  const port = await freePort();
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
);
`,
  );
  const child = spawn("taskset", ["-c", "0", WORKERD, "serve", join(dir, "config.capnp")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const origin = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 400; attempt++) {
    if (child.exitCode !== null) throw new Error(`workerd (${id}) exited: ${stderr}`);
    try {
      await (await fetch(`${origin}${probe}`)).arrayBuffer();
      return { child, origin, stop: () => stopped(child) };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`workerd (${id}) did not answer: ${stderr}`);
}

function stopped(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** The workerd process's CPU time so far, in ns (its threads', from the kernel). `taskset` execs it, so the pid is workerd's. */
function cpuNs(pid) {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  }
  return total;
}

function load(origin, endpoint, amount) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${origin}${endpoint.path}`,
        method: endpoint.method,
        headers: endpoint.headers,
        body: endpoint.body,
        connections: CONNECTIONS,
        amount,
      },
      (err, result) => {
        if (err) return reject(err);
        const wrong = result.non2xx + result.errors;
        if (wrong > 0) return reject(new Error(`${endpoint.name}: ${wrong} answers were not ${endpoint.status}`));
        resolve(result);
      },
    );
  });
}

async function checkAnswers(origin, id) {
  for (const endpoint of CASES) {
    const response = await fetch(`${origin}${endpoint.path}`, {
      method: endpoint.method,
      headers: endpoint.headers,
      body: endpoint.body,
    });
    await response.arrayBuffer();
    if (response.status !== endpoint.status) {
      throw new Error(`${id}: ${endpoint.name} answered ${response.status}, not ${endpoint.status}`);
    }
  }
}

/** CPU ns per request of each framework (and the empty Worker) on each case, over interleaved rounds. */
async function throughput(workers) {
  const samples = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const endpoint of CASES) {
      for (const [id, worker] of Object.entries(workers)) {
        await load(worker.origin, endpoint, WARMUP);
        const before = cpuNs(worker.child.pid);
        await load(worker.origin, endpoint, REQUESTS);
        const perRequest = (cpuNs(worker.child.pid) - before) / REQUESTS;
        const key = `${endpoint.id}:${id}`;
        samples[key] = [...(samples[key] ?? []), perRequest];
        log(`  round ${round} ${endpoint.id.padEnd(6)} ${id.padEnd(15)} ${(perRequest / 1000).toFixed(1)} µs`);
      }
    }
  }
  return samples;
}

/** workerd CPU from process start to the first answer of the 200-route app, in ns (median of STARTUPS). */
async function startup(id, code) {
  const runs = [];
  for (let run = 0; run < STARTUPS; run++) {
    // The readiness probe is the first request: a route of the app, answered once workerd is up.
    const worker = await startWorkerd(`${id}-startup-${run}`, code, "/g0/tasks/42");
    runs.push(cpuNs(worker.child.pid));
    await worker.stop();
  }
  return median(runs);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const us = (ns) => `${(ns / 1000).toFixed(1)} µs`;
const ratio = (value, base) => `${(value / base).toFixed(2)}×`;

/** specroute's own bytes in a bundle: the minified output of its modules (src/ or dist/, whichever resolved). */
function ownBytes(metafile) {
  const output = Object.values(metafile.outputs)[0];
  return Object.entries(output.inputs)
    .filter(([path]) => /^\.\.\/(src|dist)\//.test(path) || path.includes("specroute/dist/"))
    .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
}

/** The bundle table's lines: each 3-route Worker minified and gzipped, its growth, specroute's own code; fills `result.bundle`. */
function bundleTable(bundles, result) {
  const lines = [];
  const gzip = (code) => gzipSync(code).length;
  const baseGzip = gzip(bundles.baseline.code);
  const emptyGzip = gzip(bundles.empty.code);
  lines.push(
    "| 3-route Worker bundle | minified | gzip | gzip growth over bare Hono + zod | framework's own minified code |",
    "|---|---|---|---|---|",
  );
  for (const framework of FRAMEWORKS) {
    const { code, metafile } = bundles[framework.id];
    const growth = gzip(code) - baseGzip;
    const own = framework.id.startsWith("specroute") ? `${(ownBytes(metafile) / 1024).toFixed(1)} KiB` : "";
    result.bundle[framework.id] = { minified: code.length, gzip: gzip(code), growth };
    lines.push(
      `| ${framework.name} | ${(code.length / 1024).toFixed(1)} KiB | ${(gzip(code) / 1024).toFixed(1)} KiB | ` +
        `${framework.id === "baseline" ? "" : `${(growth / 1024).toFixed(1)} KiB`} | ${own} |`,
    );
  }
  lines.push(`| empty Worker | | ${(emptyGzip / 1024).toFixed(2)} KiB | | |`);
  return lines;
}

/** `--only=bundle`: the bundle table alone, written to results/workerd-bundle.md and .json. */
async function bundleOnly() {
  log(ensureBuilt(log));
  const bundles = {};
  for (const framework of FRAMEWORKS) bundles[framework.id] = await bundle(framework, "worker");
  bundles.empty = await bundle(null, "worker");
  const result = { bundle: {} };
  const at = new Date().toISOString().slice(0, 16).replace("T", " ");
  const report = [`(${at} UTC)`, "", ...bundleTable(bundles, result)].join("\n");
  console.log(report);
  writeFileSync(join(BENCH_DIR, "results/workerd-bundle.md"), `${report}\n`);
  writeFileSync(join(BENCH_DIR, "results/workerd-bundle.json"), `${JSON.stringify({ at, ...result }, null, 2)}\n`);
}

async function main() {
  if (availableParallelism() < 2) throw new Error("The workerd case pins workerd and the load to two cores");
  log(ensureBuilt(log));
  execFileSync("taskset", ["-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
  const startLoad = loadavg()[0];
  const bundles = {};
  for (const framework of FRAMEWORKS) bundles[framework.id] = await bundle(framework, "worker");
  bundles.empty = await bundle(null, "worker");

  log("throughput (workerd CPU per request) ...");
  const workers = {};
  let samples;
  try {
    for (const [id, { code }] of Object.entries(bundles)) workers[id] = await startWorkerd(id, code);
    for (const framework of FRAMEWORKS) await checkAnswers(workers[framework.id].origin, framework.id);
    samples = await throughput(workers);
  } finally {
    await Promise.all(Object.values(workers).map((worker) => worker.stop()));
  }

  log("start-up (200 routes, workerd CPU to the first answer) ...");
  const startups = { empty: await startup("empty", bundles.empty.code) };
  for (const framework of FRAMEWORKS) {
    startups[framework.id] = await startup(framework.id, (await bundle(framework, "generated")).code);
  }

  const lines = [];
  const at = new Date().toISOString().slice(0, 16).replace("T", " ");
  lines.push(`workerd ${require("workerd/package.json").version}, ${ROUNDS} round(s) of ${REQUESTS} requests per case`);
  lines.push(`(${at} UTC; load average ${startLoad.toFixed(1)} → ${loadavg()[0].toFixed(1)})`, "");
  lines.push(
    "| workerd CPU per request | empty Worker | " + FRAMEWORKS.map((f) => f.name).join(" | ") + " |",
    "|---|---|" + FRAMEWORKS.map(() => "---").join("|") + "|",
  );
  const result = { cases: {}, startup: {}, bundle: {} };
  for (const endpoint of CASES) {
    const empty = median(samples[`${endpoint.id}:empty`]);
    const base = median(samples[`${endpoint.id}:baseline`]);
    const cells = FRAMEWORKS.map((framework) => {
      const value = median(samples[`${endpoint.id}:${framework.id}`]);
      result.cases[`${endpoint.id}:${framework.id}`] = { ns: value, net: value - empty };
      if (framework.id === "baseline") return `${us(value)} (net ${us(value - empty)})`;
      return `${us(value)} (${ratio(value, base)}; net ${ratio(value - empty, base - empty)})`;
    });
    lines.push(`| ${endpoint.name} | ${us(empty)} | ${cells.join(" | ")} |`);
  }
  const startBase = startups.baseline - startups.empty;
  lines.push(
    `| 200-route start-up, net | ${(startups.empty / 1e6).toFixed(1)} ms (total) | ` +
      FRAMEWORKS.map((framework) => {
        const net = startups[framework.id] - startups.empty;
        result.startup[framework.id] = net;
        return `${(net / 1e6).toFixed(1)} ms${framework.id === "baseline" ? "" : ` (${ratio(net, startBase)})`}`;
      }).join(" | ") +
      " |",
  );
  lines.push(
    "",
    "Each cell above is the median of the rounds; the rounds ranged (min–max, µs):",
    "",
    `| case | empty Worker | ${FRAMEWORKS.map((f) => f.name).join(" | ")} |`,
    `|---|---|${FRAMEWORKS.map(() => "---").join("|")}|`,
  );
  for (const endpoint of CASES) {
    const range = (id) => {
      const values = samples[`${endpoint.id}:${id}`];
      return `${(Math.min(...values) / 1000).toFixed(1)}–${(Math.max(...values) / 1000).toFixed(1)}`;
    };
    lines.push(`| ${endpoint.id} | ${range("empty")} | ${FRAMEWORKS.map((f) => range(f.id)).join(" | ")} |`);
  }
  lines.push("", ...bundleTable(bundles, result));
  const report = lines.join("\n");
  console.log(report);
  const name = quick ? "workerd-quick" : "workerd";
  writeFileSync(join(BENCH_DIR, `results/${name}.md`), `${report}\n`);
  writeFileSync(join(BENCH_DIR, `results/${name}.json`), `${JSON.stringify({ at, samples, ...result }, null, 2)}\n`);
}

await (ONLY === "bundle" ? bundleOnly() : main());
