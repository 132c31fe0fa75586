// The workerd case: the throughput apps bundled as Workers and served by the workerd binary that Miniflare
// installs, measured by the workerd process's own CPU time per request, read from the kernel.
//
//   node workerd.js                  # 5 interleaved rounds of 10,000 requests per case and framework (--rounds=N)
//   node workerd.js --quick          # 1 round of 2,000, to check the harness
//   node workerd.js --only=document  # some cases only (throughput, startup, document); writes results/workerd-partial.*
//   node workerd.js --only=bundle    # only the bundle table (no workerd started; no two-core check)
//
// workerd is pinned to core 0 and this process (the load, autocannon over keep-alive connections) to
// core 1. An empty Worker answering "ok" is measured alike; "net" is a framework's CPU minus the empty
// Worker's: what the framework and its handler add. It also times the 200-route start-up (process start
// to the first answer, in workerd CPU), the 200-route first document (process start to the first
// GET /openapi.json answer, registration included) and sizes each 3-route Worker bundle.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { ensureBuilt } from "./lib/build.js";
import { BENCH_DIR } from "./lib/frameworks.js";
import { ENDPOINTS } from "./lib/requests.js";
import {
  bundleWorker,
  freePort,
  startServing,
  WORKER_FRAMEWORKS,
  WORKERD,
  WORKERD_VERSION,
  writeWorker,
} from "./lib/workerd.js";

const quick = process.argv.includes("--quick");
const roundsArg = process.argv.find((arg) => arg.startsWith("--rounds="));
const ROUNDS = roundsArg ? Number(roundsArg.slice("--rounds=".length)) : quick ? 1 : 5;
const REQUESTS = quick ? 2_000 : 10_000;
const WARMUP = quick ? 500 : 2_000;
const STARTUPS = quick ? 1 : 3;
const DOCUMENTS = quick ? 1 : 5;
const ALL_CASES = ["throughput", "startup", "document"];
const onlyArg = process.argv.find((arg) => arg.startsWith("--only="));
const only = onlyArg ? onlyArg.slice("--only=".length).split(",") : ALL_CASES;
// `bundle` alone sizes the bundles without starting workerd (see bundleOnly); every run sizes them too.
const bundleAlone = only.length === 1 && only[0] === "bundle";
for (const name of only) {
  if (!ALL_CASES.includes(name) && !bundleAlone)
    throw new Error(`Unknown case ${name}; cases: ${ALL_CASES}, or bundle alone`);
}
const DOCUMENT_ROUTES = 200;
const CONNECTIONS = 8;
const WORK_DIR = join(BENCH_DIR, "results/raw/workerd");

/** The Workers measured (bare itty-router + zod is for the instruction counts only). */
const FRAMEWORKS = WORKER_FRAMEWORKS.filter((framework) => !framework.requestsOnly);
const CASES = ENDPOINTS.filter((endpoint) => endpoint.id !== "db-list");

const log = (...args) => console.error(...args);

const bundle = (framework, factory) => bundleWorker(framework, { factory });

/** Starts workerd on core 0 serving `code`; resolves once it answers `probe`, with that first answer. */
async function startWorkerd(id, code, probe = "/__ready") {
  const port = await freePort();
  const config = writeWorker(join(WORK_DIR, id), code, port);
  const origin = `http://127.0.0.1:${port}`;
  const command = ["-c", "0", WORKERD, "serve", config];
  const { child, first } = await startServing("taskset", command, origin, { probe });
  return { child, origin, first, stop: () => stopped(child) };
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

/**
 * workerd CPU from process start to the first GET /openapi.json answer of the 200-route app, in ns, per
 * process: `codes` (id → Worker) started in turn, DOCUMENTS times, so every framework meets the same
 * machine. The empty Worker's "ok" is its start-up alone, taken alike in the same rounds.
 */
async function firstDocument(codes) {
  const runs = {};
  for (let run = 0; run < DOCUMENTS; run++) {
    for (const [id, code] of Object.entries(codes)) {
      const worker = await startWorkerd(`${id}-document-${run}`, code, "/openapi.json");
      const cpu = cpuNs(worker.child.pid);
      await worker.stop();
      if (id !== "empty") checkDocument(id, worker.first);
      runs[id] = [...(runs[id] ?? []), cpu];
      log(`  process ${run + 1} ${id.padEnd(15)} ${(cpu / 1e6).toFixed(1)} ms`);
    }
  }
  return runs;
}

/** The first answer must be the whole document: a 200 with one operation per route. */
function checkDocument(id, { status, text }) {
  if (status !== 200) throw new Error(`${id}: GET /openapi.json answered ${status}: ${text.slice(0, 200)}`);
  const operations = Object.values(JSON.parse(text).paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
  if (operations !== DOCUMENT_ROUTES) {
    throw new Error(`${id}: the document has ${operations} operations, expected ${DOCUMENT_ROUTES}`);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const us = (ns) => `${(ns / 1000).toFixed(1)} µs`;
const ms = (ns) => `${(ns / 1e6).toFixed(1)} ms`;
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
  const generated = {};
  for (const framework of FRAMEWORKS) generated[framework.id] = (await bundle(framework, "generated")).code;

  let samples = {};
  if (only.includes("throughput")) {
    log("throughput (workerd CPU per request) ...");
    const workers = {};
    try {
      for (const [id, { code }] of Object.entries(bundles)) workers[id] = await startWorkerd(id, code);
      for (const framework of FRAMEWORKS) await checkAnswers(workers[framework.id].origin, framework.id);
      samples = await throughput(workers);
    } finally {
      await Promise.all(Object.values(workers).map((worker) => worker.stop()));
    }
  }

  const startups = {};
  if (only.includes("startup")) {
    log("start-up (200 routes, workerd CPU to the first answer) ...");
    startups.empty = await startup("empty", bundles.empty.code);
    for (const framework of FRAMEWORKS) startups[framework.id] = await startup(framework.id, generated[framework.id]);
  }

  let documents = {};
  if (only.includes("document")) {
    log("first document (200 routes, workerd CPU to the first GET /openapi.json answer) ...");
    const codes = { empty: bundles.empty.code };
    for (const framework of FRAMEWORKS) if (framework.document) codes[framework.id] = generated[framework.id];
    documents = await firstDocument(codes);
  }

  const lines = [];
  const at = new Date().toISOString().slice(0, 16).replace("T", " ");
  const what = only.includes("throughput") ? `${ROUNDS} round(s) of ${REQUESTS} requests per case` : only.join(", ");
  lines.push(`workerd ${WORKERD_VERSION}, ${what}`);
  lines.push(`(${at} UTC; load average ${startLoad.toFixed(1)} → ${loadavg()[0].toFixed(1)})`, "");
  lines.push(
    "| workerd CPU per request | empty Worker | " + FRAMEWORKS.map((f) => f.name).join(" | ") + " |",
    "|---|---|" + FRAMEWORKS.map(() => "---").join("|") + "|",
  );
  const result = { cases: {}, startup: {}, document: {}, bundle: {} };
  for (const endpoint of only.includes("throughput") ? CASES : []) {
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
  if (only.includes("startup")) {
    const startBase = startups.baseline - startups.empty;
    lines.push(
      `| 200-route start-up, net | ${ms(startups.empty)} (total) | ` +
        FRAMEWORKS.map((framework) => {
          const net = startups[framework.id] - startups.empty;
          result.startup[framework.id] = net;
          return `${ms(net)}${framework.id === "baseline" ? "" : ` (${ratio(net, startBase)})`}`;
        }).join(" | ") +
        " |",
    );
  }
  if (only.includes("document")) {
    // Each framework's median over its processes, net of the empty Worker's median; the ratio is to chanfana's.
    const empty = median(documents.empty);
    const net = (id) => median(documents[id]) - empty;
    lines.push(
      `| 200-route first document, registration included, net (ratio to chanfana) | ${ms(empty)} (total) | ` +
        FRAMEWORKS.map((framework) => {
          if (!framework.document) return "";
          result.document[framework.id] = { ns: median(documents[framework.id]), net: net(framework.id) };
          return `${ms(net(framework.id))} (${ratio(net(framework.id), net("chanfana"))})`;
        }).join(" | ") +
        " |",
    );
    result.document.empty = { ns: empty };
  }
  if (only.includes("throughput")) {
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
  }
  if (only.includes("document")) {
    const range = (id) => (documents[id] ? `${ms(Math.min(...documents[id]))}–${ms(Math.max(...documents[id]))}` : "");
    lines.push(
      "",
      `The first document's ${DOCUMENTS} processes per Worker ranged (min–max, total workerd CPU):`,
      "",
      `| case | empty Worker | ${FRAMEWORKS.map((f) => f.name).join(" | ")} |`,
      `|---|---|${FRAMEWORKS.map(() => "---").join("|")}|`,
      `| document | ${range("empty")} | ${FRAMEWORKS.map((f) => range(f.id)).join(" | ")} |`,
    );
  }
  lines.push("", ...bundleTable(bundles, result));
  const report = lines.join("\n");
  console.log(report);
  const name = quick ? "workerd-quick" : onlyArg ? "workerd-partial" : "workerd";
  writeFileSync(join(BENCH_DIR, `results/${name}.md`), `${report}\n`);
  writeFileSync(
    join(BENCH_DIR, `results/${name}.json`),
    `${JSON.stringify({ at, samples, documents, ...result }, null, 2)}\n`,
  );
}

await (bundleAlone ? bundleOnly() : main());
