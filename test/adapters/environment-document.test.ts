import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromHono, fromIttyRouter, OpenAPIRoute, type OpenAPIRouteClass, type RouterOptions } from "../../src/index";

type Env = Record<string, unknown>;

class ListTasks extends OpenAPIRoute {
  schema = { operationId: "listTasks", request: { query: z.object({ page: z.coerce.number().int() }) }, responses: {} };
  async handle() {
    return { ok: true };
  }
}

class DebugDump extends OpenAPIRoute {
  schema = {
    operationId: "debugDump",
    hidden: ({ env }: { env: Env }) => env.ENVIRONMENT === "production",
    request: { query: z.object({ depth: z.coerce.number().int() }) },
    responses: {},
  };
  async handle() {
    return { dumped: true };
  }
}

class AlwaysIgnored extends OpenAPIRoute {
  schema = { operationId: "alwaysIgnored", hidden: true, responses: {} };
  async handle() {
    return { ok: true };
  }
}

const servers = ({ env }: { env: Env }) => ({
  info: { title: "Tasks", version: "1" },
  servers: [{ url: String(env.PUBLIC_URL) }],
});

const isProduction = ({ env }: { env: Env }) => env.ENVIRONMENT === "production";

/** What the suite registers through: the one registration method both wrappers share. */
type Registers = { get(path: string, ...handlers: Array<OpenAPIRouteClass>): unknown };

/** Both adapters, built the same way: `call(path, env)` answers as the deployed router would. */
const adapters: Record<
  string,
  (options: RouterOptions) => { openapi: Registers; call: (path: string, env: Env) => Promise<Response> }
> = {
  hono: (options: RouterOptions) => {
    const openapi = fromHono(new Hono(), options);
    return {
      openapi,
      call: (path: string, env: Env) => openapi.fetch(new Request(`http://x${path}`), env) as Promise<Response>,
    };
  },
  itty: (options: RouterOptions) => {
    const openapi = fromIttyRouter(AutoRouter(), options);
    return {
      openapi,
      call: (path: string, env: Env) => openapi.fetch(new Request(`http://x${path}`), env) as Promise<Response>,
    };
  },
};

const staging = { PUBLIC_URL: "https://staging.example.com", ENVIRONMENT: "staging" };
const production = { PUBLIC_URL: "https://api.example.com", ENVIRONMENT: "production" };

describe.each(Object.entries(adapters))("the document follows the environment on %s", (_name, make) => {
  it("two environments get two documents, each built once and then served from cache", async () => {
    let schemaCalls = 0;
    const { openapi, call } = make({
      schema: (ctx) => {
        schemaCalls++;
        return servers(ctx);
      },
    });
    openapi.get("/tasks", ListTasks);
    const serversOf = async (env: Env) => ((await (await call("/openapi.json", env)).json()) as any).servers;

    expect(await serversOf(staging)).toEqual([{ url: "https://staging.example.com" }]);
    expect(await serversOf(production)).toEqual([{ url: "https://api.example.com" }]);
    expect(await serversOf(staging)).toEqual([{ url: "https://staging.example.com" }]);
    expect(await serversOf(production)).toEqual([{ url: "https://api.example.com" }]);
    // The function runs per request (it is the cache key); the document is built once per distinct result.
    expect(schemaCalls).toBe(4);
    expect((openapi as any).core.documentBuilds).toBe(2);
    const yaml = await (await call("/openapi.yaml", production)).text();
    expect(yaml).toContain("https://api.example.com");
  });

  it("a route hidden in production is left out of that document but still validates", async () => {
    const { openapi, call } = make({});
    openapi.get("/tasks", ListTasks);
    openapi.get("/debug", DebugDump);
    openapi.get("/ignored", AlwaysIgnored);
    const paths = async (env: Env) => Object.keys(((await (await call("/openapi.json", env)).json()) as any).paths);

    expect(await paths(production)).toEqual(["/tasks"]);
    expect(await paths(staging)).toEqual(["/tasks", "/debug"]);
    expect((await call("/debug?depth=x", production)).status).toBe(400);
    expect(await (await call("/debug?depth=2", production)).json()).toEqual({ dumped: true });
    expect((await call("/ignored", production)).status).toBe(200);
  });

  it("a nested router marked hidden leaves all its routes out of the parent's document", async () => {
    const { openapi, call } = make({});
    openapi.get("/tasks", ListTasks);
    const internal = make({ hidden: isProduction });
    internal.openapi.get("/debug", ListTasks);
    (openapi as any).route("/internal", internal.openapi);
    const paths = async (env: Env) => Object.keys(((await (await call("/openapi.json", env)).json()) as any).paths);

    expect(await paths(production)).toEqual(["/tasks"]);
    expect(await paths(staging)).toEqual(["/tasks", "/internal/debug"]);
    expect((await call("/internal/debug?page=x", production)).status).toBe(400);
  });

  it("docs routes disabled by docsEnabled answer as if absent", async () => {
    const { openapi, call } = make({ docsEnabled: (ctx) => !isProduction(ctx) });
    openapi.get("/tasks", ListTasks);
    for (const path of ["/openapi.json", "/openapi.yaml", "/docs", "/redocs", "/scalar"]) {
      expect((await call(path, production)).status, path).toBe(404);
      expect((await call(path, staging)).status, path).toBe(200);
    }
    expect((await call("/tasks?page=1", production)).status).toBe(200);
  });

  it("docsEnabled gates each docs route by its own path", async () => {
    // In production only the document stays public; the pages answer in staging alone.
    const { openapi, call } = make({ docsEnabled: (ctx, path) => path === "/openapi.json" || !isProduction(ctx) });
    openapi.get("/tasks", ListTasks);
    expect((await call("/openapi.json", production)).status).toBe(200);
    for (const path of ["/openapi.yaml", "/docs", "/redocs", "/scalar"]) {
      expect((await call(path, production)).status, path).toBe(404);
      expect((await call(path, staging)).status, path).toBe(200);
    }
  });

  it("an x-ignore predicate hides a route as hidden does, and a router hidden: true hides it everywhere", async () => {
    class Ignored extends OpenAPIRoute {
      schema = { operationId: "ignored", "x-ignore": isProduction, responses: {} };
      async handle() {
        return { ok: true };
      }
    }
    const { openapi, call } = make({});
    openapi.get("/ignored", Ignored);
    openapi.get("/tasks", ListTasks);
    const secret = make({ hidden: true });
    secret.openapi.get("/x", ListTasks);
    (openapi as any).route("/secret", secret.openapi);
    const doc = async (env: Env) => (await (await call("/openapi.json", env)).json()) as any;

    expect(Object.keys((await doc(production)).paths)).toEqual(["/tasks"]);
    const open = await doc(staging);
    expect(Object.keys(open.paths)).toEqual(["/ignored", "/tasks"]);
    expect(open.paths["/ignored"].get).not.toHaveProperty("x-ignore");
    expect((await call("/secret/x?page=1", production)).status).toBe(200);
  });

  it("the docs pages take their title from the environment's document", async () => {
    const { openapi, call } = make({
      schema: ({ env }) => ({ info: { title: `Tasks (${env.ENVIRONMENT})`, version: "1" } }),
    });
    openapi.get("/tasks", ListTasks);
    expect(await (await call("/docs", staging)).text()).toContain("Tasks (staging)");
    expect(await (await call("/docs", production)).text()).toContain("Tasks (production)");
  });

  it("keeps at most 32 documents, dropping the oldest", async () => {
    const { openapi, call } = make({ schema: ({ env }) => ({ servers: [{ url: String(env.PUBLIC_URL) }] }) });
    openapi.get("/tasks", ListTasks);
    const core = (openapi as any).core;
    for (let i = 0; i < 33; i++) await call("/openapi.json", { PUBLIC_URL: `https://${i}.example.com` });
    expect(core.documentBuilds).toBe(33);
    await call("/openapi.json", { PUBLIC_URL: "https://32.example.com" });
    expect(core.documentBuilds).toBe(33);
    await call("/openapi.json", { PUBLIC_URL: "https://0.example.com" });
    expect(core.documentBuilds).toBe(34);
  });

  it("a plain schema object builds one document whatever the environment", async () => {
    const { openapi, call } = make({ schema: { info: { title: "Fixed", version: "1" } } });
    openapi.get("/tasks", ListTasks);
    await call("/openapi.json", staging);
    await call("/openapi.json", production);
    expect((openapi as any).core.documentBuilds).toBe(1);
  });
});
