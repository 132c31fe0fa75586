// The Drizzle case: a SQLite list served by DrizzleListEndpoint against the same list served by
// SqlListEndpoint and by a hand-written Hono + Drizzle handler, on one app and one 10k-row database
// (apps/drizzle-list.js). In-process (`app.fetch`), in alternating rounds, in CPU time, so a busy
// machine slows the three alike and the ratios stay readable. Target (issue #24, reported, not
// asserted): the Drizzle endpoint at ≥ 0.9× the hand-written Drizzle handler's rate.
import { cpus, loadavg } from "node:os";
import { TaskStore } from "../../apps/shared/db.js";
import { median } from "../stats.js";

export const VARIANTS = [
  { id: "hand", label: "hand-written Drizzle (Hono)", path: "/hand/tasks" },
  { id: "endpoint", label: "ListEndpoint + hand-written Drizzle", path: "/endpoint/tasks" },
  { id: "drizzle", label: "specroute DrizzleListEndpoint", path: "/drizzle/tasks" },
  { id: "sql", label: "specroute SqlListEndpoint", path: "/sql/tasks" },
];

/**
 * The timed requests: the throughput case's filtered and searched page (SQLite's work dominates), and a
 * first page with no condition (a cheap query, so the framework's own work shows).
 */
export const TIMED = [
  { id: "filtered", query: "?page=2&per_page=20&status=open&search=foo" },
  { id: "first page", query: "?per_page=20" },
];

/** The list requests every variant must answer alike. */
export const QUERIES = [
  "?page=2&per_page=20&status=open&search=foo",
  "",
  "?order_by=priority&order_by_direction=desc&per_page=50",
  "?search=Task%201&order_by=title&page=3",
  "?status=closed&per_page=100&page=34",
];

const TARGET = 0.9;
const SETTINGS = { full: { requests: 2_000, rounds: 7 }, quick: { requests: 300, rounds: 3 } };

/** Sorted-key JSON, so bodies compare regardless of key order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

async function answer(app, path) {
  const response = await app.fetch(new Request(`http://127.0.0.1${path}`));
  return { status: response.status, body: await response.json() };
}

/** Every variant answers every query with the hand-written handler's status and body. */
async function checkConformance(app) {
  for (const query of QUERIES) {
    const expected = await answer(app, `${VARIANTS[0].path}${query}`);
    if (expected.status !== 200 || expected.body.result.length === 0) {
      throw new Error(`drizzle case: the hand-written list answered ${expected.status} to ${query}`);
    }
    for (const variant of VARIANTS.slice(1)) {
      const got = await answer(app, `${variant.path}${query}`);
      if (got.status !== expected.status || canonical(got.body) !== canonical(expected.body)) {
        throw new Error(
          `drizzle case: ${variant.id} answers ${query || "(no query)"} differently from the hand-written list:\n${JSON.stringify(got.body).slice(0, 400)}`,
        );
      }
    }
  }
}

/** CPU nanoseconds per request of `count` sequential requests of `path`. */
async function time(app, path, count) {
  const url = `http://127.0.0.1${path}`;
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const response = await app.fetch(new Request(url));
    await response.text();
    if (response.status !== 200) throw new Error(`${path}: status ${response.status}`);
  }
  // CPU time, not wall time: what other processes take from this one is not counted.
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / count;
}

/**
 * Runs the case and returns `{ meta, rows }`: per variant its CPU ns per request in each round, the
 * median, and its rate's ratio to the hand-written handler's (median and spread over rounds).
 */
export async function runDrizzle({ mode = "full", log = console.log } = {}) {
  const { requests, rounds } = SETTINGS[mode];
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const { createApp } = await import("../../apps/drizzle-list.js");
  const store = new TaskStore();
  const app = createApp({ store });
  await checkConformance(app);
  log(`drizzle | the three lists answer ${QUERIES.length} queries identically`);
  const rows = [];
  for (const timed of TIMED) {
    const path = (variant) => `${variant.path}${timed.query}`;
    // Warm-up: every variant reaches its optimised code before anything is counted.
    for (const variant of VARIANTS) await time(app, path(variant), Math.min(requests, 1_000));
    const ns = Object.fromEntries(VARIANTS.map((variant) => [variant.id, []]));
    for (let round = 0; round < rounds; round++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
      for (const variant of order) ns[variant.id].push(await time(app, path(variant), requests));
      log(
        `drizzle | ${timed.id} round ${round + 1}/${rounds}: ${VARIANTS.map((v) => `${v.id} ${Math.round(ns[v.id][round])} ns`).join(", ")}`,
      );
    }
    for (const variant of VARIANTS) {
      const ratios = ns[variant.id].map((value, i) => ns.hand[i] / value);
      const toSql = ns[variant.id].map((value, i) => ns.sql[i] / value);
      rows.push({
        query: timed.id,
        path: path(variant),
        id: variant.id,
        label: variant.label,
        ns: ns[variant.id],
        medianNs: median(ns[variant.id]),
        ratioToHand: median(ratios),
        ratioSpread: [Math.min(...ratios), Math.max(...ratios)],
        ratioToSql: median(toSql),
      });
    }
  }
  store.close();
  const meta = {
    date: new Date().toISOString(),
    mode,
    requests,
    rounds,
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  const met = rows.filter((row) => row.id === "drizzle").every((row) => row.ratioToHand >= TARGET);
  return { meta, rows, target: { ratio: TARGET, met } };
}

/** The case's Markdown table. */
export function renderDrizzle({ meta, rows, target }) {
  const lines = [
    `${meta.date.slice(0, 16).replace("T", " ")} (${meta.mode}), ${meta.machine}.`,
    `10 000 rows of SQLite (better-sqlite3, in memory), in-process \`app.fetch\`, ${meta.requests} requests × ${meta.rounds} alternating rounds, CPU time, medians.`,
    "",
  ];
  const header = [
    "request",
    "list",
    "CPU µs/request",
    "rate vs hand-written Drizzle (rounds)",
    "rate vs SqlListEndpoint",
  ];
  const cells = rows.map((row) => {
    const spread = `${row.ratioSpread[0].toFixed(2)}–${row.ratioSpread[1].toFixed(2)}`;
    return [
      `\`${TIMED.find((timed) => timed.id === row.query).query}\``,
      row.label,
      (row.medianNs / 1000).toFixed(1),
      `${row.ratioToHand.toFixed(2)}× (${spread})`,
      `${row.ratioToSql.toFixed(2)}×`,
    ];
  });
  // Sized to the widest cell, as biome formats Markdown tables, so a recorded run passes the lint as written.
  const widths = header.map((_, i) => Math.max(3, ...[header, ...cells].map((row) => row[i].length)));
  const line = (row) =>
    `| ${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
  const rule = widths.map((width, i) => (i < 2 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  lines.push(line(header), `| ${rule.join(" | ")} |`, ...cells.map(line));
  const ratios = rows.filter((row) => row.id === "drizzle").map((row) => `${row.ratioToHand.toFixed(2)}×`);
  lines.push(
    "",
    `Target: DrizzleListEndpoint ≥ ${target.ratio}× the hand-written Drizzle handler's rate: ${ratios.join(" and ")} ${target.met ? "✅" : "❌"}.`,
  );
  return lines.join("\n");
}
