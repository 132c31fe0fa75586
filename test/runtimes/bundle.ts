import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Bundles a worker entry as Workers would run it: one ES module, specroute from this repo's source. */
async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [`${root}/${entry}`],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    logLevel: "silent",
    alias: {
      specroute: `${root}/src/index.ts`,
      "specroute/mcp": `${root}/src/mcp/index.ts`,
      "specroute/otel": `${root}/src/otel/index.ts`,
    },
  });
  return result.outputFiles[0]!.text;
}

/** A bundled worker running in real workerd (Miniflare), with a real D1 bound as DB and `schema` applied to it. */
export async function startWorker(
  entry: string,
  options: {
    schema?: string[];
    bindings?: Record<string, string>;
    durableObjects?: Record<string, string>;
    /** Workers Rate Limiting bindings, by name. */
    ratelimits?: Record<string, { simple: { limit: number; period: 10 | 60 } }>;
  } = {},
) {
  const mf = new Miniflare({
    modules: true,
    script: await bundleWorker(entry),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    d1Databases: ["DB"],
    bindings: options.bindings ?? {},
    durableObjects: options.durableObjects ?? {},
    ratelimits: options.ratelimits ?? {},
  });
  const db = await mf.getD1Database("DB");
  for (const statement of options.schema ?? []) await db.prepare(statement).run();
  const fetch = async (path: string, init?: RequestInit) =>
    (await mf.dispatchFetch(`http://localhost${path}`, init as any)) as unknown as Response;
  /** The worker's origin over real HTTP on 127.0.0.1, for clients that hold a stream open. */
  const origin = async () => (await mf.ready).origin;
  return { mf, fetch, origin };
}
