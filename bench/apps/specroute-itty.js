// specroute on itty-router (fromIttyRouter). Endpoints in specroute-endpoints.js.
import { Router } from "itty-router";
import { fromIttyRouter } from "specroute";
import {
  IttyCreateTask,
  registerDbRoutes,
  registerGeneratedRoutes,
  registerTaskRoutes,
} from "./specroute-endpoints.js";

const options = { schema: { info: { title: "Benchmark", version: "1.0.0" } } };

const notFound = (response) => response ?? new Response("Not Found", { status: 404 });

/** A Workers-style `{ fetch }`: itty-router answers undefined when no route matched. */
function worker(router) {
  return { fetch: (request, env, ctx) => router.fetch(request, env, ctx).then(notFound) };
}

/** The three endpoints of the throughput cases: the minimal Workers-style app. */
export function createWorkerApp() {
  const router = fromIttyRouter(Router(), options);
  registerTaskRoutes(router, IttyCreateTask);
  return worker(router);
}

/** The throughput app: the three endpoints plus the SQLite List endpoint. */
export function createApp({ store }) {
  const router = fromIttyRouter(Router(), options);
  registerTaskRoutes(router, IttyCreateTask);
  registerDbRoutes(router, store);
  return worker(router);
}

export function createGeneratedApp(count) {
  const router = fromIttyRouter(Router(), options);
  registerGeneratedRoutes(router, count, IttyCreateTask);
  return worker(router);
}
