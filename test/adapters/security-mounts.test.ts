import http from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener, serve } from "@hono/node-server";
import { Hono } from "hono";
import { AutoRouter, Router } from "itty-router";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  basicAuth,
  bearerAuth,
  fromHono,
  fromIttyRouter,
  OpenAPIRoute,
  type RouterOptions,
} from "../../src";
import { documentErrors } from "../helpers";

// Each scheme accepts exactly one credential and says which scheme verified it.
const bearer = bearerAuth({
  schemeName: "bearer",
  verify: (token) => (token === "tok-admin" ? { by: "bearer" } : null),
});
const headerKey = apiKeyAuth({
  schemeName: "headerKey",
  in: "header",
  name: "X-API-Key",
  verify: (key) => (key === "key-guest" ? { by: "headerKey" } : null),
});
const basic = basicAuth({
  schemeName: "basic",
  verify: ({ username, password }) => (username === "ada" && password === "pw" ? { by: "basic" } : null),
});
const queryKey = apiKeyAuth({
  schemeName: "queryKey",
  in: "query",
  name: "api_key",
  verify: (key) => (key === "key-query" ? { by: "queryKey" } : null),
});

const credentials = {
  none: {},
  bearer: { authorization: "Bearer tok-admin" },
  headerKey: { "x-api-key": "key-guest" },
  basic: { authorization: `Basic ${btoa("ada:pw")}` },
} satisfies Record<string, Record<string, string>>;
type Credential = keyof typeof credentials;

/** Echoes who authenticated the request, or null. */
class Who extends OpenAPIRoute {
  schema = { request: { query: z.object({ page: z.number().int().optional() }) }, responses: {} };
  async handle() {
    return { principal: (await this.getPrincipal()) ?? null };
  }
}

/** Public wherever it is mounted. */
class Health extends OpenAPIRoute {
  schema = { security: [], responses: {} };
  async handle() {
    return { principal: (await this.getPrincipal()) ?? null };
  }
}

interface Adapter {
  name: "hono" | "itty-router";
  router(options?: RouterOptions): any;
  /** Starts the router on 127.0.0.1 (an ephemeral port); returns its origin. */
  listen(router: any): Promise<string>;
}

const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

function started(server: http.Server): Promise<string> {
  servers.push(server);
  return new Promise((resolve) => {
    const report = () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (server.listening) report();
    else server.once("listening", report);
  });
}

const adapters: Adapter[] = [
  {
    name: "hono",
    router: (options) => fromHono(new Hono(), options),
    listen: (router) => started(serve({ fetch: router.original.fetch, hostname: "127.0.0.1", port: 0 }) as http.Server),
  },
  {
    name: "itty-router",
    router: (options) => fromIttyRouter(Router(), options),
    listen: (router) => {
      const fetch = async (request: Request) =>
        ((await router.fetch(request)) as Response | undefined) ?? new Response("no route", { status: 404 });
      return started(http.createServer(getRequestListener(fetch)).listen(0, "127.0.0.1"));
    },
  },
];

async function call(origin: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(origin + path, { headers });
  const text = await response.text();
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: text.startsWith("{") ? JSON.parse(text) : text,
  };
}

/** What a mount enforcing `scheme` (or nothing) answers to a request carrying `sent`. */
function expected(scheme: Credential, sent: Credential) {
  if (scheme === "none") return { status: 200, principal: null };
  return sent === scheme ? { status: 200, principal: { by: scheme } } : { status: 401, principal: undefined };
}

const CHALLENGES: Record<Exclude<Credential, "none">, RegExp> = {
  bearer: /^Bearer/,
  headerKey: /X-API-Key/i,
  basic: /^Basic/,
};

/** Asserts every credential against a mount enforcing `scheme`, over HTTP. */
async function expectMount(origin: string, prefix: string, scheme: Credential): Promise<void> {
  for (const sent of Object.keys(credentials) as Credential[]) {
    const answer = await call(origin, `${prefix}/who`, credentials[sent]);
    const want = expected(scheme, sent);
    expect({ mount: prefix, sent, status: answer.status }).toEqual({ mount: prefix, sent, status: want.status });
    if (want.status === 200) expect(answer.body).toEqual({ principal: want.principal });
    else expect(answer.challenge).toMatch(CHALLENGES[scheme as Exclude<Credential, "none">]);
    // A route that opts out stays public under every mount, whatever is sent.
    expect((await call(origin, `${prefix}/health`, credentials[sent])).body).toEqual({ principal: null });
  }
}

const SCHEMES = { bearer, headerKey, basic } as const;
const layerFor = (scheme: Credential): RouterOptions =>
  scheme === "none" ? { security: [] } : { auth: SCHEMES[scheme] };

for (const adapter of adapters) {
  describe(`${adapter.name}: one nested router mounted under parents with different auth`, () => {
    function nestedRouter() {
      const nested = adapter.router();
      nested.get("/who", Who);
      nested.get("/health", Health);
      return nested;
    }

    it("enforces each parent's scheme on its own mount, whatever the mount order, over HTTP", async () => {
      for (const order of [
        ["bearer", "headerKey"],
        ["headerKey", "bearer"],
        ["bearer", "headerKey", "basic"],
        ["basic", "none", "bearer"],
        ["none", "basic", "headerKey"],
      ] as Credential[][]) {
        const nested = nestedRouter();
        const root = adapter.router({ schema: { info: { title: "Mounts", version: "1" } } });
        for (const scheme of order) {
          const parent = adapter.router(layerFor(scheme));
          parent.route("/n", nested);
          root.route(`/${scheme}`, parent);
        }
        const origin = await adapter.listen(root);
        for (const scheme of order) await expectMount(origin, `/${scheme}/n`, scheme);

        const doc = (await call(origin, "/openapi.json")).body;
        expect(await documentErrors(doc)).toBeNull();
        for (const scheme of order) {
          const operation = doc.paths[`/${scheme}/n/who`].get;
          expect(operation.security).toEqual(scheme === "none" ? [] : [{ [scheme]: [] }]);
          expect(doc.paths[`/${scheme}/n/health`].get.security).toEqual([]);
        }
        const declared = order.filter((scheme) => scheme !== "none").sort();
        expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual(declared);
        // The nested router itself still enforces nothing and documents no security.
        const own = await adapter.listen(nested);
        expect((await call(own, "/who")).body).toEqual({ principal: null });
        expect(nested.schema.paths["/who"].get).not.toHaveProperty("security");
      }
    });

    it("never changes what an earlier mount answers when the router is mounted again", async () => {
      const nested = nestedRouter();
      const admin = adapter.router({ auth: bearer });
      admin.route("/n", nested);
      const adminOrigin = await adapter.listen(admin);
      await expectMount(adminOrigin, "/n", "bearer");
      const adminDocument = JSON.stringify(admin.schema);

      const guest = adapter.router({ auth: headerKey });
      guest.route("/n", nested);
      const open = adapter.router({ security: [] });
      open.route("/n", nested);
      const grand = adapter.router({ auth: basic });
      grand.route("/admin", admin);

      await expectMount(adminOrigin, "/n", "bearer");
      await expectMount(await adapter.listen(guest), "/n", "headerKey");
      await expectMount(await adapter.listen(open), "/n", "none");
      // The grandparent's auth sits outside the admin router's: the closer bearer still decides.
      await expectMount(await adapter.listen(grand), "/admin/n", "bearer");
      expect(JSON.stringify(admin.schema)).toBe(adminDocument);
      await expectMount(await adapter.listen(nested), "", "none");
    });

    it("composes three levels: a grandparent's auth reaches routes no closer router secures", async () => {
      for (const [grandScheme, parentScheme, wins] of [
        ["basic", undefined, "basic"],
        ["basic", "bearer", "bearer"],
        ["headerKey", "none", "none"],
      ] as Array<[Credential, Credential | undefined, Credential]>) {
        const nested = nestedRouter();
        const parent = adapter.router(parentScheme === undefined ? {} : layerFor(parentScheme));
        parent.route("/n", nested);
        const grand = adapter.router(layerFor(grandScheme));
        grand.route("/p", parent);
        const origin = await adapter.listen(grand);
        await expectMount(origin, "/p/n", wins);
        const security = grand.schema.paths["/p/n/who"]!.get!.security;
        expect(security).toEqual(wins === "none" ? [] : [{ [wins]: [] }]);
      }
    });

    it("keeps a nested router's own auth closest, under any parent", async () => {
      const nested = adapter.router({ auth: basic });
      nested.get("/who", Who);
      nested.get("/health", Health);
      const root = adapter.router();
      for (const scheme of ["bearer", "headerKey"] as const) {
        const parent = adapter.router({ auth: SCHEMES[scheme] });
        parent.route("/n", nested);
        root.route(`/${scheme}`, parent);
      }
      const origin = await adapter.listen(root);
      await expectMount(origin, "/bearer/n", "basic");
      await expectMount(origin, "/headerKey/n", "basic");
    });

    it("knows an API key sent in the query only on the mount whose scheme reads it", async () => {
      const nested = nestedRouter();
      const byQuery = adapter.router({ auth: queryKey });
      byQuery.route("/n", nested);
      const byToken = adapter.router({ auth: bearer });
      byToken.route("/n", nested);
      const root = adapter.router();
      root.route("/q", byQuery);
      root.route("/t", byToken);
      const origin = await adapter.listen(root);

      expect((await call(origin, "/q/n/who?api_key=key-query&page=2")).body).toEqual({ principal: { by: "queryKey" } });
      expect((await call(origin, "/q/n/who?page=2")).status).toBe(401);
      // Under the bearer mount, api_key is just an undeclared query parameter.
      expect((await call(origin, "/t/n/who?api_key=key-query", credentials.bearer)).status).toBe(400);
      expect((await call(origin, "/t/n/who?page=2", credentials.bearer)).status).toBe(200);
    });

    it("leaves a mounted router's docs routes to itself, not to the parent", async () => {
      const nested = nestedRouter();
      const root = adapter.router();
      root.route("/n", nested);
      const origin = await adapter.listen(root);
      expect((await call(origin, "/n/openapi.json")).status).toBe(404);
      expect((await call(origin, "/n/docs")).status).toBe(404);
      expect(Object.keys((await call(origin, "/openapi.json")).body.paths)).toEqual(["/n/who", "/n/health"]);
      const own = await adapter.listen(nested);
      expect(Object.keys((await call(own, "/openapi.json")).body.paths)).toEqual(["/who", "/health"]);
    });
  });
}

describe("itty-router: chanfana-style all(path, router) mounts", () => {
  function nestedWithBase(options: RouterOptions = {}) {
    const nested = fromIttyRouter(AutoRouter({ base: "/api" }), { base: "/api", ...options });
    nested.get("/who", Who);
    nested.get("/health", Health);
    nested.all("*", () => new Response(JSON.stringify({ message: "inner not found" }), { status: 404 }));
    return nested;
  }
  const itty = adapters[1]!;

  it("serves the same nested router under two parents with each parent's auth", async () => {
    const nested = nestedWithBase();
    const admin = fromIttyRouter(AutoRouter(), { auth: bearer });
    admin.all("/api/*", nested);
    const guest = fromIttyRouter(AutoRouter(), { auth: headerKey });
    guest.all("/api/*", nested);
    const adminOrigin = await itty.listen(admin);
    const guestOrigin = await itty.listen(guest);
    await expectMount(adminOrigin, "/api", "bearer");
    await expectMount(guestOrigin, "/api", "headerKey");
    expect(admin.schema.paths["/api/who"]?.get).toMatchObject({ security: [{ bearer: [] }] });
    expect(guest.schema.paths["/api/who"]?.get).toMatchObject({ security: [{ headerKey: [] }] });
    await expectMount(await itty.listen(nested), "/api", "none");
  });

  it("composes all() mounts three levels deep, each level's document with full paths", async () => {
    const inner = fromIttyRouter(AutoRouter({ base: "/api/in" }), { base: "/api/in" });
    inner.get("/who", Who);
    inner.get("/health", Health);
    const middle = fromIttyRouter(AutoRouter({ base: "/api" }), { base: "/api", auth: headerKey });
    middle.all("/in/*", inner);
    const grand = fromIttyRouter(AutoRouter(), { auth: basic });
    grand.all("/api/*", middle);
    const open = fromIttyRouter(AutoRouter(), { auth: basic });
    const publicMiddle = fromIttyRouter(AutoRouter({ base: "/api" }), { base: "/api" });
    publicMiddle.all("/in/*", inner);
    open.all("/api/*", publicMiddle);

    await expectMount(await itty.listen(grand), "/api/in", "headerKey");
    await expectMount(await itty.listen(open), "/api/in", "basic");
    expect(grand.schema.paths["/api/in/who"]?.get).toMatchObject({ security: [{ headerKey: [] }] });
    expect(open.schema.paths["/api/in/who"]?.get).toMatchObject({ security: [{ basic: [] }] });
    await expectMount(await itty.listen(inner), "/api/in", "none");
  });

  it("lets the inner catch-all answer inside the mount and the parent's answer outside it", async () => {
    const root = fromIttyRouter(AutoRouter());
    root.all("/api/*", nestedWithBase());
    root.all("*", () => new Response("outer not found", { status: 404 }));
    const origin = await itty.listen(root);
    expect(await call(origin, "/api/nothing")).toMatchObject({ status: 404, body: { message: "inner not found" } });
    expect(await call(origin, "/elsewhere")).toMatchObject({ status: 404, body: "outer not found" });
    // The nested router's document stays its own: inside the mount its catch-all answers.
    expect((await call(origin, "/api/openapi.json")).body).toEqual({ message: "inner not found" });
    expect((await call(origin, "/api/who")).body).toEqual({ principal: null });
  });

  it("documents a nested router whose base has a parameter with the full paths", async () => {
    const nested = fromIttyRouter(AutoRouter({ base: "/api/v1/:prefix" }), { base: "/api/v1/:prefix" });
    nested.get("/todo/:id", Who);
    const root = fromIttyRouter(AutoRouter());
    root.all("/api/v1/:prefix/*", nested);
    const origin = await itty.listen(root);
    const doc = (await call(origin, "/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(["/api/v1/{prefix}/todo/{id}"]);
    expect((await call(origin, "/api/v1/x/todo/1")).body).toEqual({ principal: null });
  });
});

describe("hono: nested routers mounted with route()", () => {
  const hono = adapters[0]!;

  it("lets the inner catch-all answer inside the mount and the parent's answer outside it", async () => {
    const inner = fromHono(new Hono());
    inner.all("/todo/:id", Who);
    inner.all("*", () => new Response(JSON.stringify({ message: "inner not found" }), { status: 404 }));
    const root = fromHono(new Hono());
    root.route("/api/v1", inner);
    root.all("*", () => new Response("outer not found", { status: 404 }));
    const origin = await hono.listen(root);
    expect(await call(origin, "/api/v1/nothing")).toMatchObject({ status: 404, body: { message: "inner not found" } });
    expect(await call(origin, "/elsewhere")).toMatchObject({ status: 404, body: "outer not found" });
    expect((await call(origin, "/api/v1/todo/1")).body).toEqual({ principal: null });
  });

  it("documents a router mounted under a path with a parameter with the full paths", async () => {
    const inner = fromHono(new Hono());
    inner.get("/todo/:id", Who);
    const root = fromHono(new Hono());
    root.route("/api/v1/:prefix", inner);
    const origin = await hono.listen(root);
    expect(Object.keys((await call(origin, "/openapi.json")).body.paths)).toEqual(["/api/v1/{prefix}/todo/{id}"]);
    expect((await call(origin, "/api/v1/x/todo/1")).body).toEqual({ principal: null });
  });

  it("applies every outer router's auth through nested apps that have their own onError", async () => {
    const innerApp = new Hono();
    innerApp.onError((err) => new Response(`inner onError: ${(err as Error).message}`, { status: 418 }));
    const inner = fromHono(innerApp);
    inner.get("/who", Who);
    const middleApp = new Hono();
    middleApp.onError(() => new Response("middle onError", { status: 419 }));
    const middle = fromHono(middleApp);
    middle.route("/i", inner);
    const grand = fromHono(new Hono(), { auth: bearer });
    grand.route("/m", middle);
    const outer = fromHono(new Hono(), { auth: basic });
    outer.route("/g", grand);

    for (const [router, path] of [
      [grand, "/m/i/who"],
      [outer, "/g/m/i/who"],
    ] as const) {
      const origin = await hono.listen(router);
      // The failure still reaches the inner app's own onError, as Hono delivers it.
      expect(await call(origin, path)).toMatchObject({ status: 418, body: expect.stringMatching(/inner onError/) });
      expect(await call(origin, path, credentials.basic)).toMatchObject({ status: 418 });
      expect((await call(origin, path, credentials.bearer)).body).toEqual({ principal: { by: "bearer" } });
    }
    expect((await call(await hono.listen(middle), "/i/who")).body).toEqual({ principal: null });
  });
});
