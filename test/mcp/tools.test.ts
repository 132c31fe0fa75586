import { Hono } from "hono";
import { Router } from "itty-router";
import { fromHono, fromIttyRouter } from "specroute";
import { serveMcp } from "specroute/mcp";
import { listenOnLoopback } from "../helpers";
import { describeMcpTools, type McpServerUnderTest, mcpRoutes, TOKEN } from "./tools.case";

describeMcpTools("Hono", async (): Promise<McpServerUnderTest> => {
  const seen: string[] = [];
  const app = new Hono<{ Bindings: { TOKEN: string } }>();
  app.use(async (c, next) => {
    seen.push(new URL(c.req.url).pathname);
    await next();
  });
  // Registered by name through the router's public API (any: one function for every method).
  const openapi: any = fromHono(app);
  mcpRoutes((args) => (args[0] as { env: { TOKEN: string } }).env.TOKEN)((method, path, route) =>
    openapi[method](path, route),
  );
  serveMcp(openapi, { expose: { tags: ["public"] } });
  // node-server's own environment (its Node request) comes along: a tool call's request must not read it.
  const server = await listenOnLoopback((request, env) => app.fetch(request, { ...env, TOKEN }));
  // Hono builds its matcher on the first request and takes no route after it.
  return { ...server, seen };
});

describeMcpTools("itty-router", async (): Promise<McpServerUnderTest> => {
  const seen: string[] = [];
  const before = [(request: Request) => void seen.push(new URL(request.url).pathname)];
  const router: any = fromIttyRouter(Router({ before }));
  mcpRoutes((args) => (args[1] as { TOKEN: string }).TOKEN)((method, path, route) => router[method](path, route));
  serveMcp(router, { expose: { tags: ["public"] } });
  const server = await listenOnLoopback(
    async (request) => (await router.fetch(request, { TOKEN })) ?? new Response("no route", { status: 404 }),
  );
  return { ...server, seen, addRoute: (method, path, route) => router[method](path, route) };
});
