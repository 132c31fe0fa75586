// The default rate limit key is the client's address as the runtime gives it: the socket on Node, Bun.serve's
// requestIP, Deno.serve's remoteAddr. The runtime matrix runs this file on each runtime's own server.
import net from "node:net";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { basicAuth, contentJson, memoryRateLimitStore, OpenAPIRoute, type RateLimitStore, rateLimit } from "../../src";
import { type AdapterHarness, closeHttpHarnesses, harnesses, httpHarnesses, loopbackServer } from "../helpers";

afterAll(closeHttpHarnesses);

const pong = { "200": { description: "pong", ...contentJson(z.object({ pong: z.boolean() })) } };

/** A memory store that also records each bucket it counts in (what the key was), and each it gives a hit back to. */
function recordingStore(): RateLimitStore & { buckets: string[]; refunds: unknown[] } {
  const inner = memoryRateLimitStore();
  const buckets: string[] = [];
  const refunds: unknown[] = [];
  return {
    buckets,
    refunds,
    hit(bucket, policy, ctx) {
      buckets.push(bucket);
      return inner.hit(bucket, policy, ctx);
    },
    refund(bucket, policy, ctx) {
      refunds.push(bucket);
      return inner.refund!(bucket, policy, ctx);
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
    expect(new Set(store.buckets)).toEqual(new Set(["default@127.0.0.1"]));
  });

  it("takes no key from a long garbage CF-Connecting-IP", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedBy(1, store));
    const garbage = { "cf-connecting-ip": "x".repeat(4000) };
    expect((await app.request("/ping", { headers: garbage })).status).toBe(200);
    expect((await app.request("/ping", { headers: garbage })).status).toBe(429);
    expect(store.buckets).toEqual(["default@127.0.0.1", "default@127.0.0.1"]);
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
    expect(store.buckets).toEqual(["default@127.0.0.1", "default@127.0.0.1", "default@127.0.0.2"]);
  });
});

/** A step before the endpoint that awaits, as a session lookup does: the client may be gone when the route runs. */
function awaitingMiddleware(harness: AdapterHarness, ms: number) {
  const pause = () => new Promise((resolve) => setTimeout(resolve, ms));
  if (harness.name === "hono") {
    return async (_c: unknown, next: () => Promise<void>) => {
      await pause();
      await next();
    };
  }
  return async () => {
    await pause();
  };
}

/**
 * Sends a bodiless POST on a raw socket and goes away 5 ms later without reading the answer: with a TCP
 * reset, or by closing its side (FIN). Resolves once the socket is closed.
 */
function sendAndVanish(origin: string, path: string, how: "reset" | "fin"): Promise<void> {
  const { port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
      setTimeout(() => {
        if (how === "fin") socket.end();
        else if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
        else socket.destroy();
      }, 5);
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve());
    // A FIN leaves the socket half open until the server closes its side; give up on it after a second.
    setTimeout(() => socket.destroy(), 1000);
  });
}

describe.each(httpHarnesses)(`rate limits and clients that vanish over HTTP (${loopbackServer}): $name`, (harness) => {
  const warned: unknown[][] = [];
  const original = console.warn;
  beforeEach(() => {
    warned.length = 0;
    console.warn = (...args: unknown[]) => warned.push(args);
  });
  afterEach(() => {
    console.warn = original;
  });

  it.each(["reset", "fin"] as const)(
    "never runs the handler uncounted for a client that goes away (%s) while a middleware awaits",
    async (how) => {
      const store = recordingStore();
      const policy = rateLimit({ name: "sms", limit: 2, windowSeconds: 60, store });
      let ran = 0;
      class SendSms extends OpenAPIRoute {
        schema = { responses: pong, rateLimit: policy };
        handle() {
          ran++;
          return { pong: true };
        }
      }
      const app = harness.make();
      app.router.post("/sms", awaitingMiddleware(harness, 40), SendSms);
      expect((await app.request("/sms", { method: "POST" })).status).toBe(200);
      // The answer's URL tells where the harness serves the app.
      const origin = new URL((await app.request("/sms", { method: "POST" })).url).origin;
      for (let i = 0; i < 8; i++) await sendAndVanish(origin, "/sms", how);
      // Every vanished request has reached the route by now (each waited 40 ms in the middleware).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ran).toBeLessThanOrEqual(2);
      expect((await app.request("/sms", { method: "POST" })).status).toBe(429);
      expect(ran).toBeLessThanOrEqual(2);
      // Where the runtime forgot the address (Node), the refusal was logged once; Deno keeps it, so none.
      expect(warned.length).toBeLessThanOrEqual(1);
    },
  );
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
          new Request(`http://localhost/ping?session=s3cret-${i}`, {
            headers: { "cf-connecting-ip": `203.0.113.${i}` },
          }),
          undefined,
        ),
      );
    }
    expect(answers.map((answer) => answer?.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.headers.get("ratelimit-policy")).toBeNull();
    expect(store.buckets).toEqual([]);
    expect(warned).toHaveLength(1);
    expect(String(warned[0]![0])).toMatch(/rate limit "default".*no client address.*uncounted/s);
    // It says what to do about it.
    expect(String(warned[0]![0])).toContain(
      "Hand the app the runtime's own environment (Bun.serve's server, Deno.serve's info, @hono/node-server's incoming) or set trustProxy: see docs/operations.md",
    );
    // The log names the route, never the query, which may carry a client's secret.
    expect(String(warned[0]![0])).toContain('rate limit "default" (GET http://localhost/ping): ');
    expect(String(warned[0]![0])).not.toContain("s3cret");
  });

  it("keyed by principal, counts a request the runtime gives no address for by its principal alone, giving nothing back", async () => {
    const store = recordingStore();
    const auth = basicAuth({ verify: ({ username, password }) => (password === "right" ? { id: username } : null) });
    const byPrincipal = rateLimit({
      limit: 2,
      windowSeconds: 60,
      key: ({ principal }) => (principal as any).id,
      store,
    });
    class Login extends OpenAPIRoute {
      schema = { responses: pong, auth, rateLimit: byPrincipal };
      handle() {
        return { pong: true };
      }
    }
    const app = harness.make();
    app.router.get("/login", Login);
    const authorization = `Basic ${btoa("ada:right")}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await app.serveWith(new Request("http://localhost/login", { headers: { authorization } }), undefined))?.status,
      );
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(store.buckets).toEqual(["default#ada", "default#ada", "default#ada"]);
    expect(store.refunds).toEqual([]);
  });

  it.each([
    ["Node, a socket already closed", { incoming: { socket: { remoteAddress: undefined } } }],
    ["Bun, requestIP answering null", { requestIP: () => null }],
    ["Deno, a connection without a host name", { remoteAddr: { transport: "unix", path: "/tmp/app.sock" } }],
  ])("refuses with a 400, never serves uncounted, a request the runtime names no address for: %s", async (_, env) => {
    const store = recordingStore();
    let ran = 0;
    class Limited extends OpenAPIRoute {
      schema = { responses: pong, rateLimit: rateLimit({ limit: 1, windowSeconds: 60, store }) };
      handle() {
        ran++;
        return { pong: true };
      }
    }
    const app = harness.make();
    app.router.get("/ping", Limited);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await app.serveWith(new Request("http://localhost/ping"), env));
    expect(answers.map((answer) => answer?.status)).toEqual([400, 400, 400]);
    expect(await answers[0]!.json()).toMatchObject({
      errors: [
        {
          message:
            "The connection has no client address (the client closed it, or the server listens on a socket without addresses): a request that cannot be counted by address is not served",
        },
      ],
    });
    expect(ran).toBe(0);
    expect(store.buckets).toEqual([]);
    expect(warned).toHaveLength(1);
    expect(String(warned[0]![0])).toMatch(/rate limit "default".*named no address.*refused with a 400/s);
    expect(String(warned[0]![0])).toContain("Behind a proxy on a Unix socket, set trustProxy: see docs/operations.md");
  });
});
