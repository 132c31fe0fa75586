// The operations case (the rate limit and idempotency issue's bench): the same create route, `POST
// /orders` (a SqlCreateEndpoint on in-memory SQLite through better-sqlite3), served plain, behind an API
// key, rate-limited by address or by API key (memory store; SQL store in the same SQLite database) and
// with idempotency keys (SQL store, a fresh key per request), each by its own process
// (lib/ops-server-main.js) on 127.0.0.1, loaded by one load generator (lib/schemas-load-main.js) with a
// fixed number of requests per sample over keep-alive connections. With a second build (`--before`, see
// lib/builds.js) every route is served by each build's own process too. A warm-up sample per server, then
// rounds in which the routes take turns (the order rotates each round, and a route's two builds run back
// to back, the order of the pair swapping each round); each sample is timed by the server's own
// process.cpuUsage(). Ratios, to the plain route of the same build and between builds, are taken round by
// round.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, ROOT_DIR } from "../frameworks.js";
import { ask, kill, PINNING, spawnNode, waitForMessage } from "../processes.js";
import { median } from "../stats.js";

/**
 * The routes (lib/ops-server-main.js's), and what each must answer: the RateLimit headers (`limited`, by the
 * store it names), a replay (`idempotent`), a 401 without the key (`apiKey`).
 */
export const VARIANTS = [
  { id: "plain", label: "plain create" },
  { id: "keyed", label: "create behind an API key (apiKeyAuth), no limit", apiKey: true },
  { id: "limited-memory", label: "rate-limited by address, memoryRateLimitStore", limited: "memory" },
  {
    id: "limited-memory-key",
    label: "rate-limited by API key, memoryRateLimitStore",
    limited: "memory",
    apiKey: true,
  },
  { id: "limited-sql", label: "rate-limited by address, sqlRateLimitStore (SQLite)", limited: "sql" },
  {
    id: "limited-sql-key",
    label: "rate-limited by API key, sqlRateLimitStore (SQLite)",
    limited: "sql",
    apiKey: true,
  },
  {
    id: "idempotent-sql",
    label: "Idempotency-Key, sqlIdempotencyStore (SQLite), a new key per request",
    idempotent: true,
  },
  {
    id: "idempotent-sql-key",
    label: "Idempotency-Key behind an API key, sqlIdempotencyStore (SQLite), a new key per request",
    idempotent: true,
    apiKey: true,
  },
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
/** The one key lib/ops-server-main.js accepts. */
const API_KEY = { "x-api-key": "bench-key" };

const headersOf = (variant) => (variant.apiKey ? { ...REQUEST.headers, ...API_KEY } : REQUEST.headers);

function versions(names) {
  const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const result = { specroute: version(ROOT_DIR) };
  for (const name of names) result[name] = version(join(BENCH_DIR, "node_modules", name));
  return result;
}

async function startServer(variant, build, log) {
  const child = spawnNode(join(BENCH_DIR, "lib/ops-server-main.js"), [variant.id], {
    cpu: PINNING?.server,
    execArgv: build.execArgv,
    env: build.env,
  });
  const { port } = await waitForMessage(child, "ready", 30_000);
  log?.(`${variant.id} (${build.label}) serving on 127.0.0.1:${port}`);
  return { variant, build, child, port };
}

/**
 * Every server answers a create with 201, the RateLimit headers where limited, a replay of a retried key
 * where idempotent, and a 401 without its API key where it takes one.
 */
async function conformance(servers) {
  for (const { variant, build, port } of servers) {
    const name = `${variant.id} (${build.label})`;
    const send = (headers) =>
      fetch(`http://127.0.0.1:${port}${REQUEST.path}`, {
        method: "POST",
        headers,
        body: REQUEST.body,
        signal: AbortSignal.timeout(10_000),
      });
    const retried = { ...headersOf(variant), "idempotency-key": `conformance-${variant.id}` };
    const first = await send(retried);
    const firstBody = await first.text();
    if (first.status !== 201) throw new Error(`${name}: answered ${first.status}: ${firstBody.slice(0, 300)}`);
    const limited = first.headers.get("ratelimit-policy") !== null;
    if (limited !== Boolean(variant.limited))
      throw new Error(`${name}: RateLimit-Policy ${limited ? "sent" : "missing"}`);
    const again = await send(retried);
    const replayed = (await again.text()) === firstBody;
    if (replayed !== Boolean(variant.idempotent))
      throw new Error(`${name}: a retry with the same key was ${replayed ? "" : "not "}replayed`);
    if (variant.apiKey) {
      const anonymous = await send(REQUEST.headers);
      await anonymous.arrayBuffer();
      if (anonymous.status !== 401) throw new Error(`${name}: answered ${anonymous.status} without the API key`);
    }
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
      headers: headersOf(server.variant),
      body: REQUEST.body,
      connections: CONNECTIONS,
      amount,
      freshHeader: server.variant.idempotent ? "idempotency-key" : undefined,
    },
    "result",
    SAMPLE_TIMEOUT_MS,
  );
  const { cpuMicros, rows, buckets } = await ask(server.child, { type: "cpu-stop" }, "cpu", 10_000);
  if (result.failure) throw new Error(`load generator: ${result.failure}`);
  const wrong = Object.entries(result.statuses).filter(([status]) => Number(status) !== REQUEST.status);
  if (wrong.length > 0 || result.errors > 0) {
    const name = `${server.variant.id} (${server.build.label})`;
    throw new Error(`${name}: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
  return {
    requests: result.requests,
    rps: result.rps,
    cpuMicros,
    rows,
    buckets,
    perCpuSecond: result.requests / (cpuMicros / 1e6),
    cpuShare: cpuMicros / 1e6 / result.seconds,
  };
}

/** `{ median, min, max }` of `each`. */
const spread = (each) => ({ median: median(each), min: Math.min(...each), max: Math.max(...each) });

/**
 * Runs the case over `builds` (lib/builds.js: this checkout's, and another's with `--before`), in the mode's
 * number of rounds or `roundCount`: `{ meta, perVariant, ratios, changes, rounds }`, keyed by variant, then
 * by build.
 */
export async function runOps({ mode = "full", builds, rounds: roundCount, log = console.log }) {
  const settings = { ...SETTINGS[mode], ...(roundCount && { rounds: roundCount }) };
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const load = spawnNode(join(BENCH_DIR, "lib/schemas-load-main.js"), [], { cpu: PINNING?.load });
  const servers = [];
  const rounds = [];
  try {
    await waitForMessage(load, "ready", 30_000);
    for (const variant of VARIANTS) {
      for (const build of builds) servers.push(await startServer(variant, build, log));
    }
    await conformance(servers);
    log(
      `conformance: ${servers.length} servers answer 201; the limited ones with RateLimit-Policy, the idempotent ones replay a retry, those behind an API key refuse a request without it`,
    );
    for (const server of servers) await sample(load, server, settings.warmUp);
    for (let round = 0; round < settings.rounds; round++) {
      const pair = round % 2 === 0 ? builds : [...builds].reverse();
      const results = {};
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(i + round) % VARIANTS.length];
        results[variant.id] = {};
        for (const build of pair) {
          const server = servers.find((s) => s.variant === variant && s.build === build);
          results[variant.id][build.id] = await sample(load, server, settings.requests);
        }
      }
      rounds.push(results);
      log(
        `round ${round + 1}/${settings.rounds}: ${VARIANTS.map((v) => `${v.id} ${builds.map((b) => Math.round(results[v.id][b.id].perCpuSecond)).join("/")}`).join(", ")} req/CPU-s (${builds.map((b) => b.id).join("/")})`,
      );
    }
  } finally {
    for (const server of servers) kill(server.child);
    kill(load);
  }
  const of = (variant, build) => rounds.map((r) => r[variant.id][build.id]);
  const perVariant = Object.fromEntries(
    VARIANTS.map((variant) => [
      variant.id,
      Object.fromEntries(
        builds.map((build) => {
          const samples = of(variant, build);
          const last = samples[samples.length - 1];
          return [
            build.id,
            {
              perCpuSecond: median(samples.map((s) => s.perCpuSecond)),
              rps: median(samples.map((s) => s.rps)),
              cpuMicrosPerRequest: median(samples.map((s) => s.cpuMicros / s.requests)),
              minCpuShare: Math.min(...samples.map((s) => s.cpuShare)),
              rowsAtEnd: last.rows,
              buckets: last.buckets,
            },
          ];
        }),
      ),
    ]),
  );
  const plain = VARIANTS[0];
  const ratios = Object.fromEntries(
    builds.map((build) => [
      build.id,
      Object.fromEntries(
        VARIANTS.slice(1).map((variant) => [
          variant.id,
          spread(rounds.map((r) => r[variant.id][build.id].perCpuSecond / r[plain.id][build.id].perCpuSecond)),
        ]),
      ),
    ]),
  );
  // The second build against the first (this checkout's), round by round.
  const changes =
    builds.length < 2
      ? undefined
      : Object.fromEntries(
          VARIANTS.map((variant) => [
            variant.id,
            spread(rounds.map((r) => r[variant.id].after.perCpuSecond / r[variant.id].before.perCpuSecond)),
          ]),
        );
  const meta = {
    date: new Date().toISOString(),
    mode,
    ...settings,
    connections: CONNECTIONS,
    builds: builds.map(({ id, label, revision }) => ({ id, label, revision })),
    versions: versions(["hono", "@hono/node-server", "better-sqlite3", "zod"]),
    pinning: PINNING ? `servers on core ${PINNING.server}, load generator on core ${PINNING.load}` : "none",
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  return { meta, perVariant, ratios, changes, rounds };
}

const count = (n) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
const times = (ratio) => `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`;

function table(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((width, i) => (i === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)];
}

/** One build's table: per variant, requests per server CPU-second, the ratio to plain, CPU µs per request, req/s. */
function buildTable(perVariant, ratios, build) {
  return table(
    ["route", "req / server CPU-s", "ratio to plain", "CPU µs / request", "req/s (wall)"],
    VARIANTS.map((variant) => {
      const r = perVariant[variant.id][build];
      const ratio = ratios[build][variant.id];
      return [
        variant.label,
        count(r.perCpuSecond),
        ratio ? times(ratio) : "1.00×",
        r.cpuMicrosPerRequest.toFixed(0),
        count(r.rps),
      ];
    }),
  );
}

/**
 * Two builds' table: per variant, each build's requests per server CPU-second, their ratio, each one's ratio
 * to its own plain route, and both builds' CPU µs per request.
 */
function pairTable(perVariant, ratios, changes) {
  return table(
    [
      "route",
      "before req/CPU-s",
      "after req/CPU-s",
      "after / before",
      "before ÷ plain",
      "after ÷ plain",
      "CPU µs / request, before → after",
    ],
    VARIANTS.map((variant) => {
      const { before, after } = perVariant[variant.id];
      const toPlain = (build) => (ratios[build][variant.id] ? ratios[build][variant.id].median.toFixed(2) : "1.00");
      const added = after.cpuMicrosPerRequest - before.cpuMicrosPerRequest;
      return [
        variant.label,
        count(before.perCpuSecond),
        count(after.perCpuSecond),
        times(changes[variant.id]),
        `${toPlain("before")}×`,
        `${toPlain("after")}×`,
        `${before.cpuMicrosPerRequest.toFixed(0)} → ${after.cpuMicrosPerRequest.toFixed(0)} (${added >= 0 ? "+" : "−"}${Math.abs(added).toFixed(0)})`,
      ];
    }),
  );
}

/** The case's Markdown: one build's table, or with two builds both side by side and the buckets each named. */
export function renderOps({ meta, perVariant, ratios, changes }) {
  const v = meta.versions;
  const lines = [
    `${meta.date.slice(0, 16).replace("T", " ")} UTC (${meta.mode}), ${meta.machine}; ${meta.pinning}.`,
    `specroute ${v.specroute} on Hono ${v.hono} (@hono/node-server ${v["@hono/node-server"]}), better-sqlite3 ${v["better-sqlite3"]} (in memory), zod ${v.zod}. \`POST /orders\` (a 2-field body, a SqlCreateEndpoint, 201).`,
  ];
  if (changes === undefined) {
    lines.push(
      `Each sample: ${meta.requests} requests over ${meta.connections} keep-alive connections, after a ${meta.warmUp}-request warm-up per server; ${meta.rounds} round(s), the servers taking turns; medians. Ratios to the plain route are taken round by round (lowest–highest in brackets).`,
      "",
      ...buildTable(perVariant, ratios, "after"),
    );
    return lines.join("\n");
  }
  const [after, before] = meta.builds;
  lines.push(
    `Builds: before = ${before.revision}, after = ${after.revision}, each route served by a process of each. Each sample: ${meta.requests} requests over ${meta.connections} keep-alive connections, after a ${meta.warmUp}-request warm-up per server; ${meta.rounds} round(s), the routes taking turns and a route's two builds back to back; medians. "after / before" is taken round by round (lowest–highest in brackets), as are the ratios to the same build's plain route.`,
    "",
    ...pairTable(perVariant, ratios, changes),
    "",
    "Buckets in sqlRateLimitStore's table at the end of the run (what the policy named them; the memory store is given the same names):",
    "",
  );
  for (const variant of VARIANTS.filter((x) => x.limited === "sql")) {
    const named = (build) => perVariant[variant.id][build].buckets.map((b) => `\`${b}\``).join(", ") || "none";
    lines.push(`- ${variant.label}: before ${named("before")}; after ${named("after")}.`);
  }
  return lines.join("\n");
}
