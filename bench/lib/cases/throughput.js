// Case 1: throughput, p99 latency and server CPU per request, over HTTP on 127.0.0.1.
// One server process per framework (core 0), one autocannon process (core 1); frameworks interleaved
// within each round, round order rotated; medians over rounds.
import { join } from "node:path";
import { checkConformance } from "../conformance.js";
import { BENCH_DIR } from "../frameworks.js";
import { ask, kill, PINNING, spawnNode, waitForMessage } from "../processes.js";
import { ENDPOINTS } from "../requests.js";
import { median } from "../stats.js";

const STARTUP_TIMEOUT_MS = 30_000;
/** A round this far from the median of a framework's other rounds, with its server at full CPU, drifted. */
export const DRIFT = 0.15;
const IPC_TIMEOUT_MS = 10_000;

async function startServer(frameworkId) {
  const child = spawnNode(join(BENCH_DIR, "lib/server-main.js"), [frameworkId], { cpu: PINNING?.server });
  const { port } = await waitForMessage(child, "ready", STARTUP_TIMEOUT_MS);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** `{ min, max }` of the finite values. */
function range(values) {
  const finite = values.filter(Number.isFinite);
  return finite.length > 0 ? { min: Math.min(...finite), max: Math.max(...finite) } : null;
}

/**
 * Marks (and returns) a framework's rounds whose req/s or req/CPU-s lies ≥ DRIFT from the median of its
 * other rounds although the server had its core (not contended): the server itself, or what shares its
 * core, changed speed during the run, so that round's ratios, the baseline's above all, cannot be trusted.
 */
function flagDrift(rounds, settings) {
  if (rounds.length < 3) return [];
  const flagged = [];
  for (const s of rounds) {
    if (s.contended) continue;
    const others = rounds.filter((other) => other !== s && !other.contended);
    if (others.length < 2) continue;
    for (const key of ["rps", "reqPerCpuSecond"]) {
      const typical = median(others.map((other) => other[key]));
      const off = s[key] / typical - 1;
      if (Math.abs(off) >= DRIFT && s.serverUtilization >= settings.minServerUtilization) {
        s.drift = `${key === "rps" ? "req/s" : "req/CPU-s"} ${Math.round(s[key])} is ${Math.abs(100 * off).toFixed(0)}% ${off < 0 ? "below" : "above"} the other rounds' median ${Math.round(typical)}`;
        flagged.push(s);
        break;
      }
    }
  }
  return flagged;
}

/** One load sample against one server: autocannon numbers plus the server's own CPU time. */
async function sample(load, server, endpoint, settings, seconds) {
  await ask(server.child, { type: "cpu-start" }, "cpu-started", IPC_TIMEOUT_MS);
  const result = await ask(
    load,
    {
      type: "run",
      url: server.url + endpoint.path,
      method: endpoint.method,
      headers: endpoint.headers,
      body: endpoint.body,
      connections: settings.connections,
      durationSeconds: seconds,
    },
    "result",
    (seconds + 30) * 1000,
  );
  const { cpuMicros } = await ask(server.child, { type: "cpu-stop" }, "cpu", IPC_TIMEOUT_MS);
  if (result.failure) throw new Error(`autocannon failed: ${result.failure}`);
  const unexpected = Object.entries(result.statuses).filter(([status]) => Number(status) !== endpoint.status);
  if (unexpected.length > 0) {
    throw new Error(`${endpoint.name}: unexpected statuses during load ${JSON.stringify(result.statuses)}`);
  }
  if (result.errors + result.timeouts > result.requests * 0.001) {
    throw new Error(`${endpoint.name}: ${result.errors} errors and ${result.timeouts} timeouts in ${result.requests}`);
  }
  // Utilization near 1 means the server was the bottleneck; well below, the load generator or the machine was.
  const serverUtilization = cpuMicros / (result.seconds * 1e6);
  return { ...result, cpuMicros, serverUtilization, reqPerCpuSecond: result.requests / (cpuMicros / 1e6) };
}

/**
 * Runs the whole case. Returns `{ results, samples, note }`: results[endpointId][frameworkId] holds the medians.
 * Throws (after killing its processes) when a framework fails the conformance check.
 */
export async function runThroughput({ frameworks, settings, log }) {
  const started = [];
  try {
    const load = spawnNode(join(BENCH_DIR, "lib/load-main.js"), [], { cpu: PINNING?.load });
    started.push(load);
    await waitForMessage(load, "ready", STARTUP_TIMEOUT_MS);
    const servers = {};
    for (const { id } of frameworks) {
      servers[id] = await startServer(id);
      started.push(servers[id].child);
    }

    log("conformance: same statuses and bodies for the benchmark requests, same statuses for invalid ones");
    const problems = await checkConformance(Object.fromEntries(frameworks.map(({ id }) => [id, servers[id].url])));
    if (problems.length > 0) {
      throw new Error(`conformance check failed:\n  ${problems.join("\n  ")}`);
    }
    log("conformance: passed");

    const samples = [];
    const results = {};
    let retriesLeft = settings.contentionRetries;
    for (const endpoint of ENDPOINTS) {
      results[endpoint.id] = {};
      for (const { id } of frameworks) {
        await sample(load, servers[id], endpoint, settings, settings.warmupSeconds);
      }
      for (let round = 0; round < settings.rounds; round++) {
        const order = frameworks.map((_, i) => frameworks[(i + round) % frameworks.length]);
        for (const { id } of order) {
          let s = await sample(load, servers[id], endpoint, settings, settings.sampleSeconds);
          // A server that could not use its core was measuring the machine's other work: take the sample
          // again (twice at most, while the run's retry budget lasts), and flag it if it stays contended.
          for (
            let retry = 0;
            retry < 2 && s.serverUtilization < settings.minServerUtilization && retriesLeft > 0;
            retry++
          ) {
            retriesLeft--;
            log(`${endpoint.name} | ${id}: server CPU ${(100 * s.serverUtilization).toFixed(0)}%, sampling again`);
            s = await sample(load, servers[id], endpoint, settings, settings.sampleSeconds);
          }
          const contended = s.serverUtilization < settings.minServerUtilization;
          samples.push({ endpoint: endpoint.id, framework: id, round, contended, ...s });
          log(
            `${endpoint.name} | ${id} | round ${round + 1}/${settings.rounds}: ${Math.round(s.rps)} req/s, ` +
              `p99 ${s.p99.toFixed(2)} ms, ${Math.round(s.reqPerCpuSecond)} req/CPU-s, server CPU ${(100 * s.serverUtilization).toFixed(0)}%` +
              (contended ? " (contended)" : ""),
          );
        }
      }
      const mine = (id) => samples.filter((s) => s.endpoint === endpoint.id && s.framework === id);
      const baseline = mine("baseline");
      for (const { id } of frameworks) {
        const own = mine(id);
        for (const s of flagDrift(own, settings)) {
          log(`${endpoint.name} | ${id} | round ${s.round + 1}: ${s.drift} (drift: ratios of this round are suspect)`);
        }
        results[endpoint.id][id] = {
          rps: median(own.map((s) => s.rps)),
          p99: median(own.map((s) => s.p99)),
          reqPerCpuSecond: median(own.map((s) => s.reqPerCpuSecond)),
          // The spread of rounds: each round's figure, and its ratio to the baseline of the same round.
          spread: {
            rps: range(own.map((s) => s.rps)),
            reqPerCpuSecond: range(own.map((s) => s.reqPerCpuSecond)),
            p99: range(own.map((s) => s.p99)),
            rpsRatio: range(own.map((s) => s.rps / baseline.find((b) => b.round === s.round)?.rps)),
            reqPerCpuSecondRatio: range(
              own.map((s) => s.reqPerCpuSecond / baseline.find((b) => b.round === s.round)?.reqPerCpuSecond),
            ),
          },
        };
      }
    }
    const contended = samples.filter((s) => s.contended).length;
    const drifted = samples.filter((s) => s.drift).length;
    const retries = settings.contentionRetries - retriesLeft;
    const note =
      `${contended} of ${samples.length} samples contended (server CPU < ${100 * settings.minServerUtilization}%), ${retries} retaken; ` +
      `${drifted} drifted (a round ≥ ${100 * DRIFT}% off the framework's other rounds at full server CPU)`;
    log(note);
    return { results, samples, note };
  } finally {
    for (const child of started) kill(child);
  }
}
