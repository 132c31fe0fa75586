// Turns case results into rows ({case, framework, value, unit, ratio_to_baseline}), target checks,
// and the Markdown tables printed to the console and written to results/latest.md.
import { ENDPOINTS } from "./requests.js";

const CHANFANA = "chanfana";
const BASELINE = "baseline";
const SPECROUTE = ["specroute-hono", "specroute-itty"];
/** Least throughput ratio to the baseline each specroute adapter aims at (issue #15). */
// Per endpoint. On Hono the GETs at the limit and POST within 5 % of it (it refuses undeclared types,
// oversized bodies and invalid UTF-8, which the baseline does not check); itty-router routes and parses
// the URL itself, work the target against bare Hono absorbs.
const THROUGHPUT_TARGET = {
  "specroute-hono": { get: 1.0, create: 0.95, list: 1.0, "db-list": 1.0 },
  "specroute-itty": { get: 0.9, create: 0.9, list: 0.9, "db-list": 0.9 },
};
const P99_TARGET = 1.1;

const round = (value, digits) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

function formatValue(value, unit) {
  if (!Number.isFinite(value)) return "n/a";
  if (unit === "req/s" || unit === "req/CPU-s")
    return value >= 1000 ? `${(value / 1000).toFixed(1)}k` : value.toFixed(0);
  if (unit === "bytes") return value >= 1024 ? `${(value / 1024).toFixed(1)} KiB` : `${value} B`;
  if (unit === "ms") return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
  return String(value);
}

/** The case groups of the report: each names its baseline framework and its measures. */
function groups(outcome) {
  const list = [];
  const { throughput, document, coldStart, bundle } = outcome;
  if (throughput) {
    const measures = [
      ["throughput", "req/s", "rps", "req/s, higher is better"],
      ["p99 latency", "ms", "p99", "ms, lower is better"],
      ["server CPU efficiency", "req/CPU-s", "reqPerCpuSecond", "requests per server CPU-second, higher is better"],
    ];
    for (const [title, unit, key, note] of measures) {
      list.push({
        title: `${title[0].toUpperCase()}${title.slice(1)} (${note})`,
        baseline: BASELINE,
        unit,
        key,
        cases: ENDPOINTS.map((endpoint) => ({
          name: `${endpoint.name} — ${title}`,
          label: endpoint.name,
          values: mapValues(throughput.results[endpoint.id], (r) => r[key]),
          spreads: mapValues(throughput.results[endpoint.id], (r) => r.spread),
        })),
      });
    }
  }
  if (document) {
    const r = document.results;
    list.push({
      title: "OpenAPI document of 200 routes (ms, in-process, fresh process per sample; ratio to chanfana)",
      baseline: CHANFANA,
      unit: "ms",
      cases: [
        ["first GET /openapi.json", (x) => x.firstMs],
        ["repeat GET /openapi.json (median)", (x) => x.repeatMedianMs],
        ["repeat GET /openapi.json (p99)", (x) => x.repeatP99Ms],
        ["registering the 200 routes", (x) => x.buildMs],
        ["registering + first GET /openapi.json", (x) => x.buildAndFirstMs],
      ].map(([label, pick]) => ({ name: `OpenAPI 200 routes — ${label}`, label, values: mapValues(r, pick) })),
    });
    list.push({
      title: "OpenAPI document of 200 routes, size (JSON bytes; ratio to chanfana)",
      baseline: CHANFANA,
      unit: "bytes",
      cases: [["GET /openapi.json body", (x) => x.bytes]].map(([label, pick]) => ({
        name: `OpenAPI 200 routes — ${label}`,
        label,
        values: mapValues(r, pick),
      })),
    });
  }
  if (coldStart) {
    const r = coldStart.results;
    list.push({
      title: "Cold start, 50-route app (ms from process start, fresh process; ratio to baseline)",
      baseline: BASELINE,
      unit: "ms",
      cases: [
        ["import + build the app", (x) => x.readyMs],
        ["... + first in-process response", (x) => x.firstResponseMs],
      ].map(([label, pick]) => ({ name: `Cold start 50 routes — ${label}`, label, values: mapValues(r, pick) })),
    });
  }
  if (bundle) {
    const r = bundle.results;
    list.push({
      title: "Bundle of a 3-endpoint Workers app (esbuild, minified ESM; ratio to chanfana)",
      baseline: CHANFANA,
      unit: "bytes",
      cases: [
        ["minified", (x) => x.bytes],
        ["minified + gzip", (x) => x.gzipBytes],
        ["framework's own code, minified (no zod/hono/itty-router, no app code)", (x) => x.ownBytes],
      ].map(([label, pick]) => ({ name: `Bundle 3 endpoints — ${label}`, label, values: mapValues(r, pick) })),
    });
  }
  return list;
}

function mapValues(object, fn) {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}

export function buildRows(outcome) {
  const rows = [];
  const baselines = {};
  for (const group of groups(outcome)) {
    for (const c of group.cases) {
      baselines[c.name] = group.baseline;
      const base = c.values[group.baseline];
      for (const [framework, value] of Object.entries(c.values)) {
        const digits = group.unit === "ms" ? 3 : 0;
        const spread = c.spreads?.[framework];
        const row = {
          case: c.name,
          framework,
          value: round(value, digits),
          unit: group.unit,
          ratio_to_baseline: round(value / base, 3),
        };
        if (spread?.[group.key]) {
          row.min = round(spread[group.key].min, digits);
          row.max = round(spread[group.key].max, digits);
        }
        const ratio = spread?.[`${group.key}Ratio`];
        if (ratio) row.round_ratio_to_baseline = { min: round(ratio.min, 3), max: round(ratio.max, 3) };
        rows.push(row);
      }
    }
  }
  return { rows, baselines };
}

/** The targets of the bench issue, checked for each specroute adapter. */
export function checkTargets(outcome) {
  const checks = [];
  const add = (target, framework, met, detail) => checks.push({ target, framework, met, detail });
  for (const id of SPECROUTE) {
    const { throughput, document, coldStart, bundle } = outcome;
    if (throughput?.results[ENDPOINTS[0].id]?.[id]) {
      // On the baseline's own router nothing over hand-written validation; itty-router routes (and parses
      // the URL) itself, so it may lose a little to Hono.
      const least = THROUGHPUT_TARGET[id];
      const floors = [...new Set(Object.values(least))].map((value) => value.toFixed(2)).join("/");
      const measures = [
        [
          "rps",
          `throughput ≥ ${floors}× baseline (per endpoint)`,
          (e, r) => r >= least[e.id],
          (e, r) => r / least[e.id],
        ],
        [
          "reqPerCpuSecond",
          `requests per server CPU-second ≥ ${floors}× baseline (per endpoint)`,
          (e, r) => r >= least[e.id],
          (e, r) => r / least[e.id],
        ],
        [
          "p99",
          `p99 latency ≤ ${P99_TARGET}× baseline on every endpoint`,
          (_e, r) => r <= P99_TARGET,
          (_e, r) => P99_TARGET / r,
        ],
      ];
      for (const [key, target, met, margin] of measures) {
        const ratios = ENDPOINTS.map((e) => [
          e,
          throughput.results[e.id][id][key] / throughput.results[e.id][BASELINE][key],
        ]);
        // The endpoint furthest below (or least above) its own target.
        const [worstEndpoint, worst] = ratios.reduce((a, b) => (margin(b[0], b[1]) < margin(a[0], a[1]) ? b : a));
        const all = ratios.every(([e, r]) => met(e, r));
        const goal = key === "p99" ? "" : ` against ${least[worstEndpoint.id].toFixed(2)}×`;
        add(target, id, all, `furthest from it: ${worst.toFixed(2)}×${goal} (${worstEndpoint.name})`);
      }
    }
    if (document?.results[id]) {
      const mine = document.results[id];
      const repeat = mine.repeatMedianMs;
      add("repeat GET /openapi.json < 1 ms", id, repeat < 1, `${repeat.toFixed(3)} ms median`);
      const chanfana = document.results[CHANFANA];
      if (chanfana) {
        const size = mine.bytes / chanfana.bytes;
        add(
          "document no larger than chanfana's (every answer listed)",
          id,
          size <= 1,
          `${size.toFixed(2)}× (${(mine.bytes / 1024).toFixed(0)} vs ${(chanfana.bytes / 1024).toFixed(0)} KiB)`,
        );
        // Registration and the first document together: specroute compiles routes when first needed (the
        // first document), chanfana builds its schemas when routes are registered.
        const mineMs = mine.buildAndFirstMs ?? mine.firstMs;
        const theirsMs = chanfana.buildAndFirstMs ?? chanfana.firstMs;
        const ratio = mineMs / theirsMs;
        add(
          "first document generation (registration included) ≤ 0.5× chanfana",
          id,
          ratio <= 0.5,
          `${ratio.toFixed(2)}× (${mineMs.toFixed(1)} vs ${theirsMs.toFixed(1)} ms)`,
        );
      }
    }
    if (coldStart?.results[id] && coldStart.results[BASELINE]) {
      const extra = coldStart.results[id].readyMs - coldStart.results[BASELINE].readyMs;
      add("cold start ≤ baseline + 30 ms", id, extra <= 30, `baseline ${extra >= 0 ? "+" : ""}${extra.toFixed(1)} ms`);
    }
    if (bundle?.results[id] && bundle.results[CHANFANA]) {
      const ratio = bundle.results[id].gzipBytes / bundle.results[CHANFANA].gzipBytes;
      add(
        "bundle gzip ≤ 0.5× chanfana",
        id,
        ratio <= 0.5,
        `${ratio.toFixed(2)}× (${bundle.results[id].gzipBytes} vs ${bundle.results[CHANFANA].gzipBytes} B)`,
      );
      const own = bundle.results[id].ownBytes / bundle.results[CHANFANA].ownBytes;
      add(
        "(variant) framework's own code ≤ 0.5× chanfana's",
        id,
        own <= 0.5,
        `${own.toFixed(2)}× (${bundle.results[id].ownBytes} vs ${bundle.results[CHANFANA].ownBytes} B minified)`,
      );
    }
  }
  return checks;
}

/** Markdown tables (console and results/latest.md): one row per case, one column per framework. */
export function renderMarkdown({ outcome, frameworks, meta, targets }) {
  const lines = [];
  lines.push(`Run ${meta.date} (${meta.mode}), ${meta.machine}; ${meta.method}.`, "");
  for (const group of groups(outcome)) {
    const present = frameworks.filter(({ id }) => group.cases.some((c) => c.values[id] !== undefined));
    lines.push(`### ${group.title}`, "");
    const rows = group.cases.map((c) => {
      const base = c.values[group.baseline];
      const cells = present.map(({ id }) => {
        const value = c.values[id];
        if (value === undefined) return "—";
        return `${formatValue(value, group.unit)} (${(value / base).toFixed(2)})`;
      });
      return [c.label, ...cells];
    });
    lines.push(...table(["case", ...present.map((f) => f.label)], rows), "");
  }
  if (outcome.throughput) lines.push(...spreadTables(outcome.throughput, frameworks));
  if (targets.length > 0) {
    lines.push("### Targets", "");
    for (const t of targets)
      lines.push(`- ${t.met ? "✅ met" : "❌ missed"}: ${t.target} — ${t.framework}: ${t.detail}`);
    lines.push("");
  }
  return lines.join("\n");
}

/**
 * The spread of the throughput rounds (the tables above show medians): each framework's lowest and
 * highest round, and in brackets its lowest and highest ratio to the baseline's round run beside it.
 * Then the rounds flagged as drifted, whose ratios cannot be trusted.
 */
function spreadTables(throughput, frameworks) {
  const lines = [];
  const present = frameworks.filter(({ id }) => throughput.results[ENDPOINTS[0].id]?.[id]);
  const measures = [
    ["req/s", "rps"],
    ["req/CPU-s", "reqPerCpuSecond"],
  ];
  for (const [unit, key] of measures) {
    lines.push(`### Spread of rounds, ${unit}: lowest–highest round (ratio to the same round's baseline)`, "");
    const rows = ENDPOINTS.map((endpoint) => [
      endpoint.name,
      ...present.map(({ id }) => {
        const spread = throughput.results[endpoint.id][id]?.spread;
        const values = spread?.[key];
        const ratios = spread?.[`${key}Ratio`];
        if (!values || !ratios) return "—";
        const span = `${formatValue(values.min, unit)}–${formatValue(values.max, unit)}`;
        return `${span} (${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)})`;
      }),
    ]);
    lines.push(...table(["case", ...present.map((f) => f.label)], rows), "");
  }
  const drifted = throughput.samples.filter((s) => s.drift);
  lines.push("### Drifted rounds", "");
  if (drifted.length === 0)
    lines.push("None: no round lay 15% or more off its framework's other rounds at full server CPU.");
  for (const s of drifted) {
    const name = ENDPOINTS.find((e) => e.id === s.endpoint)?.name ?? s.endpoint;
    lines.push(`- ⚠ ${name}, ${s.framework}, round ${s.round + 1}: ${s.drift}; its ratios are suspect.`);
  }
  lines.push("");
  return lines;
}

/** A Markdown table with padded columns (as biome formats it): the first left-aligned, the others right-aligned. */
export function table(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const pad = (cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]));
  const line = (row) => `| ${row.map(pad).join(" | ")} |`;
  const rule = widths.map((width, i) => (i === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
  return [line(header), `| ${rule.join(" | ")} |`, ...rows.map(line)];
}
