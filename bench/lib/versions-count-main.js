// The child of ab-versions-instructions.js, run under callgrind with instrumentation off: loads the app
// modules it is given, warms each up on the endpoint, then serves `counted` requests of each build in turn
// when the parent says so (the parent switches counting on before and dumps after each).
//   node lib/versions-count-main.js <endpoint> <module,module,...> <warm> <counted>   (IPC messages)
import { pathToFileURL } from "node:url";
import { TaskStore } from "../apps/shared/db.js";
import { ENDPOINTS } from "./requests.js";

const [endpointId, modules, warm, counted] = process.argv.slice(2);
const endpoint = ENDPOINTS.find((e) => e.id === endpointId);
if (!endpoint) throw new Error(`endpoint: one of ${ENDPOINTS.map((e) => e.id).join(", ")}`);
const url = `http://127.0.0.1${endpoint.path}`;
const init = { method: endpoint.method, headers: endpoint.headers, body: endpoint.body };

const apps = [];
for (const module of modules.split(",")) {
  const { createApp } = await import(pathToFileURL(module).href);
  apps.push(createApp({ store: new TaskStore() }));
}

async function serve(app, count) {
  for (let i = 0; i < count; i++) {
    const response = await app.fetch(new Request(url, init));
    await response.text();
    if (response.status !== endpoint.status) throw new Error(`status ${response.status}`);
  }
}

// Warm-up of every build, twice in turn, so each reaches its optimised code before anything is counted.
for (let pass = 0; pass < 2; pass++) for (const app of apps) await serve(app, Number(warm));

const exit = setTimeout(() => process.exit(3), 30 * 60_000);
process.on("message", async ({ serve: index }) => {
  if (index === undefined) {
    clearTimeout(exit);
    process.disconnect();
    return;
  }
  await serve(apps[index], Number(counted));
  process.send({ served: index });
});
process.send({ ready: true });
