// The operations case (the rate limit and idempotency issue's bench): the same create route, `POST
// /orders` (a SqlCreateEndpoint on in-memory SQLite through better-sqlite3), served plain, rate-limited
// (memory store; SQL store in the same SQLite database) and with idempotency keys (SQL store, a fresh key
// per request), each by its own process (lib/ops-server-main.js) on 127.0.0.1, loaded by one load
// generator (lib/schemas-load-main.js) with a fixed number of requests per sample over keep-alive
// connections. A warm-up sample per server, then rounds in which the servers take turns (the order
// rotates each round); each sample is timed by the server's own process.cpuUsage(). Ratios to the plain
// route are taken round by round.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, ROOT_DIR } from "../frameworks.js";
import { ask, kill, PINNING, spawnNode, waitForMessage } from "../processes.js";
import { median } from "../stats.js";

export const VARIANTS = [
  { id: "plain", label: "plain create" },
  { id: "limited-memory", label: "rate-limited, memoryRateLimitStore" },
  { id: "limited-sql", label: "rate-limited, sqlRateLimitStore (SQLite)" },
  { id: "idempotent-sql", label: "Idempotency-Key, sqlIdempotencyStore (SQLite), a new key per request" },
];

const SETTINGS = {
  full: { rounds: 5, requests: 5_000, warmUp: 2_000 },
  quick: { rounds: 1, requests: 2_000, warmUp: 500 },
};
const CONNECTIONS = 10;
const SAMPLE_TIMEOUT_MS = 120_000;

const REQUEST = {
  method: "POST",
  path: "/orders",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ item: "Printer paper", quantity: 3 }),
  status: 201,
};

function versions(names) {
  const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const result = { specroute: version(ROOT_DIR) };
  for (const name of names) result[name] = version(join(BENCH_DIR, "node_modules", name));
  return result;
}

async function startServer(variant, log) {
  const child = spawnNode(join(BENCH_DIR, "lib/ops-server-main.js"), [variant.id], { cpu: PINNING?.server });
  const { port } = await waitForMessage(child, "ready", 30_000);
  log?.(`${variant.id} serving on 127.0.0.1:${port}`);
  return { ...variant, child, port };
}

/** Every server answers a create with 201 and the RateLimit headers or a replay as its variant says. */
async function conformance(servers) {
  for (const server of servers) {
    const url = `http://127.0.0.1:${server.port}${REQUEST.path}`;
    const send = (headers = {}) =>
      fetch(url, {
        method: "POST",
        headers: { ...REQUEST.headers, ...headers },
        body: REQUEST.body,
        signal: AbortSignal.timeout(10_000),
      });
    const first = await send({ "idempotency-key": `conformance-${server.id}` });
    const firstBody = await first.text();
    if (first.status !== 201) throw new Error(`${server.id}: answered ${first.status}: ${firstBody.slice(0, 300)}`);
    const limited = first.headers.get("ratelimit-policy") !== null;
    if (limited !== server.id.startsWith("limited"))
      throw new Error(`${server.id}: RateLimit-Policy ${limited ? "sent" : "missing"}`);
    const again = await send({ "idempotency-key": `conformance-${server.id}` });
    const replayed = (await again.text()) === firstBody;
    if (replayed !== (server.id === "idempotent-sql"))
      throw new Error(`${server.id}: a retry with the same key was ${replayed ? "" : "not "}replayed`);
  }
}

let sampleId = 0;

async function sample(load, server, amount) {
  await ask(server.child, { type: "cpu-start" }, "cpu-started", 10_000);
  const id = ++sampleId;
  const result = await ask(
    load,
    {
      type: "run",
      id,
      url: `http://127.0.0.1:${server.port}${REQUEST.path}`,
      method: REQUEST.method,
      headers: REQUEST.headers,
      body: REQUEST.body,
      connections: CONNECTIONS,
      amount,
      freshHeader: server.id === "idempotent-sql" ? "idempotency-key" : undefined,
    },
    "result",
    SAMPLE_TIMEOUT_MS,
  );
  const { cpuMicros, rows } = await ask(server.child, { type: "cpu-stop" }, "cpu", 10_000);
  if (result.failure) throw new Error(`load generator: ${result.failure}`);
  const wrong = Object.entries(result.statuses).filter(([status]) => Number(status) !== REQUEST.status);
  if (wrong.length > 0 || result.errors > 0)
    throw new Error(`${server.id}: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  return {
    requests: result.requests,
    rps: result.rps,
    cpuMicros,
    rows,
    perCpuSecond: result.requests / (cpuMicros / 1e6),
    cpuShare: cpuMicros / 1e6 / result.seconds,
  };
}

/** Runs the case: `{ meta, perVariant, ratios, rounds }`. */
export async function runOps({ mode = "full", log = console.log } = {}) {
  const settings = SETTINGS[mode];
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const load = spawnNode(join(BENCH_DIR, "lib/schemas-load-main.js"), [], { cpu: PINNING?.load });
  const servers = [];
  const rounds = [];
  let rows = {};
  try {
    await waitForMessage(load, "ready", 30_000);
    for (const variant of VARIANTS) servers.push(await startServer(variant, log));
    await conformance(servers);
    log(
      `conformance: ${servers.length} servers answer 201; the limited ones with RateLimit-Policy, the keyed one replays`,
    );
    for (const server of servers) await sample(load, server, settings.warmUp);
    for (let round = 0; round < settings.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      const results = {};
      for (const server of order) results[server.id] = await sample(load, server, settings.requests);
      rounds.push(results);
      rows = Object.fromEntries(Object.entries(results).map(([id, r]) => [id, r.rows]));
      log(
        `round ${round + 1}/${settings.rounds}: ${VARIANTS.map((v) => `${v.id} ${Math.round(results[v.id].perCpuSecond)} req/CPU-s`).join(", ")}`,
      );
    }
  } finally {
    for (const server of servers) kill(server.child);
    kill(load);
  }
  const perVariant = Object.fromEntries(
    VARIANTS.map((variant) => [
      variant.id,
      {
        perCpuSecond: median(rounds.map((r) => r[variant.id].perCpuSecond)),
        rps: median(rounds.map((r) => r[variant.id].rps)),
        cpuMicrosPerRequest: median(rounds.map((r) => r[variant.id].cpuMicros / r[variant.id].requests)),
        minCpuShare: Math.min(...rounds.map((r) => r[variant.id].cpuShare)),
        rowsAtEnd: rows[variant.id],
      },
    ]),
  );
  const ratios = Object.fromEntries(
    VARIANTS.filter((v) => v.id !== "plain").map((variant) => {
      const each = rounds.map((r) => r[variant.id].perCpuSecond / r.plain.perCpuSecond);
      return [variant.id, { median: median(each), min: Math.min(...each), max: Math.max(...each) }];
    }),
  );
  const meta = {
    date: new Date().toISOString(),
    mode,
    ...settings,
    connections: CONNECTIONS,
    versions: versions(["hono", "@hono/node-server", "better-sqlite3", "zod"]),
    pinning: PINNING ? `servers on core ${PINNING.server}, load generator on core ${PINNING.load}` : "none",
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  return { meta, perVariant, ratios, rounds };
}

const count = (n) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));

function table(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((width, i) => (i === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)];
}

/** The case's Markdown: per variant, requests per server CPU-second, the ratio to the plain route, µs of CPU per request and req/s. */
export function renderOps({ meta, perVariant, ratios }) {
  const v = meta.versions;
  return [
    `${meta.date.slice(0, 16).replace("T", " ")} UTC (${meta.mode}), ${meta.machine}; ${meta.pinning}.`,
    `specroute ${v.specroute} on Hono ${v.hono} (@hono/node-server ${v["@hono/node-server"]}), better-sqlite3 ${v["better-sqlite3"]} (in memory), zod ${v.zod}. \`POST /orders\` (a 2-field body, a SqlCreateEndpoint, 201).`,
    `Each sample: ${meta.requests} requests over ${meta.connections} keep-alive connections, after a ${meta.warmUp}-request warm-up per server; ${meta.rounds} round(s), the servers taking turns; medians. Ratios to the plain route are taken round by round (lowest–highest in brackets).`,
    "",
    ...table(
      ["route", "req / server CPU-s", "ratio to plain", "CPU µs / request", "req/s (wall)"],
      VARIANTS.map((variant) => {
        const r = perVariant[variant.id];
        const ratio = ratios[variant.id];
        return [
          variant.label,
          count(r.perCpuSecond),
          ratio ? `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})` : "1.00×",
          r.cpuMicrosPerRequest.toFixed(0),
          count(r.rps),
        ];
      }),
    ),
  ].join("\n");
}
