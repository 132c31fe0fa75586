import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("inside workerd, the document follows the worker's bindings", () => {
  let staging: Awaited<ReturnType<typeof startWorker>>;
  let production: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    [staging, production] = await Promise.all([
      startWorker("test/runtimes/environment-document-app.ts", {
        bindings: { PUBLIC_URL: "https://staging.example.com", ENVIRONMENT: "staging" },
      }),
      startWorker("test/runtimes/environment-document-app.ts", {
        bindings: { PUBLIC_URL: "https://api.example.com", ENVIRONMENT: "production" },
      }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([staging?.mf.dispose(), production?.mf.dispose()]);
  });

  it.each(["hono", "itty"])("%s: servers come from PUBLIC_URL, and the document is built once", async (adapter) => {
    for (let i = 0; i < 3; i++) {
      const response = await staging.fetch(`/${adapter}/openapi.json`);
      expect(response.status).toBe(200);
      const doc = (await response.json()) as any;
      expect(doc.servers).toEqual([{ url: `https://staging.example.com/${adapter}` }]);
      expect(Object.keys(doc.paths)).toEqual([`/${adapter}/tasks`, `/${adapter}/debug`]);
    }
    expect(((await (await staging.fetch("/builds")).json()) as any)[adapter]).toBe(1);
  });

  it.each(["hono", "itty"])(
    "%s: in production the docs answer 404 and the hidden route still validates",
    async (adapter) => {
      for (const page of ["openapi.json", "openapi.yaml", "docs", "redocs", "scalar"]) {
        expect((await production.fetch(`/${adapter}/${page}`)).status, page).toBe(404);
      }
      expect((await production.fetch(`/${adapter}/debug?depth=x`)).status).toBe(400);
      expect((await production.fetch(`/${adapter}/debug?depth=1`)).status).toBe(200);
      expect((await production.fetch(`/${adapter}/tasks`)).status).toBe(200);
    },
  );
});
