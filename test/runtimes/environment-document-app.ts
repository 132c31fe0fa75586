// A worker whose document follows its bindings (PUBLIC_URL, ENVIRONMENT), on both adapters.
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { fromHono, fromIttyRouter, OpenAPIRoute, type RouterOptions } from "specroute";
import { z } from "zod";

type Ctx = { env: Record<string, unknown> };
const isProduction = ({ env }: Ctx) => env.ENVIRONMENT === "production";

class Tasks extends OpenAPIRoute {
  schema = { operationId: "listTasks", responses: {} };
  async handle() {
    return { tasks: [] };
  }
}

class Debug extends OpenAPIRoute {
  schema = {
    operationId: "debug",
    hidden: isProduction,
    request: { query: z.object({ depth: z.coerce.number().int() }) },
    responses: {},
  };
  async handle() {
    return { dumped: true };
  }
}

const options = (base: string): RouterOptions => ({
  base,
  schema: ({ env }) => ({ info: { title: "Tasks", version: "1" }, servers: [{ url: `${env.PUBLIC_URL}${base}` }] }),
  docsEnabled: (ctx) => !isProduction(ctx),
});

const hono = fromHono(new Hono(), options("/hono"));
hono.get("/tasks", Tasks);
hono.get("/debug", Debug);

const itty = fromIttyRouter(AutoRouter({ base: "/itty" }), options("/itty"));
itty.get("/tasks", Tasks);
itty.get("/debug", Debug);

// Documents are built per isolate: how many each router built so far.
const builds = () => ({ hono: (hono as any).core.documentBuilds, itty: (itty as any).core.documentBuilds });

export default {
  fetch(request: Request, env: unknown, ctx: unknown) {
    const { pathname } = new URL(request.url);
    if (pathname === "/builds") return Response.json(builds());
    return pathname.startsWith("/hono") ? hono.fetch(request, env as any, ctx as any) : itty.fetch(request, env, ctx);
  },
};
