import { Hono } from "hono";
import { Router } from "itty-router";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bearerAuth, fromHono, fromIttyRouter, OpenAPIRoute, ReadEndpoint } from "../../src";

// Behaviours of mounting and registration that earlier versions got wrong; each test failed before.

const bearer = bearerAuth({ verify: (token) => (token === "tok" ? { by: "bearer" } : null) });
const withToken = { headers: { authorization: "Bearer tok" } };

describe("execute() and validateRequest() on a mounted route use the mount's plan", () => {
  it("validateRequest() inside a mounted route applies the parent's auth to the request it checks", async () => {
    class Revalidate extends OpenAPIRoute {
      schema = { responses: {} };
      async handle(c: any) {
        const other = new Request(new URL("/n/check", c.req.url));
        try {
          await this.validateRequest(other);
          return { valid: true };
        } catch (err) {
          return { valid: false, status: (err as { status?: number }).status };
        }
      }
    }
    const nested = fromHono(new Hono());
    nested.get("/check", Revalidate);
    const parent = fromHono(new Hono(), { auth: bearer });
    parent.route("/n", nested);
    const mounted = await parent.request("/n/check", withToken);
    expect(await mounted.json()).toEqual({ valid: false, status: 401 });
    // The nested router alone has no auth: the same request validates there.
    expect(await (await nested.request("/check")).json()).toEqual({ valid: true });
  });

  it("execute() of a request's endpoint object runs the route the way the mount serves it", async () => {
    let served: OpenAPIRoute | undefined;
    class Capture extends OpenAPIRoute {
      schema = { responses: {} };
      async handle() {
        served ??= this;
        return { ok: true };
      }
    }
    const nested = fromHono(new Hono());
    nested.get("/who", Capture);
    const app = new Hono();
    fromHono(app, { auth: bearer }).route("/n", nested);
    // A plain Hono route of the parent app hands its own request to the endpoint served through the mount.
    app.get("/delegate", (c) => served!.execute(c));
    expect((await app.request("/n/who", withToken)).status).toBe(200);
    expect((await app.request("/delegate")).status).toBe(401);
    expect((await app.request("/delegate", withToken)).status).toBe(200);
  });
});

describe("a based Hono app with its docs routes off", () => {
  class Route extends OpenAPIRoute {
    schema = { request: { params: z.object({ id: z.string() }) }, responses: {} };
    async handle() {
      return { route: this.params.route };
    }
  }

  it("gives its first endpoint the route with the base", async () => {
    const app = new Hono().basePath("/api");
    fromHono(app, { openapi_url: null }).get("/items/:id", Route);
    expect(await (await app.request("/api/items/1")).json()).toEqual({ route: "/api/items/{id}" });
  });

  it("names the route with its base when the first registration fails its check", () => {
    class Mismatched extends ReadEndpoint {
      _meta = {
        model: {
          tableName: "items",
          schema: z.object({ a: z.string(), b: z.string() }),
          primaryKeys: ["a", "b"],
        },
      };
    }
    const router = fromHono(new Hono().basePath("/api"), { openapi_url: null });
    expect(() => router.get("/items/:a", Mismatched)).toThrow(/primaryKeys differ.*\/api\/items\/\{a\}/);
  });
});

describe("itty-router: route() of a router that mounted another with all()", () => {
  class Who extends OpenAPIRoute {
    schema = { responses: {} };
    async handle() {
      return { principal: (await this.getPrincipal()) ?? null };
    }
  }

  it("serves and documents the inner router's routes under the new prefix, with the outer auth", async () => {
    const leaf = fromIttyRouter(Router({ base: "/v1" }), { base: "/v1" });
    leaf.get("/todo", Who);
    const middle = fromIttyRouter(Router());
    middle.all("/v1/*", leaf);
    const root = fromIttyRouter(Router(), { auth: bearer });
    root.route("/api", middle);
    const fetch = (path: string, init?: RequestInit) => root.fetch(new Request(`http://localhost${path}`, init));
    expect((await fetch("/api/v1/todo")).status).toBe(401);
    expect(await (await fetch("/api/v1/todo", withToken)).json()).toEqual({ principal: { by: "bearer" } });
    expect(Object.keys(root.schema.paths)).toContain("/api/v1/todo");
  });
});

describe("Hono: nested apps with their own onError, mounted twice over", () => {
  /** A Hono subclass whose constructor needs an argument. */
  class NamedHono extends Hono {
    constructor(readonly label: string) {
      super();
      if (typeof label !== "string") throw new TypeError("NamedHono needs a label");
    }
  }

  it("derives every level of apps whose Hono subclass needs constructor arguments, and the innermost onError answers", async () => {
    class Fails extends OpenAPIRoute {
      schema = { responses: {} };
      async handle(): Promise<never> {
        throw new Error("boom");
      }
    }
    const innerApp = new NamedHono("inner");
    innerApp.onError((err) => new Response(`inner: ${err.message}`, { status: 418 }));
    const inner = fromHono(innerApp);
    inner.get("/fails", Fails);
    const middleApp = new NamedHono("middle");
    middleApp.onError(() => new Response("middle", { status: 419 }));
    const middle = fromHono(middleApp);
    middle.route("/i", inner);
    const outer = fromHono(new NamedHono("outer"), { auth: bearer });
    outer.route("/m", middle);
    const denied = await outer.request("/m/i/fails");
    expect(denied.status).toBe(418);
    expect(await denied.text()).toMatch(/^inner: /);
    const failed = await outer.request("/m/i/fails", withToken);
    expect([failed.status, await failed.text()]).toEqual([418, "inner: boom"]);
  });
});
