// In-process A/B: `app.fetch(request)` timed for several frameworks in the same process, in
// alternating rounds, so a busy machine slows every framework alike and the ratios stay readable.
//   node ab.js [endpoint=create] [frameworks=baseline,specroute-hono,specroute-itty] [requests=200000] [rounds=5]
// A framework may also be given as the path of an app module (another checkout's, to compare versions).
// Prints, per framework, CPU ns per request in each round, and the ratio of its rate to the first
// framework's (median and min–max over rounds). Requests are built like @hono/node-server's lightweight
// ones (headers and body held as given, the body handed out once), so the global Request's own cost
// (larger than a whole request of the baseline) does not dilute the ratios; `--global-request` uses it.
// HTTP parsing and writing are not in it: confirm a finding over HTTP with `npm run bench`.
// `--before=create,get` first serves those endpoints (as the bench's long-lived servers have, by the
// time they serve later endpoints), to see what code shared between endpoints does to this one.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { getRequestListener } from "@hono/node-server";
import { TaskStore } from "./apps/shared/db.js";
import { BENCH_DIR, framework } from "./lib/frameworks.js";
import { ENDPOINTS } from "./lib/requests.js";
import { median } from "./lib/stats.js";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { "global-request": { type: "boolean" }, before: { type: "string" } },
});
const [endpointId = "create", ids = "baseline,specroute-hono,specroute-itty", n = "200000", r = "5"] = positionals;
const endpoint = ENDPOINTS.find((e) => e.id === endpointId);
if (!endpoint) throw new Error(`endpoint: one of ${ENDPOINTS.map((e) => e.id).join(", ")}`);
const requests = Number(n);
const rounds = Number(r);

const apps = [];
for (const id of ids.split(",")) {
  // A framework id, or the path of an app module (e.g. the same app in another checkout, to compare versions).
  const module = id.includes("/") ? resolve(id) : join(BENCH_DIR, framework(id).module);
  const { createApp } = await import(pathToFileURL(module).href);
  apps.push({ id, app: createApp({ store: new TaskStore() }), ns: [] });
}

// node-server's lightweight Request and Response, installed as the server installs them; a response's body
// is read from its cache, as node-server writes it, not through the global Response it would otherwise build.
if (!flags["global-request"]) getRequestListener(() => undefined);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BODY = Symbol("body");
const USED = Symbol("used");

/** One read of the body, as node-server's lightweight request gives it: a copy of the bytes, or their text. */
function take(request) {
  if (request[USED] || request[BODY] === undefined) return Promise.reject(new TypeError("Body is unusable"));
  request[USED] = true;
  return Promise.resolve(request[BODY]);
}

// Modeled on @hono/node-server's lightweight request (its prototype is Request.prototype, its fields its own).
const lightPrototype = Object.create(Request.prototype, {
  method: {
    get: function () {
      return this.m;
    },
  },
  url: {
    get: function () {
      return this.u;
    },
  },
  headers: {
    get: function () {
      this.h ??= new Headers(this.hi);
      return this.h;
    },
  },
  bodyUsed: {
    get: function () {
      return this[USED] === true;
    },
  },
  body: { get: () => null },
  text: {
    value: function () {
      return take(this).then((bytes) => decoder.decode(bytes));
    },
  },
  json: {
    value: function () {
      return this.text().then(JSON.parse);
    },
  },
  arrayBuffer: {
    value: function () {
      return take(this).then((bytes) => bytes.slice().buffer);
    },
  },
});

/** A function making requests of `target`, lightweight or global ones. */
function requestsOf(target) {
  const url = `http://127.0.0.1${target.path}`;
  if (flags["global-request"]) {
    const init = { method: target.method, headers: target.headers, body: target.body };
    return () => new Request(url, init);
  }
  const bytes = target.body === undefined ? undefined : encoder.encode(target.body);
  const headers = { ...target.headers, ...(bytes ? { "content-length": String(bytes.byteLength) } : {}) };
  return () => {
    const request = Object.create(lightPrototype);
    request.m = target.method;
    request.u = url;
    request.hi = headers;
    request[BODY] = bytes;
    return request;
  };
}

const cacheOf = (response) => {
  const key = Object.getOwnPropertySymbols(response).find((symbol) => symbol.description === "cache");
  return key && response[key];
};

async function read(response) {
  const cached = cacheOf(response);
  if (!cached) return response.text();
  const [, body, headers] = cached;
  if (headers instanceof Headers) for (const _ of headers);
  return body;
}

async function time(app, count, target = endpoint) {
  const newRequest = requestsOf(target);
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const response = await app.fetch(newRequest());
    await read(response);
    if (response.status !== target.status) throw new Error(`status ${response.status}`);
  }
  // CPU time, not wall time: what other processes take from this one is not counted.
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / count;
}

for (const id of flags.before?.split(",") ?? []) {
  const other = ENDPOINTS.find((e) => e.id === id);
  if (!other) throw new Error(`--before: endpoints among ${ENDPOINTS.map((e) => e.id).join(", ")}`);
  for (const entry of apps) await time(entry.app, Math.min(requests, 50_000), other);
}
// Warm-up: every app reaches its optimised code before anything is counted.
for (const entry of apps) await time(entry.app, Math.min(requests, 20_000));
for (let round = 0; round < rounds; round++) {
  const order = apps.map((_, i) => apps[(i + round) % apps.length]);
  for (const entry of order) entry.ns.push(await time(entry.app, requests));
}

const [reference] = apps;
const after = flags.before ? `, after serving ${flags.before}` : "";
console.log(`${endpoint.name}: ${requests} requests × ${rounds} rounds, in-process${after}`);
for (const entry of apps) {
  const ratios = entry.ns.map((ns, i) => reference.ns[i] / ns);
  const spread = `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`;
  console.log(
    `${entry.id.slice(-40).padEnd(18)} ${entry.ns.map((ns) => Math.round(ns)).join(" ")} ns/req; ` +
      `${(median(ratios)).toFixed(3)}× ${reference.id} (rounds ${spread})`,
  );
}
