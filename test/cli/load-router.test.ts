import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { Router } from "itty-router";
import { describe, expect, it, vi } from "vitest";
import { importModule, isSpecrouteRouter, pickRouter, type TsxApi } from "../../src/cli/load-router";
import { fromHono, fromIttyRouter } from "../../src/index";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("importModule", () => {
  it("loads tsx only for TypeScript modules", async () => {
    const tsImport = vi.fn(async () => ({ fromTsx: true }));
    const loadTsx = vi.fn(async (): Promise<TsxApi> => ({ tsImport }));

    const js = await importModule("test/cli/fixtures/js-router.mjs", { cwd: ROOT, loadTsx });
    expect(Object.keys(js)).toEqual(["api"]);
    expect(loadTsx).not.toHaveBeenCalled();

    for (const file of ["hono-app.ts", "commonjs/app.ts"]) {
      expect(await importModule(`test/cli/fixtures/${file}`, { cwd: ROOT, loadTsx })).toEqual({ fromTsx: true });
    }
    expect(loadTsx).toHaveBeenCalledTimes(2);
    expect(tsImport).toHaveBeenCalledWith(expect.stringMatching(/^file:.*\/commonjs\/app\.ts$/), expect.any(String));
  });

  it("passes on the error of a loader that cannot find tsx", async () => {
    const loadTsx = async (): Promise<TsxApi> => {
      throw new Error("tsx is not installed");
    };
    await expect(importModule("test/cli/fixtures/hono-app.ts", { cwd: ROOT, loadTsx })).rejects.toThrow(
      "tsx is not installed",
    );
  });
});

describe("pickRouter", () => {
  it("prefers a router under default, then the first router export", () => {
    const a = fromHono(new Hono());
    const b = fromIttyRouter(Router());
    expect(pickRouter({ a, default: b }, "app.ts").exportName).toBe("default");
    expect(pickRouter({ a, b, default: new Hono() }, "app.ts")).toMatchObject({ exportName: "a", alsoFound: ["b"] });
  });

  it("finds the router fromHono() or fromIttyRouter() attached to an exported app, router or fetch", () => {
    const app = new Hono();
    const openapi = fromHono(app);
    const itty = Router();
    const router = fromIttyRouter(itty);
    expect(pickRouter({ default: app }, "app.ts")).toEqual({ router: openapi, exportName: "default", alsoFound: [] });
    expect(pickRouter({ app, openapi }, "app.ts")).toEqual({ router: openapi, exportName: "app", alsoFound: [] });
    expect(pickRouter({ default: { fetch: app.fetch } }, "app.ts").router).toBe(openapi);
    expect(pickRouter({ default: itty }, "app.ts").router).toBe(router);
    expect(pickRouter({ default: { fetch: itty.fetch } }, "app.ts").router).toBe(router);
    // Another app mounting this one is not this router's app.
    expect(() => pickRouter({ default: new Hono().route("/api", app) }, "app.ts")).toThrow("Hono app without");
  });
});

describe("isSpecrouteRouter", () => {
  it("accepts the wrappers and nothing else", () => {
    expect(isSpecrouteRouter(fromHono(new Hono()))).toBe(true);
    expect(isSpecrouteRouter(fromIttyRouter(Router()))).toBe(true);
    expect(isSpecrouteRouter(new Hono())).toBe(false);
    // itty-router answers every property, `isSpecroute` included, with a function.
    expect(isSpecrouteRouter(Router())).toBe(false);
    expect(isSpecrouteRouter(null)).toBe(false);
    expect(isSpecrouteRouter({ isSpecroute: true })).toBe(false);
  });
});
