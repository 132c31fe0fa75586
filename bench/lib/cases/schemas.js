// The schema-library case (issue #31's bench): the same two endpoints written in zod, valibot and ArkType
// (apps/schemas-*.js, specroute on Hono), each served by its own process (lib/schemas-server-main.js) on
// 127.0.0.1, loaded by one load-generator process (lib/schemas-load-main.js) with a fixed number of requests
// per sample over keep-alive connections. Per request case: a warm-up sample for every app, then rounds in
// which the apps take turns (the order rotates each round); each sample is timed by the server's own
// process.cpuUsage(), so requests per server CPU-second leaves out what the load generator and the
// machine's other work take. The first document is timed in fresh processes, interleaved.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, ROOT_DIR } from "../frameworks.js";
import { ask, kill, PINNING, spawnNode, waitForMessage } from "../processes.js";
import { median } from "../stats.js";

export const APPS = [
  { id: "zod", label: "zod" },
  { id: "valibot", label: "valibot" },
  { id: "arktype", label: "ArkType" },
];

const SETTINGS = {
  full: { rounds: 5, requests: 5_000, warmUp: 2_000, documents: 7 },
  quick: { rounds: 1, requests: 2_000, warmUp: 1_000, documents: 2 },
};
const CONNECTIONS = 10;
/** Longest a sample may take (a stalled server fails the run rather than hanging it). */
const SAMPLE_TIMEOUT_MS = 120_000;

/** Installed versions of specroute and of the packages the apps use. */
function versions(names) {
  const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const result = { specroute: version(ROOT_DIR) };
  for (const name of names) result[name] = version(join(BENCH_DIR, "node_modules", name));
  return result;
}

const JSON_HEADERS = { "content-type": "application/json" };
const ORDER = {
  title: "Printer paper",
  customer: "ann@example.com",
  quantity: 3,
  price: 12.5,
  currency: "EUR",
  note: "ring twice",
  shipping: { street: "1 Main St", city: "Springfield", zip: "12345" },
  items: ["a4", "pen", "stapler"],
};

export const CASES = [
  {
    id: "get",
    label: "GET /items/:id?limit&active&tags (params + query, checked response)",
    method: "GET",
    path: "/items/7?limit=10&active=false&tags=a&tags=b&tags=c",
    status: 200,
  },
  {
    id: "post",
    label: "POST /orders (8-field body, valid, 201)",
    method: "POST",
    path: "/orders",
    headers: JSON_HEADERS,
    body: JSON.stringify(ORDER),
    status: 201,
  },
  {
    id: "invalid",
    label: "POST /orders (invalid body, 400)",
    method: "POST",
    path: "/orders",
    headers: JSON_HEADERS,
    body: JSON.stringify({ ...ORDER, customer: "not an email", quantity: 0, currency: "EURO", items: [] }),
    status: 400,
  },
];

/** More requests the apps must answer alike (status; and the body for a success) before anything is timed. */
const CHECKS = [
  ...CASES,
  { method: "GET", path: "/items/1", status: 200 },
  { method: "GET", path: "/items/1?tags=x", status: 200 },
  { method: "GET", path: "/items/abc", status: 400 },
  { method: "GET", path: "/items/1?limit=0", status: 400 },
  { method: "GET", path: "/items/1?active=maybe", status: 400 },
  {
    method: "POST",
    path: "/orders",
    headers: JSON_HEADERS,
    body: JSON.stringify({ ...ORDER, note: undefined, shipping: undefined }),
    status: 201,
  },
  {
    method: "POST",
    path: "/orders",
    headers: JSON_HEADERS,
    body: JSON.stringify({ ...ORDER, shipping: { street: "", city: "x", zip: "1" } }),
    status: 400,
  },
  {
    method: "POST",
    path: "/orders",
    headers: JSON_HEADERS,
    body: JSON.stringify({ ...ORDER, price: -1 }),
    status: 400,
  },
  { method: "POST", path: "/orders", headers: JSON_HEADERS, body: "{", status: 400 },
];

const sorted = (value) =>
  Array.isArray(value)
    ? value.map(sorted)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sorted(value[key])]),
        )
      : value;

/** Every app answers CHECKS with the expected status, and successes with the same JSON (keys sorted, id left out). */
async function conformance(servers) {
  for (const check of CHECKS) {
    const answers = [];
    for (const server of servers) {
      const response = await fetch(`http://127.0.0.1:${server.port}${check.path}`, {
        method: check.method,
        headers: check.headers,
        body: check.body,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== check.status)
        throw new Error(
          `${server.id}: ${check.method} ${check.path} answered ${response.status}, not ${check.status}: ${text.slice(0, 300)}`,
        );
      if (response.status < 300) {
        const { id: _id, ...rest } = JSON.parse(text);
        answers.push([server.id, JSON.stringify(sorted(rest))]);
      }
    }
    for (const [id, answer] of answers.slice(1))
      if (answer !== answers[0][1])
        throw new Error(
          `${id} answers ${check.method} ${check.path} unlike ${answers[0][0]}:\n${answer}\n${answers[0][1]}`,
        );
  }
}

async function startServer(app, log) {
  const child = spawnNode(join(BENCH_DIR, "lib/schemas-server-main.js"), [app.id], { cpu: PINNING?.server });
  const { port, builtMs } = await waitForMessage(child, "ready", 30_000);
  log?.(`${app.id} serving on 127.0.0.1:${port}`);
  return { ...app, child, port, builtMs };
}

let sampleId = 0;

/** One sample: `amount` requests of `request` to `server`, timed by the server's CPU. */
async function sample(load, server, request, amount) {
  await ask(server.child, { type: "cpu-start" }, "cpu-started", 10_000);
  const id = ++sampleId;
  const result = await ask(
    load,
    {
      type: "run",
      id,
      url: `http://127.0.0.1:${server.port}${request.path}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      connections: CONNECTIONS,
      amount,
    },
    "result",
    SAMPLE_TIMEOUT_MS,
  );
  const { cpuMicros } = await ask(server.child, { type: "cpu-stop" }, "cpu", 10_000);
  if (result.failure) throw new Error(`load generator: ${result.failure}`);
  const wrong = Object.entries(result.statuses).filter(([status]) => Number(status) !== request.status);
  if (wrong.length > 0 || result.errors > 0 || result.timeouts > 0)
    throw new Error(
      `${server.id} ${request.id}: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors, ${result.timeouts} timeouts (expected only ${request.status})`,
    );
  return {
    requests: result.requests,
    rps: result.rps,
    cpuMicros,
    perCpuSecond: result.requests / (cpuMicros / 1e6),
    // The server's CPU over the sample's wall time: under 0.8 it waited for requests (or for the core).
    cpuShare: cpuMicros / 1e6 / result.seconds,
  };
}

/** The first document of each app, in fresh processes interleaved; medians. */
async function documents(count, log) {
  const byApp = Object.fromEntries(APPS.map((app) => [app.id, []]));
  for (let i = 0; i < count; i++) {
    for (const app of i % 2 === 0 ? APPS : [...APPS].reverse()) {
      const server = await startServer(app);
      try {
        const doc = await ask(server.child, { type: "document" }, "document", 30_000);
        if (doc.status !== 200 || doc.operations !== 2)
          throw new Error(`${app.id}: /openapi.json answered ${doc.status} with ${doc.operations} operations`);
        byApp[app.id].push({ ...doc, builtMs: server.builtMs });
      } finally {
        kill(server.child);
      }
    }
    log(`documents: ${i + 1}/${count} processes per app`);
  }
  return Object.fromEntries(
    Object.entries(byApp).map(([id, samples]) => [
      id,
      {
        firstMs: median(samples.map((s) => s.ms)),
        repeatMs: median(samples.map((s) => s.repeatMs)),
        builtMs: median(samples.map((s) => s.builtMs)),
        bytes: samples[0].bytes,
        samples,
      },
    ]),
  );
}

/** Runs the case: `{ meta, throughput, documents }`. */
export async function runSchemas({ mode = "full", log = console.log } = {}) {
  const settings = SETTINGS[mode];
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const load = spawnNode(join(BENCH_DIR, "lib/schemas-load-main.js"), [], { cpu: PINNING?.load });
  const servers = [];
  const throughput = [];
  try {
    await waitForMessage(load, "ready", 30_000);
    for (const app of APPS) servers.push(await startServer(app, log));
    await conformance(servers);
    log(`conformance: ${CHECKS.length} requests answered alike by ${servers.length} apps`);
    for (const request of CASES) {
      for (const server of servers) await sample(load, server, request, settings.warmUp);
      const rounds = [];
      for (let round = 0; round < settings.rounds; round++) {
        const order = servers.map((_, i) => servers[(i + round) % servers.length]);
        const results = {};
        for (const server of order) results[server.id] = await sample(load, server, request, settings.requests);
        rounds.push(results);
        log(
          `${request.id} round ${round + 1}/${settings.rounds}: ${APPS.map((a) => `${a.id} ${Math.round(results[a.id].perCpuSecond)} req/CPU-s (${Math.round(results[a.id].rps)} req/s)`).join(", ")}`,
        );
      }
      const perApp = Object.fromEntries(
        APPS.map((app) => [
          app.id,
          {
            perCpuSecond: median(rounds.map((r) => r[app.id].perCpuSecond)),
            rps: median(rounds.map((r) => r[app.id].rps)),
            cpuMicrosPerRequest: median(rounds.map((r) => r[app.id].cpuMicros / r[app.id].requests)),
            minCpuShare: Math.min(...rounds.map((r) => r[app.id].cpuShare)),
          },
        ]),
      );
      // Ratios to zod taken round by round (the samples of a round run side by side), then the median.
      const ratios = Object.fromEntries(
        APPS.filter((app) => app.id !== "zod").map((app) => {
          const each = rounds.map((r) => r[app.id].perCpuSecond / r.zod.perCpuSecond);
          return [app.id, { median: median(each), min: Math.min(...each), max: Math.max(...each) }];
        }),
      );
      throughput.push({ id: request.id, label: request.label, perApp, ratios, rounds });
    }
  } finally {
    for (const server of servers) kill(server.child);
    kill(load);
  }
  const docs = await documents(settings.documents, log);
  const meta = {
    date: new Date().toISOString(),
    mode,
    ...settings,
    connections: CONNECTIONS,
    versions: versions(["zod", "valibot", "arktype", "@valibot/to-json-schema", "hono", "@hono/node-server"]),
    pinning: PINNING ? `servers on core ${PINNING.server}, load generator on core ${PINNING.load}` : "none",
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  return { meta, throughput, documents: docs };
}

const count = (n) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
const ratio = (r) => `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;

function table(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((width, i) => (i === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)];
}

/** The case's Markdown: requests per server CPU-second with the ratios to zod, then the first document. */
export function renderSchemas({ meta, throughput, documents: docs }) {
  const v = meta.versions;
  const lines = [
    `${meta.date.slice(0, 16).replace("T", " ")} UTC (${meta.mode}), ${meta.machine}; ${meta.pinning}.`,
    `specroute ${v.specroute} on Hono ${v.hono} (@hono/node-server ${v["@hono/node-server"]}), \`GET /items/:id\` checks its answer against its response schema (\`this.validateResponse()\`), \`POST /orders\` answers \`c.json(order, 201)\` unchecked; zod ${v.zod}, valibot ${v.valibot} (+ @valibot/to-json-schema ${v["@valibot/to-json-schema"]}), ArkType ${v.arktype}.`,
    `Each sample: ${meta.requests} requests over ${meta.connections} keep-alive connections (Node's http client, one request in flight per connection), after a ${meta.warmUp}-request warm-up per app; ${meta.rounds} round(s), the apps taking turns; medians. Ratios to zod are taken round by round (lowest–highest in brackets).`,
    "",
    "Requests per server CPU-second (higher is better):",
    "",
    ...table(
      ["case", "zod", "valibot", "ArkType", "valibot / zod", "ArkType / zod"],
      throughput.map((t) => [
        t.label,
        count(t.perApp.zod.perCpuSecond),
        count(t.perApp.valibot.perCpuSecond),
        count(t.perApp.arktype.perCpuSecond),
        ratio(t.ratios.valibot),
        ratio(t.ratios.arktype),
      ]),
    ),
    "",
    "Requests per second (wall clock; the load generator and the machine's other work show here):",
    "",
    ...table(
      ["case", "zod", "valibot", "ArkType"],
      throughput.map((t) => [
        t.label,
        count(t.perApp.zod.rps),
        count(t.perApp.valibot.rps),
        count(t.perApp.arktype.rps),
      ]),
    ),
    "",
    `First \`GET /openapi.json\` after start (in-process \`app.fetch\` and reading the body; specroute compiles the routes and builds the document on first use), ${meta.documents} fresh process(es) per app, interleaved; medians (ms):`,
    "",
    ...table(
      ["case", "zod", "valibot", "ArkType", "valibot / zod", "ArkType / zod"],
      [
        ["first GET /openapi.json", "firstMs"],
        ["repeat GET /openapi.json (median of 21)", "repeatMs"],
        ["import + build the app (from process start)", "builtMs"],
      ].map(([label, key]) => [
        label,
        docs.zod[key].toFixed(2),
        docs.valibot[key].toFixed(2),
        docs.arktype[key].toFixed(2),
        `${(docs.valibot[key] / docs.zod[key]).toFixed(2)}×`,
        `${(docs.arktype[key] / docs.zod[key]).toFixed(2)}×`,
      ]),
    ),
  ];
  const busy = throughput.flatMap((t) =>
    APPS.filter((app) => t.perApp[app.id].minCpuShare < 0.8).map(
      (app) => `${t.id}/${app.id} (${(t.perApp[app.id].minCpuShare * 100).toFixed(0)} %)`,
    ),
  );
  if (busy.length > 0)
    lines.push(
      "",
      `⚠ Samples in which the server used less than 80 % of its core (it waited for requests or for the core): ${busy.join(", ")}. Requests per second there say more about the machine than the library.`,
    );
  return lines.join("\n");
}
