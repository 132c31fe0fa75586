// The live case (issue #30's bench): N listeners of a live collection on one server process and one
// write per 10 ms, for specroute (SqlChangesEndpoint + SqlCreateEndpoint on pgDriver, apps/live-specroute.js)
// and a hand-written Hono SSE + LISTEN/NOTIFY baseline (apps/live-baseline.js), one server after the
// other in the same run; with a second build (`--before`, lib/builds.js), specroute's server from that
// build too, right before this checkout's. Each server runs in its own process (lib/live-server-main.js);
// the listeners and the writer run here, with plain fetch and a small SSE line reader. Each write's title
// carries its send time, so each listener measures its delivery latency (receive time − send time, one
// clock).
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { BENCH_DIR } from "../frameworks.js";
import { ask, kill, PINNING, spawnNode, waitForMessage } from "../processes.js";
import { percentile } from "../stats.js";

const BASELINE = { id: "baseline", app: "baseline", label: "Hono SSE + LISTEN/NOTIFY by hand (baseline)" };
const SPECROUTE = "specroute live collection (pgDriver)";

/**
 * The servers of a run over `builds` (lib/builds.js), in the order they run: the baseline, then specroute
 * from each build, the other build's (`specroute-before`) right before this checkout's (`specroute`).
 */
export function liveServers(builds) {
  const [after, before] = builds;
  if (before === undefined) return [BASELINE, { id: "specroute", app: "specroute", label: SPECROUTE, build: after }];
  return [
    BASELINE,
    { id: "specroute-before", app: "specroute", label: `${SPECROUTE}, ${before.label}`, build: before },
    { id: "specroute", app: "specroute", label: `${SPECROUTE}, ${after.label}`, build: after },
  ];
}

const SETTINGS = {
  full: { listeners: 1_000, seconds: 20 },
  quick: { listeners: 100, seconds: 5 },
};
const WRITE_EVERY_MS = 10;
const WARM_UP_WRITES = 20;
/** Listeners opened at once while connecting (the server's accept backlog stays far from full). */
const CONNECT_BATCH = 50;
/** After the last write, the wait for the last events ends when none arrived for this long… */
const STALL_MS = 5_000;
/** How long the writes may take to be answered after the last was sent. */
const WRITES_MS = 120_000;
/** …or after this long in all: what has not arrived by then counts as lost. */
const DRAIN_MS = 120_000;

export const DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/test";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves `promise`, or rejects after `ms` with `what` timed out. */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Checks the database answers; throws a message that says how to point the bench at one. */
export async function checkDatabase(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query("SELECT current_setting('server_version') AS version");
    return rows[0].version;
  } catch (error) {
    throw new Error(
      `The live bench needs PostgreSQL: ${url} is not reachable (${error.message}). Start one, or set SPECROUTE_PG_URL to one (postgres://user@host:port/db).`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

// The title of a write: "m<index>@<send time>" (measured) or "u<index>@<send time>" (warm-up).
const TITLE = /"title":"([mu])(\d+)@([\d.]+)"/;

/**
 * One listener: reads the stream's lines, and for each `data:` line of a write it records the latency
 * into `latencies` (its row of `writes` slots). Counts warm-up events apart, and notes a `lagged` event
 * or an end of stream.
 */
class Listener {
  constructor(index, writes, latencies) {
    this.index = index;
    this.writes = writes;
    this.latencies = latencies;
    this.received = 0;
    this.duplicates = 0;
    this.warm = 0;
    this.lagged = false;
    this.ended = false;
    this.controller = new AbortController();
  }

  async open(url) {
    const response = await fetch(url, { headers: { accept: "text/event-stream" }, signal: this.controller.signal });
    if (response.status !== 200) throw new Error(`listener ${this.index}: ${url} answered ${response.status}`);
    this.done = this.read(response.body).catch(() => {});
  }

  async read(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const now = performance.now();
        buffer += decoder.decode(value, { stream: true });
        let start = 0;
        for (let end = buffer.indexOf("\n", start); end !== -1; end = buffer.indexOf("\n", start)) {
          this.line(buffer.slice(start, end), now);
          start = end + 1;
        }
        buffer = buffer.slice(start);
      }
    } finally {
      this.ended = true;
    }
  }

  line(line, now) {
    if (line.startsWith("data:")) {
      const match = TITLE.exec(line);
      if (!match) return;
      if (match[1] === "u") {
        this.warm++;
        return;
      }
      const slot = this.index * this.writes + Number(match[2]);
      if (!Number.isNaN(this.latencies[slot])) {
        this.duplicates++;
        return;
      }
      this.latencies[slot] = now - Number(match[3]);
      this.received++;
    } else if (line === "event: lagged") {
      this.lagged = true;
    }
  }

  close() {
    this.controller.abort();
  }
}

async function post(origin, title, times) {
  const sent = performance.now();
  const response = await fetch(`${origin}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`POST /tasks answered ${response.status}`);
  times.push(performance.now() - sent);
}

/** One write per WRITE_EVERY_MS, each titled with its send time, not waiting for the previous one. */
async function writeAtPace(origin, count, prefix) {
  const writes = [];
  const times = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = start + i * WRITE_EVERY_MS - performance.now();
    if (wait > 0) await sleep(wait);
    // Settled at once: a failed write (a saturated server's connect timeout) is counted, not thrown.
    writes.push(
      post(origin, `${prefix}${i}@${performance.now().toFixed(3)}`, times).then(
        () => null,
        (error) => error,
      ),
    );
  }
  // An overloaded server answers late: writes still unanswered after WRITES_MS are counted as such
  // (their events, should they arrive, still count as delivered).
  let unanswered = 0;
  const outcomes = await Promise.race([
    Promise.all(writes),
    sleep(WRITES_MS).then(() => {
      unanswered = count - times.length;
      return [];
    }),
  ]);
  const failed = outcomes.filter((error) => error !== null);
  times.sort((a, b) => a - b);
  return {
    failed: failed.length,
    unanswered,
    error: failed[0]?.cause?.code ?? failed[0]?.message,
    windowMs: performance.now() - start,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
  };
}

/** Waits (polling, bounded) until `test()` holds; returns whether it did. */
async function until(test, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (!test()) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** Runs one server under the load; returns its figures. */
async function runServer(server, { listeners: count, seconds, url, table, log }) {
  const writes = Math.round((seconds * 1000) / WRITE_EVERY_MS);
  const child = spawnNode(join(BENCH_DIR, "lib/live-server-main.js"), [server.app], {
    cpu: PINNING?.server,
    execArgv: server.build?.execArgv,
    env: { ...server.build?.env, SPECROUTE_PG_URL: url, LIVE_TABLE: table, LIVE_CHANNEL: table },
  });
  try {
    const { port, listenerBounds } = await waitForMessage(child, "ready", 30_000);
    const origin = `http://127.0.0.1:${port}`;
    const latencies = new Float64Array(count * writes).fill(Number.NaN);
    const listeners = Array.from({ length: count }, (_, i) => new Listener(i, writes, latencies));
    for (let i = 0; i < count; i += CONNECT_BATCH) {
      await within(
        Promise.all(listeners.slice(i, i + CONNECT_BATCH).map((l) => l.open(`${origin}/tasks/changes`))),
        30_000,
        "connecting listeners",
      );
    }
    // Warm-up: writes at the same pace until every listener has heard them all, so every listener is
    // registered and the server's code is warm before anything is counted.
    const warm = await writeAtPace(origin, WARM_UP_WRITES, "u");
    if (warm.failed > 0) throw new Error(`${server.id}: ${warm.failed} warm-up writes failed: ${warm.error}`);
    const heard = await until(() => listeners.every((l) => l.warm >= WARM_UP_WRITES), 15_000);
    if (!heard) {
      const missing = listeners.filter((l) => l.warm < WARM_UP_WRITES).length;
      throw new Error(`${server.id}: ${missing} of ${count} listeners did not hear the warm-up writes`);
    }
    log(`live | ${server.id}: ${count} listeners connected and warm; ${writes} writes over ${seconds} s`);

    const clientStart = process.cpuUsage();
    await ask(child, { type: "cpu-start" }, "cpu-started", 10_000);
    const written = await writeAtPace(origin, writes, "m");
    const expected = count * (writes - written.failed);
    const delivered = () => listeners.reduce((sum, l) => sum + l.received, 0);
    // Late events still count: the wait ends when all arrived, or none for STALL_MS, or after DRAIN_MS.
    const drainStart = performance.now();
    let last = { count: delivered(), at: drainStart };
    await until(() => {
      const now = delivered();
      if (now !== last.count) last = { count: now, at: performance.now() };
      return now >= expected || performance.now() - last.at > STALL_MS;
    }, DRAIN_MS);
    const drainMs = performance.now() - drainStart;
    const windowMs = written.windowMs + drainMs;
    const cpu = await ask(child, { type: "cpu-stop" }, "cpu", 10_000);
    const client = process.cpuUsage(clientStart);

    for (const listener of listeners) listener.close();
    await within(Promise.all(listeners.map((l) => l.done)), 10_000, "closing listeners").catch(() => {});

    const samples = latencies.filter((value) => !Number.isNaN(value)).sort();
    const received = samples.length;
    const result = {
      id: server.id,
      label: server.label,
      listenerBounds,
      listeners: count,
      writes,
      failedWrites: written.failed,
      unansweredWrites: written.unanswered,
      failedWriteError: written.error,
      expected: count * writes,
      delivered: received,
      lost: count * writes - received,
      duplicates: listeners.reduce((sum, l) => sum + l.duplicates, 0),
      lagged: listeners.filter((l) => l.lagged).length,
      p50Ms: percentile(samples, 50),
      p99Ms: percentile(samples, 99),
      maxMs: samples.length > 0 ? samples[samples.length - 1] : Number.NaN,
      serverCpuMs: cpu.cpuMicros / 1000,
      cpuMicrosPerEvent: received > 0 ? cpu.cpuMicros / received : Number.NaN,
      serverRssMiB: cpu.rss / 2 ** 20,
      serverCpuShare: cpu.cpuMicros / 1000 / windowMs,
      loadGeneratorCpuMs: (client.user + client.system) / 1000,
      loadGeneratorCpuShare: (client.user + client.system) / 1000 / windowMs,
      writeP50Ms: written.p50Ms,
      writeP99Ms: written.p99Ms,
      windowMs,
      drainMs,
    };
    log(
      `live | ${server.id}: ${received}/${result.expected} delivered, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${result.cpuMicrosPerEvent.toFixed(2)} µs server CPU/event`,
    );
    child.send({ type: "stop" });
    await within(new Promise((resolve) => child.once("exit", resolve)), 5_000, "the server's exit").catch(() => {});
    return result;
  } finally {
    kill(child);
  }
}

/** The bench's tables: a task table per server, and none of the change log left behind. */
async function withTables(url, tables, work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const table of tables) {
      await client.query(`DROP TABLE IF EXISTS "${table}"`);
      await client.query(
        `CREATE TABLE "${table}" (id SERIAL PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL DEFAULT false)`,
      );
    }
    return await work();
  } finally {
    for (const table of tables) {
      await client.query(`DROP TABLE IF EXISTS "${table}"`).catch(() => {});
      // specroute's log is shared by every collection of the database: only this run's rows go.
      for (const log of ["specroute_changes", "specroute_change_heads"]) {
        await client.query(`DELETE FROM "${log}" WHERE collection = $1`, [table]).catch(() => {}); // the log's tables may not exist
      }
    }
    await client.end().catch(() => {});
  }
}

/** Runs the case over `builds` (lib/builds.js): `{ meta, results }`, one result per server, in liveServers' order. */
export async function runLive({ mode = "full", url = DEFAULT_PG_URL, builds, log = console.log }) {
  const { listeners, seconds } = SETTINGS[mode];
  const version = await checkDatabase(url);
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const servers = liveServers(builds);
  const tables = servers.map((server) => `bench_live_${server.id.replaceAll("-", "_")}_${process.pid}`);
  const results = await withTables(url, tables, async () => {
    const done = [];
    for (const [i, server] of servers.entries()) {
      done.push(await runServer(server, { listeners, seconds, url, table: tables[i], log }));
    }
    return done;
  });
  const meta = {
    date: new Date().toISOString(),
    mode,
    listeners,
    seconds,
    writeEveryMs: WRITE_EVERY_MS,
    postgres: version,
    builds: builds.map(({ id, label, revision }) => ({ id, label, revision })),
    pinning: PINNING ? `server on core ${PINNING.server}, listeners and writer on core ${PINNING.load}` : "none",
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  return { meta, results };
}

const ms = (value) => (Number.isFinite(value) ? value.toFixed(value >= 100 ? 0 : 2) : "n/a");

/** The case's Markdown: one row per server, specroute's ratio to the baseline and, with two builds, after / before. */
export function renderLive({ meta, results }) {
  const builds = meta.builds ?? [];
  const order =
    builds.length > 1
      ? `the servers run one after the other (specroute from ${builds[1].label} right before ${builds[0].label})`
      : "the servers run one after the other";
  const lines = [
    `${meta.date.slice(0, 16).replace("T", " ")} UTC (${meta.mode}), ${meta.machine}; PostgreSQL ${meta.postgres}; ${meta.pinning}.`,
    `${meta.listeners} listeners on one server process, one write per ${meta.writeEveryMs} ms for ${meta.seconds} s (after ${WARM_UP_WRITES} warm-up writes); ${order}. Latency: a write's send time to a listener's receipt. Server CPU (user + system) from the first write until the last event arrived (writes included), per delivered event, and as a share of one core over that window; "POST p50" is the writes' own round trip.`,
    "",
  ];
  const header = [
    "server",
    "events delivered",
    "lost",
    "p50 ms",
    "p99 ms",
    "max ms",
    "server CPU µs/event",
    "server CPU share",
    "POST p50 ms",
    "window s",
  ];
  const rows = results.map((r) => [
    r.label,
    `${r.delivered} / ${r.expected}`,
    `${r.lost}${r.lagged > 0 ? ` (${r.lagged} lagged)` : ""}${r.duplicates > 0 ? `, ${r.duplicates} twice` : ""}`,
    ms(r.p50Ms),
    ms(r.p99Ms),
    ms(r.maxMs),
    r.cpuMicrosPerEvent.toFixed(2),
    `${(r.serverCpuShare * 100).toFixed(0)} %`,
    ms(r.writeP50Ms),
    (r.windowMs / 1000).toFixed(1),
  ]);
  const ratio = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "n/a");
  const ratioRow = (label, mine, base) => [
    label,
    ratio(mine.delivered, base.delivered),
    "",
    ratio(mine.p50Ms, base.p50Ms),
    ratio(mine.p99Ms, base.p99Ms),
    ratio(mine.maxMs, base.maxMs),
    ratio(mine.cpuMicrosPerEvent, base.cpuMicrosPerEvent),
    "",
    ratio(mine.writeP50Ms, base.writeP50Ms),
    "",
  ];
  const base = results.find((r) => r.id === "baseline");
  const mine = results.find((r) => r.id === "specroute");
  const before = results.find((r) => r.id === "specroute-before");
  if (base && mine) rows.push(ratioRow("ratio specroute / baseline", mine, base));
  if (before && mine) rows.push(ratioRow("ratio specroute after / before", mine, before));
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((width, i) => (i === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  lines.push(line(header), `| ${rule.join(" | ")} |`, ...rows.map(line));
  lines.push(
    "",
    `Load generator CPU (listeners and writer, one process): ${results.map((r) => `${r.id} ${(r.loadGeneratorCpuShare * 100).toFixed(0)} % of a core`).join(", ")}.`,
  );
  if (before && mine) {
    const bounds = (r) =>
      r.listenerBounds
        ? `at most ${r.listenerBounds.perCaller} listeners per caller and ${r.listenerBounds.perProcess} per process (raised by the bench app from the defaults, 16 and 1,000, which would refuse its listeners, all from 127.0.0.1)`
        : "no listener bounds (the build has no maxListeners option)";
    lines.push("", `Listener bounds: ${before.id} ${bounds(before)}; ${mine.id} ${bounds(mine)}.`);
  }
  for (const r of results.filter((x) => x.failedWrites > 0))
    lines.push("", `⚠ ${r.id}: ${r.failedWrites} writes failed (${r.failedWriteError}); their events count as lost.`);
  for (const r of results.filter((x) => x.unansweredWrites > 0)) {
    const unanswered = `${r.unansweredWrites} writes unanswered ${WRITES_MS / 1000} s after the last was sent`;
    lines.push("", `⚠ ${r.id}: ${unanswered}; their events not heard count as lost.`);
  }
  return lines.join("\n");
}
