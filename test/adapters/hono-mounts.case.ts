import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bearerAuth, fromHono, OpenAPIRoute } from "../../src";

// The Hono mount suite, run against every Hono the package accepts (hono-mounts.test.ts: the installed
// latest; hono-mounts-lowest.test.ts: the lowest peerDependencies allows). Routers are mounted as
// real apps nest them: endpoints beside plain handlers and middleware, sub-apps with and without
// their own onError, basePath(), and one router under two parents.

/** The Hono class under test: any version's, so its types are not the installed one's. */
type AnyHonoClass = new () => any;

const bearer = bearerAuth({ verify: (token) => (token === "tok" ? { by: "bearer" } : null) });
const withToken = { headers: { authorization: "Bearer tok" } };

/** Echoes the path parameters Hono matched (its own id validated) and who authenticated the request. */
class Item extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.string().min(2) }) }, responses: {} };
  async handle(c: any) {
    const { params } = await this.getValidatedData<typeof this.schema>();
    return { params: { ...c.req.param(), ...params }, principal: (await this.getPrincipal()) ?? null };
  }
}

/** The version of an installed package (its package.json is not among Hono's exports). */
export function installedVersion(name: string): string {
  const url = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")).version;
}

export function describeHonoMounts(version: string, Hono: AnyHonoClass): void {
  /** One router of the chain: its app (with or without an onError), the wrapper, and its level. */
  const level = (index: number, options: { onError: boolean; auth?: boolean; base?: string }) => {
    let app = new Hono();
    // As apps write it: the framework's HTTPExceptions carry their answer, anything else is a 500.
    const onError = (err: Error & { getResponse?: () => Response }) =>
      err.getResponse?.() ?? new Response(`level ${index}: ${err.message}`, { status: 500 });
    if (options.onError) app.onError(onError);
    if (options.base) app = app.basePath(options.base);
    const router = fromHono(app, options.auth ? { auth: bearer } : undefined);
    // Middleware of every level runs for the routes below it.
    app.use("*", async (c: any, next: () => Promise<void>) => {
      await next();
      c.res.headers.append("x-levels", String(index));
    });
    return { app, router };
  };

  /**
   * `depth` routers, each mounted in the next under a path with a parameter, the innermost holding an
   * endpoint, a plain handler and a plain handler that throws. Levels alternate with and without onError.
   */
  const chain = (depth: number, top: { auth?: boolean; everyOnError?: boolean } = {}) => {
    const leaf = level(0, { onError: true });
    leaf.router.get("/items/:id", Item);
    leaf.app.patch("/:userId", (c: any) => c.text(`patched ${c.req.param("userId")}`));
    leaf.app.get("/boom", () => {
      throw new Error("boom");
    });
    let current = leaf;
    let prefix = "";
    for (let index = 1; index < depth; index++) {
      const onError = top.everyOnError === true || index % 2 === 0;
      const outer = level(index, { onError, auth: index === depth - 1 && top.auth });
      outer.router.route(`/l${index}/:p${index}`, current.router);
      prefix = `/l${index}/v${index}${prefix}`;
      current = outer;
    }
    return { top: current, prefix };
  };

  describe(`Hono ${version}: mounting routers at any depth`, () => {
    for (const depth of [1, 2, 3, 4, 5]) {
      it(`serves an endpoint, a plain handler and middleware ${depth} level(s) deep`, async () => {
        const { top, prefix } = chain(depth);
        const patched = await top.app.request(`${prefix}/u7`, { method: "PATCH" });
        expect([patched.status, await patched.text()]).toEqual([200, "patched u7"]);
        // Every level's middleware ran, innermost first.
        expect(patched.headers.get("x-levels")).toBe([...Array(depth).keys()].join(", "));

        const item = await top.app.request(`${prefix}/items/i1`);
        const params = Object.fromEntries([...Array(depth).keys()].slice(1).map((i) => [`p${i}`, `v${i}`]));
        expect(await item.json()).toEqual({ params: { ...params, id: "i1" }, principal: null });
        const documented = `${prefix.replace(/\/v(\d)/g, "/{p$1}")}/items/{id}`;
        expect(Object.keys(top.router.schema.paths)).toEqual([documented]);
      });

      it(`answers an error ${depth} level(s) deep with the innermost onError, as Hono's route() does`, async () => {
        const { top, prefix } = chain(depth);
        const failed = await top.app.request(`${prefix}/boom`);
        expect([failed.status, await failed.text()]).toEqual([500, "level 0: boom"]);
      });
    }

    it("mounts 1 to 5 levels where every level has its own onError (the shape pkic.org has)", async () => {
      for (const depth of [1, 2, 3, 4, 5]) {
        const { top, prefix } = chain(depth, { everyOnError: true });
        const patched = await top.app.request(`${prefix}/u9`, { method: "PATCH" });
        expect([depth, await patched.text()]).toEqual([depth, "patched u9"]);
        expect((await top.app.request(`${prefix}/items/i9`)).status).toBe(200);
        const failed = await top.app.request(`${prefix}/boom`);
        expect([depth, await failed.text()]).toEqual([depth, "level 0: boom"]);
      }
    });

    it("applies the outermost router's auth five levels deep, to its endpoints only", async () => {
      const { top, prefix } = chain(5, { auth: true });
      expect((await top.app.request(`${prefix}/items/i1`)).status).toBe(401);
      const item = await top.app.request(`${prefix}/items/i1`, withToken);
      expect((await item.json()).principal).toEqual({ by: "bearer" });
      // A plain handler is the app's own business: the router's auth is for its endpoints.
      expect((await top.app.request(`${prefix}/u1`, { method: "PATCH" })).status).toBe(200);
    });

    it("lets an error in a level without onError reach the onError of the level it is mounted in", async () => {
      const inner = level(0, { onError: false });
      inner.app.get("/boom", () => {
        throw new Error("inner boom");
      });
      const outer = level(1, { onError: true });
      outer.router.route("/in", inner.router);
      const failed = await outer.app.request("/in/boom");
      expect([failed.status, await failed.text()]).toEqual([500, "level 1: inner boom"]);
    });

    it("mounts routers made on basePath() apps, at every level", async () => {
      const leaf = level(0, { onError: true, base: "/v1" });
      leaf.router.get("/items/:id", Item);
      const middle = level(1, { onError: false, base: "/m" });
      middle.router.route("/leaf", leaf.router);
      const top = level(2, { onError: true });
      top.router.route("/top", middle.router);
      const item = await top.app.request("/top/m/leaf/v1/items/xy");
      expect((await item.json()).params).toEqual({ id: "xy" });
      expect(Object.keys(top.router.schema.paths)).toEqual(["/top/m/leaf/v1/items/{id}"]);
    });

    it("serves one router under two parents, each with its own auth and paths", async () => {
      const { top: shared, prefix } = chain(3);
      const open = level(9, { onError: false });
      open.router.route("/open", shared.router);
      const locked = level(8, { onError: true, auth: true });
      locked.router.route("/locked", shared.router);
      expect((await open.app.request(`/open${prefix}/items/ab`)).status).toBe(200);
      expect((await locked.app.request(`/locked${prefix}/items/ab`)).status).toBe(401);
      expect((await locked.app.request(`/locked${prefix}/items/ab`, withToken)).status).toBe(200);
      // Mounting again changed nothing the first parent serves.
      expect((await (await open.app.request(`/open${prefix}/items/ab`)).json()).principal).toBeNull();
      const patched = await locked.app.request(`/locked${prefix}/u2`, { method: "PATCH" });
      expect(await patched.text()).toBe("patched u2");
    });

    it("applies a router's auth to endpoints inside a plain Hono app it mounts, and documents them", async () => {
      const leaf = level(0, { onError: false });
      leaf.router.get("/items/:id", Item);
      // The plain app holds the router's handlers as Hono's own route() copied them.
      const plain = new Hono();
      plain.route("/leaf", leaf.router);
      plain.get("/plain", (c: any) => c.text("plain"));
      const locked = level(1, { onError: true, auth: true });
      locked.router.route("/p", plain);
      expect((await locked.app.request("/p/leaf/items/ab")).status).toBe(401);
      expect((await locked.app.request("/p/leaf/items/ab", withToken)).status).toBe(200);
      expect(await (await locked.app.request("/p/plain")).text()).toBe("plain");
      expect(Object.keys(locked.router.schema.paths)).toEqual(["/p/leaf/items/{id}"]);
    });

    it("refuses, naming the route, a mount whose auth could not reach an endpoint hidden by Hono's own route()", () => {
      const leaf = level(0, { onError: false });
      leaf.router.get("/items/:id", Item);
      // Hono's own route() of the wrapper, into an app with an onError: the endpoint is wrapped out of sight.
      const plain = new Hono();
      plain.onError(() => new Response("plain", { status: 500 }));
      plain.route("/leaf", leaf.router);
      const holder = level(1, { onError: false });
      holder.app.route("/p", plain);
      const open = level(2, { onError: false });
      expect(() => open.router.route("/h", holder.router)).not.toThrow();
      const locked = level(3, { onError: false, auth: true });
      expect(() => locked.router.route("/h", holder.router)).toThrow(
        /route\(\): GET \/p\/leaf\/.* was mounted into its app with Hono's own route\(\)/,
      );
    });
  });
}
