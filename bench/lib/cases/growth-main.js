// One fresh process of the growth case: `node lib/cases/growth-main.js <kind> <size>`.
//   routes-hono N | routes-itty N  an app of N generated routes: registration, heap, first document, latency
//   body BYTES                     POST bodies of BYTES bytes: throughput and peak RSS
//   list ROWS                      the SQLite List endpoint, pages of ROWS rows: latency and throughput
// Everything is timed in-process (`app.fetch`), so the numbers are the framework's, not the network's.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { BENCH_DIR } from "../frameworks.js";

process.on("disconnect", () => process.exit(0));
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const [kind, sizeArg] = process.argv.slice(2);
const size = Number(sizeArg);

const LATENCY_SAMPLES = 2000;
const LOAD_MS = 1500;
const CONCURRENCY = 10;

const app = (name) => import(pathToFileURL(join(BENCH_DIR, "apps", name)).href);

/** CPU time (user + system) since `start`, in ms: what the machine's other work disturbs least. */
function cpuMs(start) {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

async function timed(fetchApp, request) {
  const start = performance.now();
  const response = await fetchApp.fetch(request);
  const text = await response.text();
  return { ms: performance.now() - start, status: response.status, text };
}

/** Median in-process latency of GET `first` and of GET `second`, sampled in turn after a warm-up. */
async function p50s(fetchApp, first, second) {
  for (let i = 0; i < 300; i++) {
    for (const url of [first, second]) await (await fetchApp.fetch(new Request(url))).text();
  }
  const samples = [[], []];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    samples[0].push((await timed(fetchApp, new Request(first))).ms);
    samples[1].push((await timed(fetchApp, new Request(second))).ms);
  }
  return samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
}

/** Requests per second with CONCURRENCY requests in flight for LOAD_MS, and the peak RSS meanwhile. */
async function load(fetchApp, makeRequest, expectStatus) {
  const deadline = performance.now() + LOAD_MS;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const response = await fetchApp.fetch(makeRequest());
      await response.arrayBuffer();
      if (response.status !== expectStatus) throw new Error(`answered ${response.status}, expected ${expectStatus}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { perSecond: done / ((performance.now() - start) / 1000), peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

async function routes(module) {
  const { createGeneratedApp } = await app(module);
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const buildStart = performance.now();
  const buildCpu = process.cpuUsage();
  const generated = createGeneratedApp(size);
  const registerCpuMs = cpuMs(buildCpu);
  const registerMs = performance.now() - buildStart;
  gc();
  const heapPerRouteKb = (process.memoryUsage().heapUsed - heapBefore) / size / 1024;

  // The first request builds the router's matcher (and loads the runtime's Request code): apart from the document.
  const first = await timed(generated, new Request("http://127.0.0.1/g0/tasks/1"));
  if (first.status !== 200) throw new Error(`GET /g0/tasks/1 answered ${first.status}`);
  // Other routes' first requests against their second: what compiling a route costs (medians over up to 30
  // routes). The router's matcher is warmed first (V8 compiles a regular expression to machine code on
  // its second use, which on Hono's one expression for every path costs up to 150 ms at 5000 routes,
  // with or without specroute).
  for (let i = 0; i < 5; i++) await timed(generated, new Request("http://127.0.0.1/g0/tasks/1"));
  const routeFirsts = [];
  const routeSeconds = [];
  for (let i = 3; i < size && routeFirsts.length < 30; i += 3) {
    const probe = `http://127.0.0.1/g${i}/tasks/1`;
    const routeFirst = await timed(generated, new Request(probe));
    const routeSecond = await timed(generated, new Request(probe));
    if (routeFirst.status !== 200 || routeSecond.status !== 200)
      throw new Error(`GET ${probe} answered ${routeFirst.status}`);
    routeFirsts.push(routeFirst.ms);
    routeSeconds.push(routeSecond.ms);
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const documentCpu = process.cpuUsage();
  const doc = await timed(generated, new Request("http://127.0.0.1/openapi.json"));
  const firstDocumentCpuMs = cpuMs(documentCpu);
  if (doc.status !== 200) throw new Error(`GET /openapi.json answered ${doc.status}`);
  const operations = Object.values(JSON.parse(doc.text).paths).reduce((n, item) => n + Object.keys(item).length, 0);
  if (operations !== size) throw new Error(`the document has ${operations} operations, expected ${size}`);

  // Route i is GET /g<i>/tasks/:id when i % 3 === 0: the first and the last one registered of that kind.
  const last = size - 1 - ((size - 1) % 3);
  const [firstP50, lastP50] = await p50s(generated, "http://127.0.0.1/g0/tasks/1", `http://127.0.0.1/g${last}/tasks/1`);
  return {
    registerMs,
    registerCpuMs,
    heapPerRouteKb,
    firstRequestMs: first.ms,
    routeFirstMs: median(routeFirsts),
    routeSecondMs: median(routeSeconds),
    firstDocumentMs: doc.ms,
    firstDocumentCpuMs,
    documentBytes: Buffer.byteLength(doc.text),
    firstRouteP50Us: firstP50 * 1000,
    lastRouteP50Us: lastP50 * 1000,
    lastRoute: `GET /g${last}/tasks/:id`,
  };
}

async function body() {
  const { Hono } = await import("hono");
  const { contentJson, fromHono, OpenAPIRoute } = await import("specroute");
  const { z } = await import("zod");
  const Item = z.object({ id: z.number().int(), title: z.string().max(200), done: z.boolean() });
  class ImportTasks extends OpenAPIRoute {
    schema = {
      request: { body: contentJson(z.object({ items: z.array(Item) })) },
      responses: { 200: { description: "How many were read", ...contentJson(z.object({ count: z.number() })) } },
    };
    async handle() {
      const { body } = await this.getValidatedData();
      return { count: body.items.length };
    }
  }
  const hono = new Hono();
  fromHono(hono).post("/import", ImportTasks);

  // As many items as fit in `size` bytes, the first title padded so the body is `size` bytes or just under.
  const itemOf = (id) => ({ id, title: `Task ${id}`, done: id % 2 === 0 });
  const bodyOf = (count) => JSON.stringify({ items: Array.from({ length: count }, (_, i) => itemOf(i + 1)) });
  let low = 1;
  let high = 2;
  while (Buffer.byteLength(bodyOf(high)) <= size) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (Buffer.byteLength(bodyOf(middle)) <= size) low = middle;
    else high = middle;
  }
  const items = Array.from({ length: low }, (_, i) => itemOf(i + 1));
  items[0].title += "x".repeat(Math.min(size - Buffer.byteLength(bodyOf(low)), 200 - items[0].title.length));
  const text = JSON.stringify({ items });
  const bytes = Buffer.byteLength(text);
  const request = () =>
    new Request("http://127.0.0.1/import", {
      method: "POST",
      body: text,
      headers: { "content-type": "application/json", "content-length": String(bytes) },
    });
  const check = await timed(hono, request());
  if (check.status !== 200 || JSON.parse(check.text).count !== items.length) {
    throw new Error(`POST /import answered ${check.status}: ${check.text.slice(0, 200)}`);
  }
  gc();
  const rssBeforeMb = process.memoryUsage().rss / 1024 / 1024;
  const { perSecond, peakRssMb } = await load(hono, request, 200);
  return { bytes, items: items.length, perSecond, mbPerSecond: (perSecond * bytes) / 1e6, rssBeforeMb, peakRssMb };
}

async function list() {
  const { TaskStore } = await import(pathToFileURL(join(BENCH_DIR, "apps/shared/db.js")).href);
  const { createApp } = await app("specroute-hono.js");
  const listing = createApp({ store: new TaskStore() });
  const url = `http://127.0.0.1/db/tasks?page=2&per_page=${size}`;
  const check = await timed(listing, new Request(url));
  const rows = JSON.parse(check.text).result?.length;
  if (check.status !== 200 || rows !== size) throw new Error(`GET ${url} answered ${check.status} with ${rows} rows`);
  const [latency] = await p50s(listing, url, url);
  const latencyUs = latency * 1000;
  const { perSecond } = await load(listing, () => new Request(url), 200);
  return { rows, bytes: Buffer.byteLength(check.text), p50Us: latencyUs, perSecond };
}

try {
  const result =
    kind === "routes-hono"
      ? await routes("specroute-hono.js")
      : kind === "routes-itty"
        ? await routes("specroute-itty.js")
        : kind === "body"
          ? await body()
          : kind === "list"
            ? await list()
            : null;
  if (!result) throw new Error(`unknown growth kind ${kind}`);
  process.send({ type: "result", kind, size, ...result });
} catch (err) {
  process.send({ type: "error", error: String(err?.stack ?? err) });
}
