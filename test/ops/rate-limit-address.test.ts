// The default rate limit key is the client's address as the runtime gives it: the socket on Node, Bun.serve's
// requestIP, Deno.serve's remoteAddr. The runtime matrix runs this file on each runtime's own server.
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, memoryRateLimitStore, OpenAPIRoute, type RateLimitStore, rateLimit } from "../../src";
import { closeHttpHarnesses, harnesses, httpHarnesses, loopbackServer } from "../helpers";

afterAll(closeHttpHarnesses);

const pong = { "200": { description: "pong", ...contentJson(z.object({ pong: z.boolean() })) } };

/** A memory store that also records each bucket it counts in: what the key was. */
function recordingStore(): RateLimitStore & { buckets: string[] } {
  const inner = memoryRateLimitStore();
  const buckets: string[] = [];
  return {
    buckets,
    hit(bucket, policy, ctx) {
      buckets.push(bucket);
      return inner.hit(bucket, policy, ctx);
    },
  };
}

function limitedBy(limit: number, store: RateLimitStore) {
  const policy = rateLimit({ limit, windowSeconds: 60, store });
  return class Limited extends OpenAPIRoute {
    schema = { responses: pong, rateLimit: policy };
    handle() {
      return { pong: true };
    }
  };
}

describe.each(httpHarnesses)(`rate limits by the client's address over HTTP (${loopbackServer}): $name`, (harness) => {
  it("keys by the runtime's address: a client varying CF-Connecting-IP gets no fresh quota", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedBy(3, store));
    const statuses = [];
    for (let i = 1; i <= 6; i++) {
      statuses.push((await app.request("/ping", { headers: { "cf-connecting-ip": `198.51.100.${i}` } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(new Set(store.buckets)).toEqual(new Set(["default:127.0.0.1"]));
  });

  it("takes no key from a long garbage CF-Connecting-IP", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedBy(1, store));
    const garbage = { "cf-connecting-ip": "x".repeat(4000) };
    expect((await app.request("/ping", { headers: garbage })).status).toBe(200);
    expect((await app.request("/ping", { headers: garbage })).status).toBe(429);
    expect(store.buckets).toEqual(["default:127.0.0.1", "default:127.0.0.1"]);
  });

  it("counts two clients at different addresses in their own buckets", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedBy(1, store));
    expect((await app.requestFrom!("127.0.0.1", "/ping")).status).toBe(200);
    expect((await app.requestFrom!("127.0.0.1", "/ping")).status).toBe(429);
    const other = await app.requestFrom!("127.0.0.2", "/ping");
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit")).toMatch(/^"default";r=0;t=/);
    expect(store.buckets).toEqual(["default:127.0.0.1", "default:127.0.0.1", "default:127.0.0.2"]);
  });
});

describe.each(harnesses)("rate limits without a client address: $name", (harness) => {
  const warned: unknown[][] = [];
  const original = console.warn;
  beforeEach(() => {
    warned.length = 0;
    console.warn = (...args: unknown[]) => warned.push(args);
  });
  afterEach(() => {
    console.warn = original;
  });

  it("leaves a request the runtime gives no address for uncounted, warning once, never in a shared bucket", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedBy(1, store));
    // Handed in-process with no server environment: no socket, no requestIP, no remoteAddr, no request.cf.
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(
        await app.serveWith(
          new Request("http://localhost/ping", { headers: { "cf-connecting-ip": `203.0.113.${i}` } }),
          undefined,
        ),
      );
    }
    expect(answers.map((answer) => answer?.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.headers.get("ratelimit-policy")).toBeNull();
    expect(store.buckets).toEqual([]);
    expect(warned).toHaveLength(1);
    expect(String(warned[0]![0])).toMatch(/rate limit "default".*no client address.*uncounted/s);
  });
});
