// Case 5: how the cost grows with the work. Each row is a fresh process (growth-main.js): route tables of
// 10 to 5000 routes (registration, heap per route, first document, latency of the last route), POST
// bodies of 1 KB to 1 MB (throughput, peak RSS) and SQLite list pages of 20 and 100 rows.
// Writes results/growth.{json,md,svg} (quick: growth-quick.*); `npm run bench:record` copies a full run's into the README.
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BENCH_DIR } from "../frameworks.js";
import { PINNING, runToCompletion } from "../processes.js";

const ROUTES = { full: [10, 100, 1000, 5000], quick: [10, 100, 1000] };
const BODIES = [1_000, 100_000, 1_000_000];
const PAGES = [20, 100];

export async function runGrowth({ mode, log }) {
  const loadAtStart = loadavg().map((n) => n.toFixed(2));
  const run = async (kind, size) => {
    const result = await runToCompletion(join(BENCH_DIR, "lib/cases/growth-main.js"), [kind, String(size)], {
      cpu: PINNING?.server,
      timeoutMs: 180_000,
    });
    log(`growth | ${kind} ${size}: ${summary(result)}`);
    return result;
  };
  const rows = { routes: { hono: [], itty: [] }, bodies: [], pages: [] };
  for (const size of ROUTES[mode]) {
    rows.routes.hono.push(await run("routes-hono", size));
    rows.routes.itty.push(await run("routes-itty", size));
  }
  for (const size of BODIES) rows.bodies.push(await run("body", size));
  for (const size of PAGES) rows.pages.push(await run("list", size));

  const meta = {
    date: new Date().toISOString(),
    mode,
    machine: `${cpus().length}× ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadAtStart.join(" ")} at start, ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")} at end`,
  };
  const checks = linearity(rows);
  const name = mode === "full" ? "growth" : "growth-quick";
  const results = join(BENCH_DIR, "results");
  writeFileSync(join(results, `${name}.json`), `${JSON.stringify({ ...meta, rows, checks }, null, 2)}\n`);
  const page = renderGrowth(rows, meta, checks, `${name}.svg`);
  writeFileSync(join(results, `${name}.md`), `# specroute: cost as the work grows\n\n${page}\n`);
  writeFileSync(join(results, `${name}.svg`), renderSvg(rows));
  log(`wrote results/${name}.{json,md,svg}`);
  return { results: rows, checks };
}

function summary(r) {
  if (r.kind.startsWith("routes"))
    return `register ${r.registerCpuMs.toFixed(0)} ms CPU, heap ${r.heapPerRouteKb.toFixed(1)} KiB/route, document ${r.firstDocumentCpuMs.toFixed(0)} ms CPU (${(r.documentBytes / 1024).toFixed(0)} KiB), p50 first/last ${r.firstRouteP50Us.toFixed(1)}/${r.lastRouteP50Us.toFixed(1)} µs`;
  if (r.kind === "body")
    return `${r.perSecond.toFixed(0)} req/s, ${r.mbPerSecond.toFixed(1)} MB/s, peak RSS ${r.peakRssMb.toFixed(0)} MB`;
  return `p50 ${r.p50Us.toFixed(0)} µs, ${r.perSecond.toFixed(0)} req/s, ${r.bytes} B`;
}

/**
 * Linear or better: from the smallest to the largest row, the cost per unit (per route, per byte, per row)
 * may not grow more than 2× (noise and fixed costs spread thin only make it fall), and route latency not at all.
 */
function linearity(rows) {
  const perUnit = (list, value, unit) => list.map((r) => value(r) / unit(r));
  const growth = (values) => values[values.length - 1] / values[0];
  const checks = [];
  const add = (what, factor, limit) => checks.push({ what, factor, linear: factor <= limit });
  const hono = rows.routes.hono;
  const largest = hono[hono.length - 1];
  const fromHundred = hono.filter((r) => r.size >= 100);
  add(
    "registration CPU time per route (100 → largest)",
    growth(
      perUnit(
        fromHundred,
        (r) => r.registerCpuMs,
        (r) => r.size,
      ),
    ),
    2,
  );
  add("heap per route (100 → largest)", growth(fromHundred.map((r) => r.heapPerRouteKb)), 2);
  add(
    "first document CPU time per route (100 → largest)",
    growth(
      perUnit(
        fromHundred,
        (r) => r.firstDocumentCpuMs,
        (r) => r.size,
      ),
    ),
    2,
  );
  add(
    "document bytes per route (10 → largest)",
    growth(
      perUnit(
        hono,
        (r) => r.documentBytes,
        (r) => r.size,
      ),
    ),
    1.2,
  );
  const lastOverFirst = (r) => r.lastRouteP50Us / r.firstRouteP50Us;
  add(`p50 of the last route over the first, Hono (${largest.size} routes)`, lastOverFirst(largest), 1.3);
  add(`p50 of a route, Hono (10 → ${largest.size} routes)`, growth(hono.map((r) => r.lastRouteP50Us)), 1.5);
  add(
    `p50 of the last route over the first, itty-router (${largest.size} routes)`,
    lastOverFirst(rows.routes.itty[rows.routes.itty.length - 1]),
    1.3,
  );
  add("time per body byte (1 KB → 1 MB)", growth(rows.bodies.map((r) => 1 / r.mbPerSecond)), 2);
  add(
    "time per listed row (20 → 100)",
    growth(
      perUnit(
        rows.pages,
        (r) => r.p50Us,
        (r) => r.rows,
      ),
    ),
    1.2,
  );
  return checks;
}

const fmt = (n, digits = 1) => (n >= 100 ? n.toFixed(0) : n.toFixed(digits));

function table(head, lines) {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells, right) =>
    `| ${cells.map((c, i) => (right && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (i > 0 ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [row(head, false), rule, ...lines.map((l) => row(l, true))].join("\n");
}

export function renderGrowth(rows, meta, checks, image) {
  const routeLines = rows.routes.hono.map((h, i) => {
    const t = rows.routes.itty[i];
    return [
      String(h.size),
      fmt(h.registerCpuMs),
      fmt(h.registerCpuMs / h.size, 3),
      fmt(h.heapPerRouteKb),
      fmt(h.firstRequestMs),
      h.routeFirstMs === undefined ? "–" : `${fmt(h.routeFirstMs, 2)} / ${fmt(h.routeSecondMs, 2)}`,
      fmt(h.firstDocumentCpuMs),
      fmt(h.documentBytes / 1024),
      fmt(h.firstRouteP50Us),
      fmt(h.lastRouteP50Us),
      fmt(t.firstDocumentCpuMs),
      fmt(t.lastRouteP50Us),
    ];
  });
  const bodyLines = rows.bodies.map((r) => [
    r.bytes >= 1e6 ? `${fmt(r.bytes / 1e6, 0)} MB` : `${fmt(r.bytes / 1000, 0)} KB`,
    String(r.items),
    fmt(r.perSecond),
    fmt(r.mbPerSecond),
    fmt(r.rssBeforeMb, 0),
    fmt(r.peakRssMb, 0),
  ]);
  const pageLines = rows.pages.map((r) => [
    String(r.rows),
    fmt(r.bytes / 1024),
    fmt(r.p50Us),
    fmt(r.p50Us / r.rows, 2),
    fmt(r.perSecond),
  ]);
  return [
    `Run ${meta.date} (${meta.mode}), ${meta.machine}. Each row is a fresh process; times are in-process (\`app.fetch\` and reading the body), specroute on Hono unless the column says itty-router. Registration and the first document are CPU time (wall time is in \`growth.json\`): on a shared machine it is the figure other work disturbs least.`,
    "",
    `![Cost as the work grows (log-log)](${image})`,
    "",
    "**Route tables** (generated routes, each its own class: get, create and list in turn)",
    "",
    table(
      [
        "routes",
        "register (CPU ms)",
        "CPU ms/route",
        "heap/route (KiB)",
        "1st request (ms)",
        "a route's 1st / 2nd request (ms)",
        "1st document (CPU ms)",
        "document (KiB)",
        "p50 first route (µs)",
        "p50 last route (µs)",
        "itty: 1st document (CPU ms)",
        "itty: p50 last route (µs)",
      ],
      routeLines,
    ),
    "",
    `The latency routes are \`GET /g0/tasks/:id\` (first registered) and \`${rows.routes.hono.at(-1).lastRoute}\` (last registered of that kind); "1st request" is the first request of the process, which builds Hono's matcher; "a route's 1st / 2nd request" is the median over up to 30 other routes of a route's first request (which compiles it) and its second.`,
    "",
    "**POST bodies** (an array of small objects, validated; 10 requests in flight for 1.5 s)",
    "",
    table(["body", "items", "req/s", "MB/s", "RSS before (MB)", "peak RSS (MB)"], bodyLines),
    "",
    "**List pages from SQLite** (`SqlListEndpoint`, 10 000 rows in memory, `?page=2&per_page=N`)",
    "",
    table(["rows", "response (KiB)", "p50 (µs)", "µs/row", "req/s (10 in flight)"], pageLines),
    "",
    "**Linear or better?** (growth of the cost per unit from the smallest to the largest row)",
    "",
    ...checks.map((c) => `- ${c.linear ? "✅" : "❌"} ${c.what}: ×${c.factor.toFixed(2)}`),
  ].join("\n");
}

// ---- the chart: three log-log panels, written by hand ----

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"];

function logRange(values) {
  const positive = values.filter((v) => v > 0);
  return [10 ** Math.floor(Math.log10(Math.min(...positive))), 10 ** Math.ceil(Math.log10(Math.max(...positive)))];
}

function escapeXml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function tickLabel(value) {
  if (value >= 1e6) return `${value / 1e6}M`;
  if (value >= 1e3) return `${value / 1e3}k`;
  return String(value);
}

function panel({ x, y, width, height, title, xLabel, yLabel, series, reference }) {
  const all = series.flatMap((s) => s.points);
  const [xMin, xMax] = logRange(all.map((p) => p[0]));
  const [yMin, yMax] = logRange(all.map((p) => p[1]));
  const left = x + 52;
  const top = y + 28;
  const plotW = width - 64;
  const plotH = height - 200;
  const px = (v) => left + ((Math.log10(v) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * plotW;
  const py = (v) => top + plotH - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH;
  const out = [];
  out.push(
    `<text x="${x + width / 2}" y="${y + 16}" text-anchor="middle" font-weight="bold">${escapeXml(title)}</text>`,
  );
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  for (let v = xMin; v <= xMax * 1.0001; v *= 10) {
    out.push(`<line x1="${px(v)}" y1="${top}" x2="${px(v)}" y2="${top + plotH}" stroke="#eee"/>`);
    out.push(`<text x="${px(v)}" y="${top + plotH + 14}" text-anchor="middle">${tickLabel(v)}</text>`);
  }
  for (let v = yMin; v <= yMax * 1.0001; v *= 10) {
    out.push(`<line x1="${left}" y1="${py(v)}" x2="${left + plotW}" y2="${py(v)}" stroke="#eee"/>`);
    out.push(`<text x="${left - 4}" y="${py(v) + 4}" text-anchor="end">${tickLabel(v)}</text>`);
  }
  out.push(`<text x="${left + plotW / 2}" y="${top + plotH + 30}" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  out.push(
    `<text x="${x + 12}" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 ${x + 12} ${top + plotH / 2})">${escapeXml(yLabel)}</text>`,
  );
  if (reference) {
    // A dashed line of slope 1 (cost ∝ size) through the first point of the reference series.
    const [x0, y0] = reference.points[0];
    const x1 = reference.points[reference.points.length - 1][0];
    out.push(
      `<line x1="${px(x0)}" y1="${py(y0)}" x2="${px(x1)}" y2="${py((y0 * x1) / x0)}" stroke="#777" stroke-dasharray="5 4"/>`,
    );
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = s.points.map(([a, b]) => `${px(a).toFixed(1)},${py(b).toFixed(1)}`).join(" ");
    out.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [a, b] of s.points)
      out.push(`<circle cx="${px(a).toFixed(1)}" cy="${py(b).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = top + plotH + 48 + i * 14;
    out.push(`<line x1="${left}" y1="${ly - 4}" x2="${left + 18}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${left + 24}" y="${ly}">${escapeXml(s.name)}</text>`);
  });
  if (reference) {
    const ly = top + plotH + 48 + series.length * 14;
    out.push(
      `<line x1="${left}" y1="${ly - 4}" x2="${left + 18}" y2="${ly - 4}" stroke="#777" stroke-dasharray="5 4"/>`,
    );
    out.push(
      `<text x="${left + 24}" y="${ly}">linear (∝ size), through the first point of "${escapeXml(reference.name)}"</text>`,
    );
  }
  return out.join("\n");
}

export function renderSvg(rows) {
  const hono = rows.routes.hono;
  const itty = rows.routes.itty;
  const registration = { name: "registration (CPU ms)", points: hono.map((r) => [r.size, r.registerCpuMs]) };
  const routes = panel({
    x: 0,
    y: 0,
    width: 460,
    height: 520,
    title: "Route tables",
    xLabel: "routes",
    yLabel: "value (unit in legend)",
    series: [
      registration,
      { name: "first document (CPU ms)", points: hono.map((r) => [r.size, r.firstDocumentCpuMs]) },
      { name: "document (KiB)", points: hono.map((r) => [r.size, r.documentBytes / 1024]) },
      { name: "heap (MiB)", points: hono.map((r) => [r.size, (r.heapPerRouteKb * r.size) / 1024]) },
      { name: "p50 last route, Hono (µs)", points: hono.map((r) => [r.size, r.lastRouteP50Us]) },
      { name: "p50 last route, itty-router (µs)", points: itty.map((r) => [r.size, r.lastRouteP50Us]) },
    ],
    reference: registration,
  });
  const bodies = panel({
    x: 470,
    y: 0,
    width: 400,
    height: 520,
    title: "POST bodies",
    xLabel: "body (bytes)",
    yLabel: "value (unit in legend)",
    series: [
      { name: "requests per second", points: rows.bodies.map((r) => [r.bytes, r.perSecond]) },
      { name: "MB per second", points: rows.bodies.map((r) => [r.bytes, r.mbPerSecond]) },
      { name: "peak RSS (MB)", points: rows.bodies.map((r) => [r.bytes, r.peakRssMb]) },
    ],
  });
  const pages = panel({
    x: 880,
    y: 0,
    width: 320,
    height: 520,
    title: "SQLite list pages",
    xLabel: "rows per page",
    yLabel: "value (unit in legend)",
    series: [
      { name: "p50 (µs)", points: rows.pages.map((r) => [r.rows, r.p50Us]) },
      { name: "response (KiB)", points: rows.pages.map((r) => [r.rows, r.bytes / 1024]) },
      { name: "req/s (10 in flight)", points: rows.pages.map((r) => [r.rows, r.perSecond]) },
    ],
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1210" height="520" viewBox="0 0 1210 520" font-family="sans-serif" font-size="11">
<rect width="1210" height="520" fill="white"/>
${routes}
${bodies}
${pages}
</svg>
`;
}
