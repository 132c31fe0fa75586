// A CPU profile of one framework's Worker inside workerd, taken through workerd's inspector (V8's
// Profiler domain) while the load sends one case's requests:
//
//   node --experimental-websocket workerd-profile.js specroute-hono create 20000
//
// writes results/raw/profiles/workerd-<framework>-<case>.cpuprofile; read it with
// `node lib/profile-summary.js <file> 30` (self and inclusive time per function).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { BENCH_DIR } from "./lib/frameworks.js";
import { ENDPOINTS } from "./lib/requests.js";
import { bundleWorker, freePort, startServing, WORKER_FRAMEWORKS, WORKERD, writeWorker } from "./lib/workerd.js";

const [frameworkId = "specroute-hono", caseId = "create", count = "20000"] = process.argv.slice(2);
const framework = WORKER_FRAMEWORKS.find((candidate) => candidate.id === frameworkId);
const endpoint = ENDPOINTS.find((candidate) => candidate.id === caseId);
if (!framework || !endpoint) {
  const ids = WORKER_FRAMEWORKS.map((candidate) => candidate.id).join("|");
  throw new Error(`usage: workerd-profile.js <${ids}> <get|create|list> [requests]`);
}
const dir = join(BENCH_DIR, "results/raw/profiles");
mkdirSync(dir, { recursive: true });

// Not minified: the profile names functions as the source does.
const { code } = await bundleWorker(framework, { minify: false });
const port = await freePort();
const inspector = await freePort();
const config = writeWorker(join(BENCH_DIR, "results/raw/workerd/profile"), code, port);
const origin = `http://127.0.0.1:${port}`;
const { child } = await startServing(WORKERD, ["serve", config, `--inspector-addr=127.0.0.1:${inspector}`], origin);

try {
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
