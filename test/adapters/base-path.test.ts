import { join } from "node:path";
import { Hono } from "hono";
import { Router } from "itty-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, fromIttyRouter, OpenAPIRoute, validateBasePath } from "../../src";
import { nodeDocsAssets } from "../../src/node";
import { documentErrors, jsonBody, listenOnLoopback } from "../helpers";

class GetTask extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.number().int() }) }, responses: {} };
  async handle() {
    const { params } = await this.getValidatedData();
    return { id: params.id };
  }
}

class CreateTask extends OpenAPIRoute {
  schema = { request: { body: contentJson(z.object({ title: z.string() })) }, responses: {} };
  async handle() {
    const { body } = await this.getValidatedData();
    return { created: body.title };
  }
}

const DOCS_URLS = ["/openapi.json", "/openapi.yaml", "/docs", "/redocs", "/scalar"];

/** The starter template's shape: a based app, the wrapper, endpoints, and the app exported. */
function starterApp() {
  const app = new Hono().basePath("/api");
  const openapi = fromHono(app, { schema: { info: { title: "Tasks", version: "1.0.0" } } });
  openapi.get("/tasks/:id", GetTask);
  openapi.post("/tasks", CreateTask);
  return { app, openapi };
}

describe("Hono: an app made with basePath()", () => {
  it("serves its routes under the base path and nothing at the unprefixed paths", async () => {
    const { app } = starterApp();
    expect(await (await app.request("/api/tasks/7")).json()).toEqual({ id: 7 });
    expect(await (await app.request("/api/tasks", jsonBody({ title: "a" }))).json()).toEqual({ created: "a" });
    expect((await app.request("/tasks/7")).status).toBe(404);
  });

  it("documents the full paths and reports the base in options", async () => {
    const { openapi } = starterApp();
    expect(Object.keys(openapi.schema.paths)).toEqual(["/api/tasks/{id}", "/api/tasks"]);
    expect(await documentErrors(openapi.schema)).toBeNull();
    expect(openapi.options.base).toBe("/api");
  });

  it("serves the document and every docs page under the base path, linking the based document", async () => {
    const { app } = starterApp();
    for (const url of DOCS_URLS) {
      expect((await app.request(`/api${url}`)).status, url).toBe(200);
      expect((await app.request(url)).status, url).toBe(404);
    }
    expect(Object.keys((await (await app.request("/api/openapi.json")).json()).paths)).toEqual([
      "/api/tasks/{id}",
      "/api/tasks",
    ]);
    expect(await (await app.request("/api/openapi.yaml")).text()).toContain("/api/tasks/{id}:");
    for (const page of ["/docs", "/redocs", "/scalar"]) {
      expect(await (await app.request(`/api${page}`)).text(), page).toMatch(/["']\/api\/openapi\.json["']/);
    }
  });

  it("still documents the base when the docs routes are disabled", () => {
    const openapi = fromHono(new Hono().basePath("/api"), { openapi_url: null });
    openapi.get("/tasks/:id", GetTask);
    expect(Object.keys(openapi.schema.paths)).toEqual(["/api/tasks/{id}"]);
    expect(openapi.options.base).toBe("/api");
  });

  it("serves self-hosted docs files under the base path, where the pages point", async () => {
    const app = new Hono().basePath("/api");
    fromHono(app, { docsAssets: nodeDocsAssets("/assets", join(__dirname, "..", "..")) });
    expect(await (await app.request("/api/docs")).text()).toContain('src="/api/assets/swagger-ui-bundle.js"');
    expect((await app.request("/api/assets/swagger-ui-bundle.js")).status).toBe(200);
    expect(await (await app.request("/api/assets/swagger-ui-init.js")).text()).toMatch(/["']\/api\/openapi\.json["']/);
  });

  it("refuses a base option on top of it", () => {
    expect(() => fromHono(new Hono().basePath("/api"), { base: "/v1" })).toThrow(
      /basePath\("\/api"\).*base option is no longer needed/,
    );
  });
});

describe("Hono: the base option", () => {
  it("applies basePath() to the app: routes, document and docs live under it", async () => {
    const app = new Hono();
    const openapi = fromHono(app, { base: "/api" });
    openapi.get("/tasks/:id", GetTask);
    expect(await (await app.request("/api/tasks/3")).json()).toEqual({ id: 3 });
    expect((await app.request("/tasks/3")).status).toBe(404);
    for (const url of DOCS_URLS) {
      expect((await app.request(`/api${url}`)).status, url).toBe(200);
      expect((await app.request(url)).status, url).toBe(404);
    }
    expect(Object.keys(openapi.schema.paths)).toEqual(["/api/tasks/{id}"]);
    expect(openapi.options.base).toBe("/api");
  });

  it("exposes the based app as original, which shares the app's routes", async () => {
    const app = new Hono();
    const openapi = fromHono(app, { base: "/api" });
    openapi.get("/tasks/:id", GetTask);
    expect(openapi.original).not.toBe(app);
    expect((await openapi.original.request("/api/tasks/3")).status).toBe(200);
    expect((await openapi.request("/api/tasks/3")).status).toBe(200);
  });

  it("combines with a parent's basePath() of the wrapper", async () => {
    const app = new Hono();
    const v1 = fromHono(app, { base: "/api" }).basePath("/v1");
    v1.get("/tasks/:id", GetTask);
    expect((await app.request("/api/v1/tasks/1")).status).toBe(200);
    expect(Object.keys(v1.schema.paths)).toEqual(["/api/v1/tasks/{id}"]);
  });
});

describe("Hono: a nested router with its own base path", () => {
  it("is documented with the full paths Hono serves it at", async () => {
    for (const makeNested of [
      () => fromHono(new Hono(), { base: "/v1" }),
      () => fromHono(new Hono().basePath("/v1")),
    ]) {
      const nested = makeNested();
      nested.get("/tasks/:id", GetTask);
      const app = new Hono();
      fromHono(app).route("/api", nested);
      expect(await (await app.request("/api/v1/tasks/7")).json()).toEqual({ id: 7 });
      const doc = await (await app.request("/openapi.json")).json();
      expect(Object.keys(doc.paths)).toEqual(["/api/v1/tasks/{id}"]);
    }
  });
});

describe("validateBasePath", () => {
  it("accepts a path with a leading slash and no trailing one", () => {
    expect(validateBasePath("/api/v1")).toBe("/api/v1");
  });

  it("refuses a missing leading slash, a trailing slash and a lone slash", () => {
    expect(() => validateBasePath("api")).toThrow('base must start with "/", got "api"');
    expect(() => validateBasePath("/api/")).toThrow('base must not end with "/", got "/api/"');
    expect(() => validateBasePath("/")).toThrow('base must not end with "/"');
  });

  it("runs before a Hono app is touched", () => {
    const app = new Hono();
    expect(() => fromHono(app, { base: "/api/" })).toThrow('base must not end with "/"');
    expect(app.routes).toHaveLength(0);
  });
});

const ittyFetch = async (router: { fetch: (r: Request) => Promise<any> }, path: string) =>
  ((await router.fetch(new Request(`http://localhost${path}`))) as Response | undefined) ??
  new Response(null, { status: 404 });

describe("itty-router: the base option, as chanfana applies it", () => {
  it("prefixes documented paths and the document's URL, not the routes or the pages", async () => {
    const router = fromIttyRouter(Router(), { base: "/api" });
    router.get("/tasks/:id", GetTask);
    expect((await ittyFetch(router, "/tasks/2")).status).toBe(200);
    expect(Object.keys(router.schema.paths)).toEqual(["/api/tasks/{id}"]);
    expect(Object.keys((await (await ittyFetch(router, "/api/openapi.json")).json()).paths)).toEqual([
      "/api/tasks/{id}",
    ]);
    expect((await ittyFetch(router, "/api/openapi.yaml")).status).toBe(200);
    expect((await ittyFetch(router, "/openapi.json")).status).toBe(404);
    expect(await (await ittyFetch(router, "/docs")).text()).toMatch(/["']\/api\/openapi\.json["']/);
    expect(router.options.base).toBe("/api");
  });

  it("serves the document where the pages link it when the router carries the same base", async () => {
    const router = fromIttyRouter(Router({ base: "/api" }), { base: "/api" });
    router.get("/tasks/:id", GetTask);
    expect((await ittyFetch(router, "/api/tasks/2")).status).toBe(200);
    expect(await (await ittyFetch(router, "/api/docs")).text()).toMatch(/["']\/api\/openapi\.json["']/);
    expect(Object.keys((await (await ittyFetch(router, "/api/openapi.json")).json()).paths)).toEqual([
      "/api/tasks/{id}",
    ]);
  });
});

describe("Hono: the starter app over real HTTP (@hono/node-server on 127.0.0.1)", () => {
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  let origin: string;

  beforeAll(async () => {
    const { app } = starterApp();
    server = await listenOnLoopback(app.fetch);
    origin = server.origin;
  });

  afterAll(() => server.close());

  it("answers under /api and documents /api paths, with nothing at the unprefixed paths", async () => {
    expect(await (await fetch(`${origin}/api/tasks/5`)).json()).toEqual({ id: 5 });
    const doc = await (await fetch(`${origin}/api/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(["/api/tasks/{id}", "/api/tasks"]);
    expect(await (await fetch(`${origin}/api/docs`)).text()).toMatch(/["']\/api\/openapi\.json["']/);
    for (const path of ["/tasks/5", "/openapi.json", "/docs"]) {
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    }
  });
});
