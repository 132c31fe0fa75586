// Load for profiling one framework on one benchmark endpoint:
//   node profile.js specroute-hono create [seconds]          over HTTP: the server runs with --cpu-prof and
//                                                           writes results/raw/profiles/<framework>-<endpoint>.cpuprofile
//   node --cpu-prof profile.js specroute-hono create 5 --in-process    app.fetch with the global Request, no HTTP
// Prints requests per second (a rough figure: use `npm run bench` for comparisons).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { TaskStore } from "./apps/shared/db.js";
import { BENCH_DIR, framework } from "./lib/frameworks.js";
import { killAll, PINNING, spawnNode, waitForMessage } from "./lib/processes.js";
import { ENDPOINTS } from "./lib/requests.js";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { "in-process": { type: "boolean" } } });
const [frameworkId = "specroute-hono", endpointId = "create", seconds = "5"] = positionals;
const endpoint = ENDPOINTS.find((e) => e.id === endpointId);
if (!endpoint) throw new Error(`endpoint: one of ${ENDPOINTS.map((e) => e.id).join(", ")}`);
const { module } = framework(frameworkId);

async function inProcess() {
  const { createApp } = await import(pathToFileURL(join(BENCH_DIR, module)).href);
  const app = createApp({ store: new TaskStore() });
  const url = `http://127.0.0.1${endpoint.path}`;
  const deadline = performance.now() + Number(seconds) * 1000;
  let count = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) {
      const init = { method: endpoint.method, headers: endpoint.headers, body: endpoint.body };
      const response = await app.fetch(new Request(url, init));
      await response.text();
      if (response.status !== endpoint.status) throw new Error(`status ${response.status}`);
    }
    count += 100;
  }
  return count / Number(seconds);
}

async function overHttp() {
  const dir = join(BENCH_DIR, "results/raw/profiles");
  const name = `--cpu-prof-name=${frameworkId}-${endpointId}.cpuprofile`;
  const server = spawnNode(join(BENCH_DIR, "lib/server-main.js"), [frameworkId], {
    cpu: PINNING?.server,
    execArgv: ["--cpu-prof", `--cpu-prof-dir=${dir}`, name],
  });
  try {
    const { port } = await waitForMessage(server, "ready", 30_000);
    const { method, headers, body } = endpoint;
    const url = `http://127.0.0.1:${port}${endpoint.path}`;
    const result = await autocannon({ url, method, headers, body, connections: 10, duration: Number(seconds) });
    // Disconnecting lets the server exit normally, which is when node writes the profile.
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.disconnect();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    console.log(`profile: ${join(dir, `${frameworkId}-${endpointId}.cpuprofile`)}`);
    return result.requests.total / result.duration;
  } finally {
    killAll();
  }
}

const rate = values["in-process"] ? await inProcess() : await overHttp();
console.log(`${frameworkId} ${endpoint.name}: ${Math.round(rate)} req/s${values["in-process"] ? " in-process" : ""}`);
