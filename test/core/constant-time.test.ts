// constantTimeEqual: secrets compared in time that does not depend on where they differ, an empty or
// missing one equal to nothing, on Node here and over HTTP (constant-time-runtimes.test.ts: on Bun, Deno
// and workerd).
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyAuth, basicAuth, constantTimeEqual, fromHono, OpenAPIRoute } from "../../src";
import { listenOnLoopback } from "../helpers";

describe("constantTimeEqual", () => {
  it("says equal only for the same secret", async () => {
    expect(await constantTimeEqual("k-8f3a", "k-8f3a")).toBe(true);
    for (const guess of ["k-8f3b", "k-8f3", "k-8f3a ", "K-8F3A", "x", "k-8f3ak-8f3a"]) {
      expect(await constantTimeEqual(guess, "k-8f3a")).toBe(false);
    }
  });

  it("compares strings as UTF-8, so bytes and their text are the same secret", async () => {
    expect(await constantTimeEqual("grüße", new TextEncoder().encode("grüße"))).toBe(true);
    expect(await constantTimeEqual("grüße", "grüsse")).toBe(false);
    expect(await constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(await constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
  });

  it("finds an empty or missing secret equal to nothing, itself included", async () => {
    for (const unset of ["", undefined, null, new Uint8Array(0)]) {
      expect(await constantTimeEqual("", unset)).toBe(false);
      expect(await constantTimeEqual(unset, unset)).toBe(false);
      expect(await constantTimeEqual("k-8f3a", unset)).toBe(false);
      expect(await constantTimeEqual(unset, "k-8f3a")).toBe(false);
    }
  });
});

describe("constantTimeEqual guarding routes over HTTP", () => {
  const secrets: { ADMIN_PASSWORD?: string; API_KEY?: string } = { API_KEY: "k-8f3a" };
  class Who extends OpenAPIRoute {
    schema = { responses: {} };
    async handle() {
      return { principal: await this.getPrincipal() };
    }
  }
  const admin = basicAuth({
    verify: async ({ username, password }) =>
      username === "admin" && (await constantTimeEqual(password, secrets.ADMIN_PASSWORD)) ? { username } : null,
  });
  const apiKey = apiKeyAuth({
    in: "header",
    name: "X-API-Key",
    verify: async (key) => ((await constantTimeEqual(key, secrets.API_KEY)) ? { client: "api" } : null),
  });
  const app = new Hono();
  fromHono(app)
    .get(
      "/admin",
      class extends Who {
        override schema = { auth: admin, responses: {} };
      },
    )
    .get(
      "/api",
      class extends Who {
        override schema = { auth: apiKey, responses: {} };
      },
    );
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  beforeAll(async () => {
    server = await listenOnLoopback((request) => app.fetch(request));
  });
  afterAll(() => server.close());
  const basic = (user: string, password: string) => ({
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
  });

  it("lets in the client with the key, and no client guessing it", async () => {
    expect((await fetch(`${server.origin}/api`, { headers: { "x-api-key": "k-8f3a" } })).status).toBe(200);
    for (const guess of ["k-8f3", "k-8f3b", "k-8f3a0"]) {
      expect((await fetch(`${server.origin}/api`, { headers: { "x-api-key": guess } })).status).toBe(401);
    }
  });

  it("refuses an empty password while the admin password is unset, and takes it once set", async () => {
    delete secrets.ADMIN_PASSWORD;
    expect((await fetch(`${server.origin}/admin`, basic("admin", ""))).status).toBe(401);
    secrets.ADMIN_PASSWORD = "";
    expect((await fetch(`${server.origin}/admin`, basic("admin", ""))).status).toBe(401);
    secrets.ADMIN_PASSWORD = "correct horse";
    expect((await fetch(`${server.origin}/admin`, basic("admin", "correct horse"))).status).toBe(200);
    expect((await fetch(`${server.origin}/admin`, basic("admin", "correct hors"))).status).toBe(401);
  });
});
