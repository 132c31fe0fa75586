// specroute on Hono (fromHono). Endpoints in specroute-endpoints.js.
import { Hono } from "hono";
import { fromHono } from "specroute";
import { registerDbRoutes, registerGeneratedRoutes, registerTaskRoutes } from "./specroute-endpoints.js";

const options = { schema: { info: { title: "Benchmark", version: "1.0.0" } } };

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const app = new Hono();
  registerTaskRoutes(fromHono(app, options));
  return app;
}

/** The throughput app: the three endpoints plus the SQLite List endpoint. */
export function createApp({ store }) {
  const app = new Hono();
  const openapi = fromHono(app, options);
  registerTaskRoutes(openapi);
  registerDbRoutes(openapi, store);
  return app;
}

export function createGeneratedApp(count) {
  const app = new Hono();
  registerGeneratedRoutes(fromHono(app, options), count);
  return app;
}
