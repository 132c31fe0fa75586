// The frameworks under test: one app module each under apps/, all exporting
// createApp({ store }), createWorkerApp() and createGeneratedApp(count). `cases` limits a framework to
// some cases (all when absent).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT_DIR = join(BENCH_DIR, "..");

export const FRAMEWORKS = [
  { id: "baseline", label: "Hono + zod (baseline)", module: "apps/hono-zod.js", document: null },
  { id: "specroute-hono", label: "specroute (Hono)", module: "apps/specroute-hono.js", document: "/openapi.json" },
  {
    id: "specroute-itty",
    label: "specroute (itty-router)",
    module: "apps/specroute-itty.js",
    document: "/openapi.json",
  },
  { id: "chanfana", label: "chanfana (Hono)", module: "apps/chanfana.js", document: "/openapi.json" },
  {
    // The same endpoints with every schema hoisted to module level: only where hoisting changes the work.
    id: "chanfana-hoisted",
    label: "chanfana, schemas hoisted",
    module: "apps/chanfana-hoisted.js",
    document: "/openapi.json",
    cases: ["throughput"],
  },
  { id: "zod-openapi", label: "@hono/zod-openapi", module: "apps/hono-zod-openapi.js", document: "/openapi.json" },
];

/** The frameworks of `frameworks` that run in case `name`. */
export function frameworksFor(frameworks, name) {
  return frameworks.filter((f) => !f.cases || f.cases.includes(name));
}

export function framework(id) {
  const found = FRAMEWORKS.find((f) => f.id === id);
  if (!found) throw new Error(`Unknown framework ${id}; known: ${FRAMEWORKS.map((f) => f.id).join(", ")}`);
  return found;
}

/** Installed versions of the packages the results depend on, for the report. */
export function versions() {
  const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const names = ["hono", "zod", "itty-router", "chanfana", "@hono/zod-openapi", "@hono/node-server"];
  names.push("autocannon", "esbuild", "better-sqlite3");
  const result = { node: process.version, specroute: version(ROOT_DIR) };
  for (const name of names) result[name] = version(join(BENCH_DIR, "node_modules", name));
  return result;
}
