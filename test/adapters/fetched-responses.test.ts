import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAPIRoute } from "../../src";
import { closeHttpHarnesses, harnesses, httpHarnesses, listenOnLoopback } from "../helpers";

// A handler that forwards what fetch() gave it (a proxy, a gateway) is answered with that Response as it is,
// also under @hono/node-server, which puts a Response class of its own in the global before fetch() runs.
let upstream: { origin: string; close(): Promise<void> };
beforeAll(async () => {
  upstream = await listenOnLoopback((request) => {
    const status = Number(new URL(request.url).searchParams.get("status") ?? "200");
    return new Response(`upstream ${status}`, { status, headers: { "content-type": "text/plain", "x-upstream": "1" } });
  });
});
afterAll(async () => {
  await closeHttpHarnesses();
  await upstream.close();
});

class Forward extends OpenAPIRoute {
  schema = { request: { query: z.object({ status: z.number().int().optional() }) }, responses: {} };
  async handle() {
    const { query } = await this.getValidatedData();
    return fetch(`${upstream.origin}/?status=${query.status ?? 200}`);
  }
}

class ThrowsFetched extends OpenAPIRoute {
  schema = { responses: {} };
  async handle(): Promise<never> {
    throw await fetch(`${upstream.origin}/?status=409`);
  }
}

describe.each([...harnesses, ...httpHarnesses])("a Response from fetch() on $name $transport", (harness) => {
  it("is answered as it is: status, headers and body", async () => {
    const { router, request } = harness.make();
    router.get("/forward", Forward);
    router.get("/throws", ThrowsFetched);
    for (const status of [200, 404, 502]) {
      const response = await request(`/forward?status=${status}`);
      expect(response.status).toBe(status);
      expect(response.headers.get("x-upstream")).toBe("1");
      expect(await response.text()).toBe(`upstream ${status}`);
    }
    const thrown = await request("/throws");
    expect(thrown.status).toBe(409);
    expect(await thrown.text()).toBe("upstream 409");
  });
});
