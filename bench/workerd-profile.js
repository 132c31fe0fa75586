// A CPU profile of one framework's Worker inside workerd, taken through workerd's inspector (V8's
// Profiler domain) while the load sends one case's requests:
//
//   node --experimental-websocket workerd-profile.js specroute-hono create 20000
//
// writes results/raw/profiles/workerd-<framework>-<case>.cpuprofile; read it with
// `node lib/profile-summary.js <file> 30` (self and inclusive time per function).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import autocannon from "autocannon";
import { build } from "esbuild";
import { BENCH_DIR, ROOT_DIR } from "./lib/frameworks.js";
import { ENDPOINTS } from "./lib/requests.js";

const [frameworkId = "specroute-hono", caseId = "create", count = "20000"] = process.argv.slice(2);
const MODULES = {
  baseline: "./apps/hono-zod.js",
  "specroute-hono": "./apps/specroute-hono.js",
  "specroute-itty": "./apps/specroute-itty.js",
  chanfana: "./apps/chanfana.js",
  "zod-openapi": "./apps/hono-zod-openapi.js",
};
const endpoint = ENDPOINTS.find((candidate) => candidate.id === caseId);
if (!MODULES[frameworkId] || !endpoint) {
  throw new Error(`usage: workerd-profile.js <${Object.keys(MODULES).join("|")}> <get|create|list> [requests]`);
}
const require = createRequire(join(ROOT_DIR, "package.json"));
const WORKERD = join(require.resolve("workerd/package.json"), "../bin/workerd");
const dir = join(BENCH_DIR, "results/raw/profiles");
mkdirSync(dir, { recursive: true });

const itty = frameworkId === "specroute-itty";
const fetchMember = itty
  ? "async fetch(request, env, ctx) { return (await app.fetch(request, env, ctx)) ?? new Response(null, { status: 404 }); }"
  : "fetch: (request, env, ctx) => app.fetch(request, env, ctx)";
const bundled = await build({
  stdin: {
    contents: `import { createWorkerApp } from "${MODULES[frameworkId]}";\nconst app = createWorkerApp();\nexport default { ${fetchMember} };`,
    resolveDir: BENCH_DIR,
  },
  bundle: true,
  format: "esm",
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  // Not minified: the profile names functions as the source does.
  write: false,
  tsconfigRaw: {},
  logLevel: "silent",
});
const workerDir = join(BENCH_DIR, "results/raw/workerd/profile");
mkdirSync(workerDir, { recursive: true });
writeFileSync(join(workerDir, "worker.js"), bundled.outputFiles[0].text);
const port = 18_000 + Math.floor(Math.random() * 1000);
const inspector = port + 1000;
writeFileSync(
  join(workerDir, "config.capnp"),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
);
`,
);
const child = spawn(WORKERD, ["serve", join(workerDir, "config.capnp"), `--inspector-addr=127.0.0.1:${inspector}`], {
  stdio: "ignore",
});
const origin = `http://127.0.0.1:${port}`;
try {
  for (let attempt = 0; ; attempt++) {
    if (attempt === 400) throw new Error("workerd did not answer");
    try {
      await (await fetch(`${origin}/__ready`)).arrayBuffer();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const targets = await (await fetch(`http://127.0.0.1:${inspector}/json`)).json();
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map();
  socket.onmessage = (message) => {
    const reply = JSON.parse(message.data);
    if (reply.id && pending.has(reply.id)) {
      pending.get(reply.id)(reply);
      pending.delete(reply.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  const load = (amount) =>
    new Promise((resolve, reject) =>
      autocannon(
        {
          url: `${origin}${endpoint.path}`,
          method: endpoint.method,
          headers: endpoint.headers,
          body: endpoint.body,
          connections: 8,
          amount,
        },
        (err, result) => (err ? reject(err) : resolve(result)),
      ),
    );
  await load(2_000);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 50 });
  await send("Profiler.start");
  await load(Number(count));
  const { result } = await send("Profiler.stop");
  const file = join(dir, `workerd-${frameworkId}-${caseId}.cpuprofile`);
  writeFileSync(file, JSON.stringify(result.profile));
  console.log(file);
  socket.close();
} finally {
  child.kill("SIGKILL");
}
