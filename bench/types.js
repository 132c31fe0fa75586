// `npm run types [-- --repeats=3] [-- --routes=200] [-- --keep]`
// How much a typed client costs the editor: generates a 200-route app plus one client call per route
// into a temporary directory, for specroute (its own client, and Hono's hc) and for @hono/zod-openapi
// with hc, type-checks each with `tsc --extendedDiagnostics` and prints check time, type
// instantiations and memory. The apps alone are checked too, so the clients' own share shows.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/build.js";
import { BENCH_DIR, ROOT_DIR } from "./lib/frameworks.js";

const { values } = parseArgs({
  options: {
    repeats: { type: "string", default: "3" },
    routes: { type: "string", default: "200" },
    keep: { type: "boolean", default: false },
  },
});
const REPEATS = Number(values.repeats);
const ROUTES = Number(values.routes);
const GROUP = 10;

const tsc = createRequire(join(ROOT_DIR, "package.json")).resolve("typescript/bin/tsc");

/** The three kinds of route every framework gets, a third each: read by id, create, list. */
const KINDS = ["read", "create", "list"];

const taskSchema = (i) =>
  `const Task${i} = z.object({ id: z.number().int(), title: z.string(), priority: z.number().int(), done: z.boolean(), status: z.enum(["open", "closed"]), due: z.string().nullable() });`;
const paramsSchema = "z.object({ id: z.coerce.number().int() })";
const bodySchema =
  'z.object({ title: z.string().min(1).max(120), email: z.email(), priority: z.number().int().min(1).max(5), done: z.boolean(), status: z.enum(["open", "closed"]), due: z.iso.date().optional() })';
const querySchema =
  'z.object({ page: z.coerce.number().int().min(1).default(1), per_page: z.coerce.number().int().min(1).max(100).default(20), status: z.enum(["open", "closed"]).optional(), search: z.string().optional() })';
const task = (id) => `{ id: ${id}, title: "t", priority: 1, done: false, status: "open" as const, due: null }`;

/** Route `i`: its kind, its path in Hono syntax (relative to its group) and its group. */
function route(i) {
  const kind = KINDS[i % 3];
  const path = kind === "read" ? `/items${i}/:id` : `/items${i}`;
  return { i, kind, path, group: Math.floor(i / GROUP) };
}

const routes = Array.from({ length: ROUTES }, (_, i) => route(i));
const groups = [...new Set(routes.map((r) => r.group))];

function specrouteApp() {
  const lines = [
    'import { Hono } from "hono";',
    'import { contentJson, fromHono, OpenAPIRoute } from "specroute";',
    'import { z } from "zod";',
  ];
  for (const r of routes) {
    lines.push(taskSchema(r.i));
    if (r.kind === "read") {
      lines.push(`class Route${r.i} extends OpenAPIRoute {
  schema = { request: { params: ${paramsSchema} }, responses: { "200": { description: "The task", ...contentJson(Task${r.i}) } } };
  async handle() { const { params } = await this.getValidatedData(); return ${task("Number(params.id)")}; }
}`);
    } else if (r.kind === "create") {
      lines.push(`class Route${r.i} extends OpenAPIRoute {
  schema = { request: { body: contentJson(${bodySchema}) }, responses: { "201": { description: "Created", ...contentJson(Task${r.i}) } } };
  async handle() { const { body } = await this.getValidatedData(); return { ...${task(1)}, title: body.title }; }
}`);
    } else {
      lines.push(`class Route${r.i} extends OpenAPIRoute {
  schema = { request: { query: ${querySchema} }, responses: { "200": { description: "A page", ...contentJson(z.object({ items: z.array(Task${r.i}), page: z.number().int() })) } } };
  async handle() { const { query } = await this.getValidatedData(); return { items: [${task(1)}], page: query.page }; }
}`);
    }
  }
  for (const g of groups) {
    const chain = routes
      .filter((r) => r.group === g)
      .map((r) => `.${r.kind === "create" ? "post" : "get"}("${r.path}", Route${r.i})`)
      .join("\n  ");
    lines.push(`const g${g} = fromHono(new Hono())\n  ${chain};`);
  }
  lines.push(
    `export const app = fromHono(new Hono())\n  ${groups.map((g) => `.route("/g${g}", g${g})`).join("\n  ")};`,
  );
  lines.push("export type App = typeof app;");
  return lines.join("\n");
}

function zodOpenApiApp() {
  const lines = ['import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";'];
  for (const r of routes) {
    lines.push(taskSchema(r.i));
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    if (r.kind === "read") {
      lines.push(
        `const route${r.i} = createRoute({ method: "get", path: "${path}", request: { params: ${paramsSchema} }, responses: { 200: { description: "The task", content: { "application/json": { schema: Task${r.i} } } } } });`,
      );
    } else if (r.kind === "create") {
      lines.push(
        `const route${r.i} = createRoute({ method: "post", path: "${path}", request: { body: { content: { "application/json": { schema: ${bodySchema} } } } }, responses: { 201: { description: "Created", content: { "application/json": { schema: Task${r.i} } } } } });`,
      );
    } else {
      lines.push(
        `const route${r.i} = createRoute({ method: "get", path: "${path}", request: { query: ${querySchema} }, responses: { 200: { description: "A page", content: { "application/json": { schema: z.object({ items: z.array(Task${r.i}), page: z.number().int() }) } } } } });`,
      );
    }
  }
  const handler = (r) =>
    r.kind === "read"
      ? `(c) => { const { id } = c.req.valid("param"); return c.json(${task("id")}, 200); }`
      : r.kind === "create"
        ? `(c) => { const body = c.req.valid("json"); return c.json({ ...${task(1)}, title: body.title }, 201); }`
        : `(c) => { const query = c.req.valid("query"); return c.json({ items: [${task(1)}], page: query.page }, 200); }`;
  for (const g of groups) {
    const chain = routes
      .filter((r) => r.group === g)
      .map((r) => `.openapi(route${r.i}, ${handler(r)})`)
      .join("\n  ");
    lines.push(`const g${g} = new OpenAPIHono()\n  ${chain};`);
  }
  lines.push(`export const app = new OpenAPIHono()\n  ${groups.map((g) => `.route("/g${g}", g${g})`).join("\n  ")};`);
  lines.push("export type App = typeof app;");
  return lines.join("\n");
}

const body = '{ title: "Write", email: "ada@example.com", priority: 2, done: false, status: "open" as const }';

/** One call per route with specroute's client, reading a member of the typed result. */
function specrouteCalls() {
  const lines = ['import { createClient } from "specroute/client";', 'import type { App } from "./app";'];
  lines.push('const api = createClient<App>("http://localhost");');
  for (const g of groups) {
    lines.push(`export async function group${g}() {`);
    for (const r of routes.filter((one) => one.group === g)) {
      const path = `/g${g}${r.path}`;
      if (r.kind === "read") {
        lines.push(`  const r${r.i} = await api.get("${path}", { param: { id: ${r.i} } });`);
        lines.push(`  if (r${r.i}.ok) r${r.i}.data.title.toUpperCase();`);
      } else if (r.kind === "create") {
        lines.push(`  const r${r.i} = await api.post("${path}", { json: ${body} });`);
        lines.push(`  if (r${r.i}.ok) r${r.i}.data.id.toFixed();`);
      } else {
        lines.push(`  const r${r.i} = await api.get("${path}", { query: { page: 2, status: "open" } });`);
        lines.push(`  if (r${r.i}.ok) r${r.i}.data.items[0]?.title.toUpperCase();`);
      }
    }
    lines.push("}");
  }
  return lines.join("\n");
}

/** One call per route with Hono's hc (the same file for specroute's app and @hono/zod-openapi's). */
function hcCalls() {
  const lines = ['import { hc } from "hono/client";', 'import type { App } from "./app";'];
  lines.push('const client = hc<App>("http://localhost");');
  for (const g of groups) {
    lines.push(`export async function group${g}() {`);
    for (const r of routes.filter((one) => one.group === g)) {
      const at = `client.g${g}.items${r.i}`;
      if (r.kind === "read") {
        lines.push(`  const r${r.i} = await ${at}[":id"].$get({ param: { id: "${r.i}" } });`);
        lines.push(`  if (r${r.i}.ok) (await r${r.i}.json()).title.toUpperCase();`);
      } else if (r.kind === "create") {
        lines.push(`  const r${r.i} = await ${at}.$post({ json: ${body} });`);
        lines.push(`  if (r${r.i}.ok) (await r${r.i}.json()).id.toFixed();`);
      } else {
        lines.push(`  const r${r.i} = await ${at}.$get({ query: { page: "2", status: "open" } });`);
        lines.push(`  if (r${r.i}.ok) (await r${r.i}.json()).items[0]?.title.toUpperCase();`);
      }
    }
    lines.push("}");
  }
  return lines.join("\n");
}

/** A project: its files, checked alone with the compiler options an app would use. */
function writeProject(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), `${text}\n`);
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: [],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      paths: {
        specroute: [join(ROOT_DIR, "dist/index.d.ts")],
        "specroute/client": [join(ROOT_DIR, "dist/client.d.ts")],
      },
    },
    files: Object.keys(files),
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
}

const FIGURES = {
  "Check time": "checkSeconds",
  "Total time": "totalSeconds",
  Instantiations: "instantiations",
  Types: "types",
  "Memory used": "memoryKiB",
};

function typecheck(dir) {
  const result = spawnSync(process.execPath, [tsc, "-p", dir, "--extendedDiagnostics"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 600_000,
  });
  const figures = {};
  for (const line of result.stdout.split("\n")) {
    const match = /^([A-Za-z ]+):\s+([\d.]+)(s|K)?\s*$/.exec(line.trim());
    if (match && FIGURES[match[1]]) figures[FIGURES[match[1]]] = Number(match[2]);
  }
  const errors = result.stdout.split("\n").filter((line) => line.includes("error TS"));
  if (result.status !== 0 || errors.length > 0) {
    throw new Error(`tsc reported errors in ${dir}:\n${errors.slice(0, 10).join("\n") || result.stdout.slice(-2000)}`);
  }
  return figures;
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];

function measure(dir) {
  const runs = Array.from({ length: REPEATS }, () => typecheck(dir));
  const figures = {};
  for (const key of Object.values(FIGURES)) figures[key] = median(runs.map((run) => run[key]));
  return figures;
}

const note = ensureBuilt((line) => console.log(line));
mkdirSync(join(BENCH_DIR, "results/raw"), { recursive: true });
const tmp = mkdtempSync(join(BENCH_DIR, "results/raw/types-"));
const cases = [
  { id: "specroute-app", label: "specroute app alone", files: { "app.ts": specrouteApp() } },
  {
    id: "specroute-client",
    label: "specroute app + createClient",
    files: { "app.ts": specrouteApp(), "calls.ts": specrouteCalls() },
  },
  { id: "specroute-hc", label: "specroute app + hc", files: { "app.ts": specrouteApp(), "calls.ts": hcCalls() } },
  { id: "zod-openapi-app", label: "@hono/zod-openapi app alone", files: { "app.ts": zodOpenApiApp() } },
  {
    id: "zod-openapi-hc",
    label: "@hono/zod-openapi app + hc",
    files: { "app.ts": zodOpenApiApp(), "calls.ts": hcCalls() },
  },
];
console.log(`${ROUTES} routes in groups of ${GROUP}, one call per route; median of ${REPEATS} tsc runs (${note})`);
const rows = [];
try {
  for (const one of cases) {
    const dir = join(tmp, one.id);
    writeProject(dir, one.files);
    const figures = measure(dir);
    rows.push({ ...one, ...figures });
    console.log(
      `${one.label.padEnd(32)} check ${figures.checkSeconds.toFixed(2)} s  instantiations ${figures.instantiations}  memory ${Math.round(figures.memoryKiB / 1024)} MiB`,
    );
  }
} finally {
  if (!values.keep) rmSync(tmp, { recursive: true, force: true });
  else console.log(`sources kept in ${tmp}`);
}

const byId = Object.fromEntries(rows.map((row) => [row.id, row]));
const lines = [
  "| case | check time | type instantiations | types | memory |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map(
    (row) =>
      `| ${row.label} | ${row.checkSeconds.toFixed(2)} s | ${row.instantiations.toLocaleString("en")} | ${row.types.toLocaleString("en")} | ${Math.round(row.memoryKiB / 1024)} MiB |`,
  ),
];
const clientShare = (withClient, app) => ({
  checkSeconds: byId[withClient].checkSeconds - byId[app].checkSeconds,
  instantiations: byId[withClient].instantiations - byId[app].instantiations,
});
const shares = [
  ["createClient on specroute", clientShare("specroute-client", "specroute-app")],
  ["hc on specroute", clientShare("specroute-hc", "specroute-app")],
  ["hc on @hono/zod-openapi", clientShare("zod-openapi-hc", "zod-openapi-app")],
];
lines.push("", "The calls' own share (app + calls, minus the app alone):", "");
lines.push("| client | check time | type instantiations |", "| --- | --- | --- |");
for (const [label, share] of shares) {
  lines.push(`| ${label} | ${share.checkSeconds.toFixed(2)} s | ${share.instantiations.toLocaleString("en")} |`);
}
console.log(`\n${lines.join("\n")}`);
mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
writeFileSync(
  join(BENCH_DIR, "results/types.json"),
  JSON.stringify({ routes: ROUTES, repeats: REPEATS, note, rows }, null, 2),
);
