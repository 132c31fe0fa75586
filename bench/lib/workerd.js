// What the workerd cases share: the Workers measured, each bundled as an app would bundle it, and the
// workerd binary Miniflare installs, started on a config written next to the Worker.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { build } from "esbuild";
import { BENCH_DIR, ROOT_DIR } from "./frameworks.js";

const require = createRequire(join(ROOT_DIR, "package.json"));
export const WORKERD = join(require.resolve("workerd/package.json"), "../bin/workerd");
/** The workerd release measured, for the report. */
export const WORKERD_VERSION = require("workerd/package.json").version;

/** The Workers measured: the module each is built from, and how its app becomes a Worker. */
export const WORKER_FRAMEWORKS = [
  { id: "baseline", name: "bare Hono + zod", module: "./apps/hono-zod.js" },
  // `document`: it serves an OpenAPI document (the first-document case); `itty`: itty-router answers
  // nothing for an unmatched path.
  { id: "specroute-hono", name: "specroute on Hono", module: "./apps/specroute-hono.js", document: true },
  {
    id: "specroute-itty",
    name: "specroute on itty-router",
    module: "./apps/specroute-itty.js",
    itty: true,
    document: true,
  },
  { id: "chanfana", name: "chanfana 3", module: "./apps/chanfana.js", document: true },
  { id: "zod-openapi", name: "@hono/zod-openapi", module: "./apps/hono-zod-openapi.js", document: true },
  // Not in workerd.js's table: what itty-router's own routing costs, beside specroute on itty-router.
  { id: "itty-zod", name: "bare itty-router + zod", module: "./apps/itty-zod.js", itty: true, requestsOnly: true },
];

/** The Worker module for `framework`'s app (`factory`: the 3-route app, or the 200-route one); none: the empty Worker. */
export function workerSource(framework, factory = "worker") {
  if (!framework) return 'export default { fetch: () => new Response("ok") };';
  const name = factory === "generated" ? "createGeneratedApp" : "createWorkerApp";
  const app = factory === "generated" ? "createGeneratedApp(200)" : "createWorkerApp()";
  // itty-router answers nothing for an unmatched path; the Worker answers 404 then, as the Node case does.
  const fetch = framework.itty
    ? "async fetch(request, env, ctx) { return (await app.fetch(request, env, ctx)) ?? new Response(null, { status: 404 }); }"
    : "fetch: (request, env, ctx) => app.fetch(request, env, ctx)";
  return `import { ${name} } from "${framework.module}";\nconst app = ${app};\nexport default { ${fetch} };`;
}

/**
 * The Worker bundled as an app bundles it (esbuild, the Workers conditions); `minify: false` keeps names
 * for profiles, `dist` takes specroute from another build's directory (inside the repository, so that
 * its imports resolve).
 */
export async function bundleWorker(framework, { factory = "worker", minify = true, dist } = {}) {
  const result = await build({
    stdin: { contents: workerSource(framework, factory), resolveDir: BENCH_DIR, sourcefile: "worker.js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    minify,
    write: false,
    metafile: true,
    // As an app bundles it: specroute from its package (dist/), not the repository tsconfig's paths to src/.
    tsconfigRaw: {},
    alias: dist ? { specroute: join(dist, "index.js") } : {},
    logLevel: "silent",
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Writes `code` and a workerd config serving it on `port` into `dir` (V8 started with `v8Flags`); returns the config's path. */
export function writeWorker(dir, code, port, { v8Flags = [] } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "worker.js"), code);
  const config = join(dir, "config.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
  v8Flags = ${JSON.stringify(v8Flags)},
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
);
`,
  );
  return config;
}

/**
 * Runs `command` (workerd under a prefix such as taskset or valgrind) and resolves once `origin + probe`
 * answers, with the process and that first answer; rejects when it exits or stays silent for `timeoutMs`.
 */
export async function startServing(command, args, origin, { probe = "/__ready", timeoutMs = 10_000 } = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-65536);
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`workerd exited: ${stderr}`);
    try {
      const response = await fetch(`${origin}${probe}`);
      return { child, first: { status: response.status, text: await response.text() } };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`workerd did not answer within ${timeoutMs} ms: ${stderr}`);
}
