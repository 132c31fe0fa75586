import { createHash } from "node:crypto";
import { Miniflare } from "miniflare";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  basicAuth,
  clientIp,
  contentJson,
  memoryRateLimitStore,
  OpenAPIRoute,
  type RateLimitContext,
  type RateLimitPolicy,
  type RateLimitStore,
  rateLimit,
  sqlRateLimitStore,
  workersRateLimitStore,
} from "../../src";
import { closeHttpHarnesses, documentErrors, harnesses, httpHarnesses, jsonBody } from "../helpers";
import { storeEngines } from "./engines";

afterAll(closeHttpHarnesses);

/** What a store is handed for a bucket counted under its SHA-256. */
const hashedBucket = (bucket: string) => `sha256:${createHash("sha256").update(bucket).digest("hex")}`;

const byHeader = (name: string) => (ctx: { request: Request }) => ctx.request.headers.get(name) ?? "anonymous";

const pong = { "200": { description: "pong", ...contentJson(z.object({ pong: z.boolean() })) } };

class Ping extends OpenAPIRoute {
  schema = { responses: pong };
  handle() {
    return { pong: true };
  }
}

/** Opts out of its routers' limits, written as an app writes it (a class field: `false` widens to boolean). */
class Unlimited extends Ping {
  schema = { responses: pong, rateLimit: false };
}

function limitedRoute(policy: RateLimitPolicy) {
  return class Limited extends Ping {
    schema = { responses: pong, rateLimit: policy };
  };
}

class CreateNote extends OpenAPIRoute {
  static handled = 0;
  schema = {
    rateLimit: rateLimit({ limit: 1, windowSeconds: 60, key: byHeader("x-client"), store: memoryRateLimitStore() }),
    request: { body: contentJson(z.object({ title: z.string() })) },
    responses: { "201": { description: "created" } },
  };
  handle() {
    CreateNote.handled++;
    return new Response(null, { status: 201 });
  }
}

const send = (app: { request(path: string, init?: RequestInit): Promise<Response> }, path: string, client = "a") =>
  app.request(path, { headers: { "x-client": client } });

describe.each(httpHarnesses)("rate limits over HTTP on $name", (harness) => {
  it("answers within the quota with RateLimit headers, then 429 with Retry-After", async () => {
    const app = harness.make();
    const policy = rateLimit({ limit: 3, windowSeconds: 60, key: byHeader("x-client"), store: memoryRateLimitStore() });
    app.router.get("/ping", limitedRoute(policy));
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await send(app, "/ping"));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
    expect(answers[0]!.headers.get("ratelimit")).toMatch(/^"default";r=2;t=(59|60)$/);
    expect(answers[2]!.headers.get("ratelimit")).toMatch(/^"default";r=0;t=/);
    const refused = answers[3]!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=0;t=/);
    expect(refused.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
    expect(((await refused.json()) as any).errors[0].code).toBe(7008);
    // Another client has its own bucket.
    expect((await send(app, "/ping", "b")).status).toBe(200);
  });

  it("a router's limit counts all its routes in one bucket; a route's own replaces it; false opts out", async () => {
    const shared = rateLimit({
      name: "api",
      limit: 2,
      windowSeconds: 60,
      key: byHeader("x-client"),
      store: memoryRateLimitStore(),
    });
    const app = harness.make({ rateLimit: shared });
    const own = rateLimit({
      name: "own",
      limit: 5,
      windowSeconds: 10,
      key: byHeader("x-client"),
      store: memoryRateLimitStore(),
    });
    app.router.get("/a", Ping);
    app.router.get("/b", Ping);
    app.router.get("/own", limitedRoute(own));
    app.router.get("/free", Unlimited);
    expect((await send(app, "/a")).status).toBe(200);
    expect((await send(app, "/b")).status).toBe(200);
    expect((await send(app, "/a")).status).toBe(429);
    expect((await send(app, "/b")).status).toBe(429);
    const ownAnswer = await send(app, "/own");
    expect(ownAnswer.status).toBe(200);
    expect(ownAnswer.headers.get("ratelimit-policy")).toBe('"own";q=5;w=10');
    for (let i = 0; i < 4; i++) {
      const free = await send(app, "/free");
      expect(free.status).toBe(200);
      expect(free.headers.get("ratelimit-policy")).toBeNull();
    }
  });

  it("a mounted router's routes take the parent's limit unless they or their router declare one", async () => {
    const outer = rateLimit({
      name: "outer",
      limit: 1,
      windowSeconds: 60,
      key: byHeader("x-client"),
      store: memoryRateLimitStore(),
    });
    const inner = rateLimit({
      name: "inner",
      limit: 2,
      windowSeconds: 60,
      key: byHeader("x-client"),
      store: memoryRateLimitStore(),
    });
    const app = harness.make({ rateLimit: outer });
    const plain = harness.nested();
    plain.get("/ping", Ping);
    const limited = harness.nested({ rateLimit: inner });
    limited.get("/ping", Ping);
    app.router.route("/plain", plain);
    app.router.route("/limited", limited);
    expect((await send(app, "/plain/ping")).headers.get("ratelimit-policy")).toBe('"outer";q=1;w=60');
    expect((await send(app, "/plain/ping")).status).toBe(429);
    const inside = [
      await send(app, "/limited/ping"),
      await send(app, "/limited/ping"),
      await send(app, "/limited/ping"),
    ];
    expect(inside.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(inside[0]!.headers.get("ratelimit-policy")).toBe('"inner";q=2;w=60');
  });

  it("keys by the principal: counted after authentication, each API key with its own quota", async () => {
    const auth = apiKeyAuth({
      in: "header",
      name: "X-API-Key",
      verify: (key) => (key.startsWith("k") ? { id: key } : null),
    });
    const policy = rateLimit({
      limit: 2,
      windowSeconds: 60,
      key: ({ principal }) => (principal as { id: string }).id,
      store: memoryRateLimitStore(),
    });
    const app = harness.make({ auth, rateLimit: policy });
    app.router.get("/me", Ping);
    const as = (key?: string) => app.request("/me", { headers: key ? { "x-api-key": key } : {} });
    // The refused request counts against the address (one of its 2 failures), not against any key.
    expect((await as()).status).toBe(401);
    expect((await as("k1")).status).toBe(200);
    expect((await as("k1")).status).toBe(200);
    expect((await as("k1")).status).toBe(429);
    expect((await as("k2")).status).toBe(200);
  });

  it("refuses over the limit before reading the body: a 429, not a 400, and handle() does not run", async () => {
    const app = harness.make();
    app.router.post("/notes", CreateNote);
    const client = `${harness.name}-writer`;
    const before = CreateNote.handled;
    const post = (body: unknown) => app.request("/notes", jsonBody(body, { headers: { "x-client": client } }));
    expect((await post({ title: "one" })).status).toBe(201);
    expect((await post({ wrong: 1 })).status).toBe(429);
    expect(CreateNote.handled).toBe(before + 1);
  });

  it("answers a counted request's 400 without RateLimit headers on either router, as the document lists them", async () => {
    const app = harness.make();
    class Note extends CreateNote {
      schema = {
        rateLimit: rateLimit({ limit: 5, windowSeconds: 60, key: byHeader("x-client"), store: memoryRateLimitStore() }),
        request: { body: contentJson(z.object({ title: z.string() })) },
        responses: { "201": { description: "created" } },
      };
    }
    app.router.post("/notes", Note);
    const refused = await app.request("/notes", jsonBody({ wrong: 1 }, { headers: { "x-client": "c" } }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("ratelimit-policy")).toBeNull();
    const created = await app.request("/notes", jsonBody({ title: "t" }, { headers: { "x-client": "c" } }));
    // The 400 was counted: the next answer has 3 left of 5.
    expect(created.headers.get("ratelimit")).toMatch(/^"default";r=3;t=/);
  });

  it("refuses rateLimit: true, which names no policy, on a router and on a route", async () => {
    expect(() => harness.make({ rateLimit: true })).toThrow(/rateLimit: true names no policy/);
    class Vague extends Ping {
      schema = { responses: pong, rateLimit: true };
    }
    const app = harness.make();
    app.router.get("/vague", Vague);
    expect(() => app.router.compile()).toThrow(/GET \/vague \(Vague\): rateLimit: true names no policy/);
  });

  it("keeps at most maxBuckets buckets in memory: a full store of blocked buckets refuses a new key", async () => {
    let clock = 1_000_000;
    const store = memoryRateLimitStore({ maxBuckets: 2, now: () => clock });
    const app = harness.make({
      rateLimit: rateLimit({ limit: 1, windowSeconds: 60, key: byHeader("x-client"), store }),
    });
    app.router.get("/ping", Ping);
    expect((await send(app, "/ping", "one")).status).toBe(200);
    expect((await send(app, "/ping", "two")).status).toBe(200);
    // Both buckets are spent: neither is dropped to make room, so a new key waits for one to expire.
    expect((await send(app, "/ping", "three")).status).toBe(429);
    expect((await send(app, "/ping", "one")).status).toBe(429);
    clock += 60_000;
    expect((await send(app, "/ping", "three")).status).toBe(200);
  });

  it("a full memory store drops expired buckets before live ones", async () => {
    let clock = 1_000_000;
    const store = memoryRateLimitStore({ maxBuckets: 2, now: () => clock });
    const app = harness.make({
      rateLimit: rateLimit({ limit: 5, windowSeconds: 60, key: byHeader("x-client"), store }),
    });
    app.router.get("/ping", Ping);
    await send(app, "/ping", "old");
    clock += 60_000;
    expect((await send(app, "/ping", "live")).headers.get("ratelimit")).toMatch(/r=4;/);
    expect((await send(app, "/ping", "new")).status).toBe(200);
    // "old" had expired and went first: "live" kept its count.
    expect((await send(app, "/ping", "live")).headers.get("ratelimit")).toMatch(/r=3;/);
  });

  it("documents the 429 and the headers on every limited route, and the document validates", async () => {
    const policy = rateLimit({ name: "api", limit: 10, windowSeconds: 60, store: memoryRateLimitStore() });
    const app = harness.make({ rateLimit: policy });
    app.router.get("/a", Ping);
    app.router.get("/free", Unlimited);
    app.router.post("/notes", CreateNote);
    const doc = (await (await app.request("/openapi.json")).json()) as any;
    expect(await documentErrors(doc)).toBeNull();
    const a = doc.paths["/a"].get.responses;
    expect(Object.keys(a["429"].headers)).toEqual(["Retry-After", "RateLimit-Policy", "RateLimit"]);
    expect(a["429"].headers["RateLimit-Policy"].description).toContain('"api";q=10;w=60');
    expect(Object.keys(a["200"].headers)).toEqual(["RateLimit-Policy", "RateLimit"]);
    expect(doc.paths["/notes"].post.responses["429"].description).toContain('"default"');
    expect(doc.paths["/free"].get.responses["429"]).toBeUndefined();
  });

  it("documents what each header says and the route's own 429; answers described by a shared or a zod entry stay as written", async () => {
    const policy = rateLimit({ name: "api", limit: 10, windowSeconds: 60, store: memoryRateLimitStore() });
    const shared = Object.freeze({ description: "shared answer" });
    class Written extends OpenAPIRoute {
      schema = {
        rateLimit: policy,
        responses: {
          "200": { description: "pong", headers: z.object({ "X-Trace": z.string() }) },
          "202": shared,
          "429": { description: "Slow down" },
        },
      };
      handle() {
        return { pong: true };
      }
    }
    const app = harness.make();
    app.router.get("/written", Written);
    app.router.get("/a", limitedRoute(policy));
    const doc = (await (await app.request("/openapi.json")).json()) as any;
    expect(await documentErrors(doc)).toBeNull();
    const written = doc.paths["/written"].get.responses;
    expect(Object.keys(written["200"].headers)).toEqual(["X-Trace"]);
    expect(written["202"].headers).toBeUndefined();
    expect(written["429"].description).toBe("Slow down");
    expect(Object.keys(written["429"].headers)).toEqual(["RateLimit-Policy", "RateLimit"]);
    const a = doc.paths["/a"].get.responses;
    expect(a["429"].description).toBe('Over the rate limit "api": 10 requests per 60 s');
    expect(a["429"].headers["Retry-After"]).toEqual({ description: "Seconds to wait", schema: { type: "integer" } });
    expect(a["200"].headers).toEqual({
      "RateLimit-Policy": {
        description: 'The quota policy: `"api";q=10;w=60` (10 requests per 60 s)',
        schema: { type: "string" },
      },
      RateLimit: {
        description: 'What is left of the quota: `"api";r=<remaining>;t=<seconds to reset>`, when the store counts it',
        schema: { type: "string" },
      },
    });
  });
});

/** A Basic-auth route whose verify counts its calls: only "ada" with "right" gets in. */
function passwordRoute(policy: RateLimitPolicy) {
  const calls = { verify: 0 };
  const auth = basicAuth({
    // As a real check would, it waits (a hash, a database): concurrent attempts are in verify together.
    verify: async ({ username, password }) => {
      calls.verify++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return password === "right" ? { id: username } : null;
    },
  });
  class Login extends Ping {
    schema = { responses: pong, auth, rateLimit: policy };
  }
  return { Login, calls };
}

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
});

/** A memory store that also records each bucket it counts in, and each it gives a hit back to. */
function recordingStore(): RateLimitStore & { buckets: string[]; refunds: string[] } {
  const inner = memoryRateLimitStore();
  const buckets: string[] = [];
  const refunds: string[] = [];
  return {
    buckets,
    refunds,
    hit: (bucket, policy, ctx) => {
      buckets.push(bucket);
      return inner.hit(bucket, policy, ctx);
    },
    refund: (bucket, policy, ctx) => {
      refunds.push(bucket);
      return inner.refund!(bucket, policy, ctx);
    },
  };
}

/** The route `/me` behind `auth` and `/status` public, both under one router policy `name` counting in `store`. */
function keyedApp(
  harness: (typeof httpHarnesses)[number],
  auth: ReturnType<typeof apiKeyAuth>,
  name: string,
  key: (ctx: RateLimitContext) => string | undefined,
  store: RateLimitStore,
) {
  class Me extends Ping {
    schema = { responses: pong };
  }
  class Public extends Ping {
    schema = { responses: pong, security: [] };
  }
  const app = harness.make({ auth, rateLimit: rateLimit({ name, limit: 5, windowSeconds: 3600, key, store }) });
  app.router.get("/me", Me);
  app.router.get("/status", Public);
  return app;
}

/**
 * A key's buckets and an address's never meet, whatever the key is: an account whose id is a victim's address,
 * or a header any client sets to it, spends none of the attempts counted against that address.
 */
async function keysNeverFillAnAddressBucket(harness: (typeof httpHarnesses)[number], store: () => RateLimitStore) {
  const keys = new Map([
    ["key-ada", { id: "ada" }],
    ["key-mallory", { id: "127.0.0.2" }],
  ]);
  const auth = apiKeyAuth({ in: "header", name: "X-API-Key", verify: (key) => keys.get(key) ?? null });
  const byPrincipal = keyedApp(harness, auth, "account", ({ principal }) => (principal as { id: string }).id, store());
  const mallory = { headers: { "x-api-key": "key-mallory" } };
  for (let i = 0; i < 5; i++) expect((await byPrincipal.requestFrom!("127.0.0.1", "/me", mallory)).status).toBe(200);
  expect((await byPrincipal.requestFrom!("127.0.0.1", "/me", mallory)).status).toBe(429);
  const ada = await byPrincipal.requestFrom!("127.0.0.2", "/me", { headers: { "x-api-key": "key-ada" } });
  expect(ada.status).toBe(200);

  // Keyed by a header, as rateLimit()'s example is: a client with no credentials at all sets it to the victim's address.
  const byHeaderKey = keyedApp(harness, auth, "header", byHeader("x-api-key"), store());
  const forged = { headers: { "x-api-key": "127.0.0.2" } };
  for (let i = 0; i < 5; i++) expect((await byHeaderKey.requestFrom!("127.0.0.1", "/status", forged)).status).toBe(200);
  const victim = await byHeaderKey.requestFrom!("127.0.0.2", "/me", { headers: { "x-api-key": "key-ada" } });
  expect(victim.status).toBe(200);
}

describe.each(httpHarnesses)("rate limits and authentication over HTTP on $name", (harness) => {
  it("keeps a key's buckets apart from an address's: no key, whatever its value, fills another client's address bucket", async () => {
    await keysNeverFillAnAddressBucket(harness, memoryRateLimitStore);
  });

  it("counts wrong passwords against the address: past the limit a 429, and verify is not run", async () => {
    const { Login, calls } = passwordRoute(rateLimit({ limit: 5, windowSeconds: 60, store: memoryRateLimitStore() }));
    const app = harness.make();
    app.router.get("/login", Login);
    const statuses = [];
    for (let i = 0; i < 20; i++)
      statuses.push((await app.request("/login", { headers: basic("ada", `guess-${i}`) })).status);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(calls.verify).toBe(5);
    // The right password from that address is not even tried.
    const right = await app.request("/login", { headers: basic("ada", "right") });
    expect(right.status).toBe(429);
    expect(right.headers.get("retry-after")).not.toBeNull();
    expect(calls.verify).toBe(5);
  });

  it("keyed by principal: failures count against the address, and lock out no valid user at another", async () => {
    const store = recordingStore();
    const policy = rateLimit({
      limit: 3,
      windowSeconds: 60,
      key: ({ principal }: RateLimitContext) => (principal as { id: string }).id,
      store,
    });
    const { Login, calls } = passwordRoute(policy);
    const app = harness.make();
    app.router.get("/login", Login);
    const attacker = (password: string) => app.requestFrom!("127.0.0.2", "/login", { headers: basic("ada", password) });
    const user = (name = "ada") => app.requestFrom!("127.0.0.1", "/login", { headers: basic(name, "right") });
    expect([(await attacker("a")).status, (await attacker("b")).status, (await attacker("c")).status]).toEqual([
      401, 401, 401,
    ]);
    expect((await attacker("right")).status).toBe(429);
    expect(calls.verify).toBe(3);
    // Ada at her own address gets in, counted against her principal, not the attacker's address; each
    // accepted attempt gives back what it counted against its address, so more users there than the limit get in.
    expect((await user()).status).toBe(200);
    for (const name of ["bob", "carol", "dave"]) expect((await user(name)).status).toBe(200);
    expect(store.buckets.slice(0, 6)).toEqual([
      "default@127.0.0.2",
      "default@127.0.0.2",
      "default@127.0.0.2",
      "default@127.0.0.2",
      "default@127.0.0.1",
      "default#ada",
    ]);
  });

  it("keyed by principal: 20 wrong passwords sent at once reach verify no more than the limit allows", async () => {
    const policy = rateLimit({
      limit: 5,
      windowSeconds: 60,
      key: ({ principal }: RateLimitContext) => (principal as { id: string }).id,
      store: memoryRateLimitStore(),
    });
    const { Login, calls } = passwordRoute(policy);
    const app = harness.make();
    app.router.get("/login", Login);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => app.request("/login", { headers: basic("ada", `guess-${i}`) })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(calls.verify).toBe(5);
  });
});

describe.each(httpHarnesses)("where the client's address comes from behind a proxy, on $name", (harness) => {
  it("trustProxy.header: the address that header holds, IPv6 grouped by /64; CF-Connecting-IP ignored", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 2, windowSeconds: 60, store, trustProxy: { header: "x-real-ip" } })),
    );
    const from = (ip: string) => app.request("/ping", { headers: { "x-real-ip": ip, "cf-connecting-ip": "10.9.9.9" } });
    expect((await from("203.0.113.7")).status).toBe(200);
    expect((await from("203.0.113.7")).status).toBe(200);
    expect((await from("203.0.113.7")).status).toBe(429);
    expect((await from("203.0.113.8")).status).toBe(200);
    expect((await from("2001:DB8:1:2::1")).status).toBe(200);
    expect((await from("2001:db8:1:2:ffff:0:0:9")).status).toBe(200);
    expect((await from("2001:db8:1:2:abcd::")).status).toBe(429);
    expect((await from("2001:db8:1:3::1")).status).toBe(200);
    expect(new Set(store.buckets)).toEqual(
      new Set(["default@203.0.113.7", "default@203.0.113.8", "default@2001:db8:1:2::/64", "default@2001:db8:1:3::/64"]),
    );
  });

  it("trustProxy.header holding no address: counted by the connection's address, never by the value", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 2, windowSeconds: 60, store, trustProxy: { header: "x-real-ip" } })),
    );
    const statuses = [];
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      for (const value of ["x".repeat(4000), "1.2.3.4.5", "999.1.1.1", "::g", undefined]) {
        statuses.push(
          (await app.request("/ping?token=s3cret", { headers: value === undefined ? {} : { "x-real-ip": value } }))
            .status,
        );
      }
      // Logged once for the policy, naming the header and the route, never the query.
      expect(warn.mock.calls.map(([message]) => String(message).replace(/:\/\/[^/]+/, "://host"))).toEqual([
        '[specroute] rate limit "default" (GET http://host/ping): x-real-ip held no client address: counted by the connection\'s address instead',
      ]);
    } finally {
      warn.mockRestore();
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    expect(new Set(store.buckets)).toEqual(new Set(["default@127.0.0.1"]));
  });

  it("trustProxy.forwardedFor: the entry the nearest trusted proxy appended; what the client sent before it is ignored", async () => {
    const store = recordingStore();
    const app = harness.make();
    const policy = rateLimit({ limit: 1, windowSeconds: 60, store, trustProxy: { forwardedFor: 2 } });
    app.router.get("/ping", limitedRoute(policy));
    const via = (xff: string) => app.request("/ping", { headers: { "x-forwarded-for": xff } });
    expect((await via("198.51.100.1, 203.0.113.5, 10.0.0.2")).status).toBe(200);
    expect((await via("198.51.100.2,203.0.113.5 , 10.0.0.3")).status).toBe(429);
    expect((await via("203.0.113.6, 10.0.0.2")).status).toBe(200);
    // Fewer entries than trusted proxies: the request did not come through them; the connection's address counts.
    expect((await via("10.0.0.2")).status).toBe(200);
    expect((await via("203.0.113.77")).status).toBe(429);
    expect(store.buckets).toEqual([
      "default@203.0.113.5",
      "default@203.0.113.5",
      "default@203.0.113.6",
      "default@127.0.0.1",
      "default@127.0.0.1",
    ]);
  });

  it("trustProxy.header: one address written two ways is one bucket; text that is no address counts by the connection", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 100, windowSeconds: 60, store, trustProxy: { header: "x-real-ip" } })),
    );
    // Under the 64-character bound (a zone after % is ignored), and one character over it.
    const zoned = (length: number) => `2001:db8:9:9::1%${"z".repeat(length - 16)}`;
    const cases: [string, string][] = [
      ["192.0.2.1", "192.0.2.1"],
      ["0.0.0.0", "0.0.0.0"],
      ["::ffff:192.0.2.1", "192.0.2.1"],
      ["::FFFF:C000:0201", "192.0.2.1"],
      ["0:0:0:0:0:ffff:192.0.2.255", "192.0.2.255"],
      ["2001:0db8:0000:0000::1", "2001:db8:0:0::/64"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8:0:0::/64"],
      ["2001:db8:a:b:c:d:1.2.3.4", "2001:db8:a:b::/64"],
      ["fe80::1%eth0", "fe80:0:0:0::/64"],
      ["::1", "0:0:0:0::/64"],
      ["0:0:0:0:1:ffff:c000:201", "0:0:0:0::/64"],
      ["1::ffff:192.0.2.1", "1:0:0:0::/64"],
      [zoned(64), "2001:db8:9:9::/64"],
      [zoned(65), "127.0.0.1"],
      ["01.2.3.4", "127.0.0.1"],
      ["256.1.1.1", "127.0.0.1"],
      ["1.2.3", "127.0.0.1"],
      ["1:2:3:4:5:6:7:8:9", "127.0.0.1"],
      ["1:2:3:4:5:6:7", "127.0.0.1"],
      ["1:2:3:4:5:6:7:8::", "127.0.0.1"],
      // "::" may stand for a single group of zeros.
      ["2001:db8:1:2:3:4::5", "2001:db8:1:2::/64"],
      ["1::2::3", "127.0.0.1"],
      ["12345::1", "127.0.0.1"],
      ["::ffff:1.2.3.256", "127.0.0.1"],
      ["203.0.113.7:8080", "203.0.113.7"],
      ["proxy.example", "127.0.0.1"],
    ];
    for (const [sent] of cases) {
      expect((await app.request("/ping", { headers: { "x-real-ip": sent } })).status, sent).toBe(200);
    }
    expect(store.buckets).toEqual(cases.map(([, bucket]) => `default@${bucket}`));
  });

  it("trustProxy.forwardedFor: one proxy's entry is the last; as many entries as proxies is the first", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get(
      "/one",
      limitedRoute(rateLimit({ limit: 9, windowSeconds: 60, store, trustProxy: { forwardedFor: 1 } })),
    );
    app.router.get(
      "/three",
      limitedRoute(rateLimit({ limit: 9, windowSeconds: 60, store, trustProxy: { forwardedFor: 3 } })),
    );
    const via = (path: string, xff: string) => app.request(path, { headers: { "x-forwarded-for": xff } });
    expect((await via("/one", "203.0.113.9")).status).toBe(200);
    expect((await via("/one", "198.51.100.1,203.0.113.10")).status).toBe(200);
    expect((await via("/three", " 198.51.100.3 , 10.0.0.1, 10.0.0.2")).status).toBe(200);
    expect((await via("/three", "10.0.0.1, 10.0.0.2")).status).toBe(200);
    expect(store.buckets).toEqual([
      "default@203.0.113.9",
      "default@203.0.113.10",
      "default@198.51.100.3",
      "default@127.0.0.1",
    ]);
  });

  it("trustProxy reads an entry a proxy wrote with its port (ip:port, [v6]:port) as that address: each client keeps its own bucket", async () => {
    const store = recordingStore();
    const app = harness.make();
    // Azure's front ends append `ip:port` to X-Forwarded-For.
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 1, windowSeconds: 60, store, trustProxy: { forwardedFor: 1 } })),
    );
    const via = (xff: string) => app.request("/ping", { headers: { "x-forwarded-for": xff } });
    expect((await via("198.51.100.7:50123")).status).toBe(200);
    expect((await via("198.51.100.7:50999")).status).toBe(429);
    expect((await via("10.1.1.1, 198.51.100.8:443")).status).toBe(200);
    expect((await via("[2001:db8:1:2::7]:443")).status).toBe(200);
    expect((await via("[2001:db8:1:2::8]")).status).toBe(429);
    expect((await via("2001:db8:1:3::1")).status).toBe(200);
    // Not an address with a port: a port alone, two ports, a bracket left open, a port past 65535, text before it.
    for (const entry of [":443", "198.51.100.9:1:2", "[2001:db8::1:443", "198.51.100.9:99999", "x203.0.113.9:80"]) {
      await via(entry);
    }
    // The highest port, and the longest entry that holds an address and a port (72 characters).
    await via("198.51.100.9:65535");
    await via(`[2001:db8:9:9::1%${"1".repeat(48)}]:12345`);
    expect(store.buckets).toEqual([
      "default@198.51.100.7",
      "default@198.51.100.7",
      "default@198.51.100.8",
      "default@2001:db8:1:2::/64",
      "default@2001:db8:1:2::/64",
      "default@2001:db8:1:3::/64",
      "default@127.0.0.1",
      "default@127.0.0.1",
      "default@127.0.0.1",
      "default@127.0.0.1",
      "default@127.0.0.1",
      "default@198.51.100.9",
      "default@2001:db8:9:9::/64",
    ]);

    const real = recordingStore();
    const behindNginx = harness.make();
    behindNginx.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 1, windowSeconds: 60, store: real, trustProxy: { header: "x-real-ip" } })),
    );
    expect((await behindNginx.request("/ping", { headers: { "x-real-ip": "203.0.113.9:1234" } })).status).toBe(200);
    expect((await behindNginx.request("/ping", { headers: { "x-real-ip": "203.0.113.10:1234" } })).status).toBe(200);
    expect(real.buckets).toEqual(["default@203.0.113.9", "default@203.0.113.10"]);
  });

  it("refuses a trustProxy that names neither a header nor a count of proxies", () => {
    const store = memoryRateLimitStore();
    const bad = [
      {},
      { header: "" },
      { header: "x real ip" },
      { forwardedFor: 0 },
      { forwardedFor: 1.5 },
      { header: "x-real-ip", forwardedFor: 1 },
    ];
    for (const trustProxy of bad) {
      expect(() => rateLimit({ limit: 1, windowSeconds: 60, store, trustProxy: trustProxy as never })).toThrow(
        /trustProxy/,
      );
    }
  });
});

describe("the memory rate limit store under a flood of new keys", () => {
  const harness = httpHarnesses[0]!;
  it("keeps a blocked client blocked through 10,000+ junk keys, and keeps answering them", async () => {
    const app = harness.make({
      rateLimit: rateLimit({ limit: 2, windowSeconds: 60, key: byHeader("x-client"), store: memoryRateLimitStore() }),
    });
    app.router.get("/ping", Ping);
    const victim = () => send(app, "/ping", "victim");
    expect([(await victim()).status, (await victim()).status, (await victim()).status]).toEqual([200, 200, 429]);
    const statuses = new Map<number, number>();
    let next = 0;
    const flooder = async () => {
      while (next < 10_050) {
        const status = (await send(app, "/ping", `junk-${next++}`)).status;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, flooder));
    // Each junk key had a bucket (or took the place of an older junk one): all were answered within their quota.
    expect(statuses).toEqual(new Map([[200, 10_050]]));
    expect((await victim()).status).toBe(429);
  }, 120_000);
});

// A store shared by processes: two apps (as two processes would) over one database count in one bucket.
const engines = storeEngines("specroute_rate_limits", 4);

describe.each(engines)("the SQL rate limit store on $name", (engine) => {
  it.skipIf(engine.skip)(
    "two apps over one database share the quota; 20 concurrent requests allow exactly the limit",
    async () => {
      const { driver, close } = await engine.open();
      try {
        const store: RateLimitStore = sqlRateLimitStore(driver);
        const apps = httpHarnesses.map((harness) => {
          const app = harness.make({
            rateLimit: rateLimit({ limit: 7, windowSeconds: 3600, key: byHeader("x-client"), store }),
          });
          app.router.get("/ping", Ping);
          return app;
        });
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(apps[i % 2]!, "/ping", "shared")));
        const statuses = answers.map((r) => r.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(7);
        expect(statuses.filter((s) => s === 429)).toHaveLength(13);
        const remaining = answers
          .filter((r) => r.status === 200)
          .map((r) => r.headers.get("ratelimit")!.match(/r=(\d+)/)![1]);
        expect(new Set(remaining).size).toBe(7);
        expect((await send(apps[0]!, "/ping", "other")).status).toBe(200);
      } finally {
        await close();
      }
    },
  );

  it.skipIf(engine.skip)(
    "counts failed authentication against the address: verify is not run past the limit, accepted attempts given back",
    async () => {
      const { driver, close } = await engine.open();
      try {
        const policy = rateLimit({
          limit: 2,
          windowSeconds: 3600,
          key: ({ principal }: RateLimitContext) => (principal as { id: string }).id,
          store: sqlRateLimitStore(driver),
        });
        const { Login, calls } = passwordRoute(policy);
        const app = httpHarnesses[0]!.make();
        app.router.get("/login", Login);
        const from = (address: string, password: string) =>
          app.requestFrom!(address, "/login", { headers: basic("ada", password) });
        const statuses = [];
        for (const password of ["a", "b", "c", "right"]) statuses.push((await from("127.0.0.2", password)).status);
        expect(statuses).toEqual([401, 401, 429, 429]);
        expect(calls.verify).toBe(2);
        expect((await from("127.0.0.1", "right")).status).toBe(200);
        // Accepted attempts are refunded: three users at one address, past its limit of 2, all get in.
        for (const name of ["bob", "carol"]) {
          const answer = await app.requestFrom!("127.0.0.1", "/login", { headers: basic(name, "right") });
          expect(answer.status).toBe(200);
        }
      } finally {
        await close();
      }
    },
  );

  it.skipIf(engine.skip)(
    "keeps a key's buckets apart from an address's: no key, whatever its value, fills another client's address bucket",
    async () => {
      const { driver, close } = await engine.open();
      try {
        await keysNeverFillAnAddressBucket(httpHarnesses[0]!, () => sqlRateLimitStore(driver));
      } finally {
        await close();
      }
    },
  );

  it.skipIf(engine.skip)(
    "keys that differ only by trailing spaces count apart: MariaDB's PAD SPACE key never merges two accounts' buckets",
    async () => {
      const { driver, close } = await engine.open();
      try {
        const policy = rateLimit({
          limit: 1,
          windowSeconds: 3600,
          key: ({ principal }: RateLimitContext) => (principal as { id: string }).id,
          store: sqlRateLimitStore(driver),
        });
        const app = httpHarnesses[0]!.make();
        app.router.get("/login", passwordRoute(policy).Login);
        const statuses = [];
        for (const username of ["ada", "ada ", "ada  ", "ada"]) {
          statuses.push((await app.request("/login", { headers: basic(username, "right") })).status);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
      } finally {
        await close();
      }
    },
  );

  // Before the fix a key holding NUL (`?account=a%00`) was stored as it is, and PostgreSQL's text cannot hold
  // NUL: every such request was a 500. Here, not in a file of its own, because open() drops the shared table.
  it.skipIf(engine.skip)(
    "a key holding NUL is counted like any other key, apart from the key without it: never a 500",
    async () => {
      const { driver, close } = await engine.open();
      try {
        const policy = rateLimit({
          limit: 1,
          windowSeconds: 3600,
          key: ({ request }) => new URL(request.url).searchParams.get("account") ?? undefined,
          store: sqlRateLimitStore(driver),
        });
        const app = httpHarnesses[0]!.make({ rateLimit: policy });
        app.router.get("/ping", Ping);
        const statuses = [];
        for (const account of ["a%00", "a%00", "a"])
          statuses.push((await app.request(`/ping?account=${account}`)).status);
        expect(statuses).toEqual([200, 429, 200]);
      } finally {
        await close();
      }
    },
  );

  it.skipIf(engine.skip)("a new window starts the count again, and prune() drops old buckets", async () => {
    const { driver, close } = await engine.open();
    try {
      let clock = 1_000_000_000_000;
      const store = sqlRateLimitStore(driver, { now: () => clock });
      const policy = { limit: 1, windowSeconds: 60 };
      const ctx = {} as never;
      expect((await store.hit("k", policy, ctx)).allowed).toBe(true);
      expect((await store.hit("k", policy, ctx)).allowed).toBe(false);
      clock += 60_000;
      expect(await store.hit("k", policy, ctx)).toMatchObject({ allowed: true, remaining: 0 });
      clock += 3 * 60_000;
      expect(await store.prune(60)).toBe(1);
      expect((await store.hit("x".repeat(500), policy, ctx)).allowed).toBe(true);
      expect((await store.hit("x".repeat(500), policy, ctx)).allowed).toBe(false);
    } finally {
      await close();
    }
  });

  it.skipIf(engine.skip)(
    "a hit from a slower clock, in an earlier window, counts in the stored window and never moves it back",
    async () => {
      const { driver, close } = await engine.open();
      try {
        // 20 seconds into a window.
        let clock = 1_000_000_040_000;
        const store = sqlRateLimitStore(driver, { now: () => clock });
        const policy = { limit: 3, windowSeconds: 60 };
        const ctx = {} as never;
        const key = `slow-${engine.name}`;
        expect(await store.hit(key, policy, ctx)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 40 });
        clock -= 60_000;
        // The stored window is the later one: its reset stays a whole window ahead of this slower clock.
        expect(await store.hit(key, policy, ctx)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 100 });
        clock += 60_000;
        expect(await store.hit(key, policy, ctx)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
        expect((await store.hit(key, policy, ctx)).allowed).toBe(false);
      } finally {
        await close();
      }
    },
  );
});

describe("a rate limit an app cannot misconfigure into one that limits nothing, or shares another's buckets", () => {
  const store = memoryRateLimitStore();
  const policyNamed = (name: string) => rateLimit({ name, limit: 1, windowSeconds: 60, store });

  it("refuses a name that is no token: one holding @ or # would read as another policy's bucket", () => {
    for (const name of ["default", "api.v1:read", "A-b_c", "*", "a*/b%c", "x9"]) {
      expect(policyNamed(name).policyHeader).toBe(`"${name}";q=1;w=60`);
    }
    for (const name of ["", "1api", "-api", "api@127.0.0.1", "api#ada", "a b", 'a"b', "a;b", "a,b", "api\n"]) {
      expect(() => policyNamed(name), JSON.stringify(name)).toThrow(`rateLimit name must be a token, got ${name}`);
    }
  });

  it("refuses a limit or a window that is not a positive integer, and a store that cannot count", () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3"]) {
      const limit = { limit: value as number, windowSeconds: 60, store };
      const windowSeconds = { limit: 1, windowSeconds: value as number, store };
      expect(() => rateLimit(limit)).toThrow("rateLimit limit must be a positive integer");
      expect(() => rateLimit(windowSeconds)).toThrow("rateLimit windowSeconds must be a positive integer");
    }
    expect(rateLimit({ limit: 1, windowSeconds: 1, store }).policyHeader).toBe('"default";q=1;w=1');
    for (const bad of [undefined, {}, { hit: "no" }]) {
      expect(() => rateLimit({ limit: 1, windowSeconds: 60, store: bad as never })).toThrow(
        "rateLimit store must have a hit() method",
      );
    }
  });

  it("refuses a memory store bound that is not a positive integer", () => {
    for (const maxBuckets of [0, -1, 1.5, Number.NaN]) {
      expect(() => memoryRateLimitStore({ maxBuckets })).toThrow("maxBuckets must be a positive integer");
    }
    expect(memoryRateLimitStore({ maxBuckets: 1 })).toBeDefined();
  });
});

describe("the memory rate limit store's counts, windows and bound", () => {
  const ctx = {} as RateLimitContext;
  const clocked = (options: { maxBuckets?: number } = {}) => {
    const clock = { at: 1_000_000 };
    return { clock, store: memoryRateLimitStore({ ...options, now: () => clock.at }) };
  };

  it("tells what is left and when the window ends, rounded up; a new window starts the count again", async () => {
    const { clock, store } = clocked();
    const policy = { limit: 2, windowSeconds: 60 };
    expect(await store.hit("a", policy, ctx)).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
    clock.at += 20_500;
    expect(await store.hit("a", policy, ctx)).toEqual({ allowed: true, remaining: 0, resetSeconds: 40 });
    expect(await store.hit("a", policy, ctx)).toEqual({ allowed: false, remaining: 0, resetSeconds: 40 });
    clock.at += 39_499;
    expect(await store.hit("a", policy, ctx)).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    // The window's last millisecond is its end: the next hit counts in a new one.
    clock.at += 1;
    expect(await store.hit("a", policy, ctx)).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
  });

  it("a refund gives back one hit, never more than were counted, and nothing once the window ended", async () => {
    const { clock, store } = clocked();
    const policy = { limit: 2, windowSeconds: 60 };
    await store.refund!("never-hit", policy, ctx);
    await store.hit("a", policy, ctx);
    await store.refund!("a", policy, ctx);
    await store.refund!("a", policy, ctx);
    // Two refunds of one hit leave no credit past the limit.
    expect((await store.hit("a", policy, ctx)).remaining).toBe(1);
    expect((await store.hit("a", policy, ctx)).remaining).toBe(0);
    expect((await store.hit("a", policy, ctx)).allowed).toBe(false);
    clock.at += 60_000;
    await store.refund!("a", policy, ctx);
    expect(await store.hit("a", policy, ctx)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("a full store refuses a new key until its first bucket expires, and says how long that is", async () => {
    const { clock, store } = clocked({ maxBuckets: 2 });
    const spent = { limit: 1, windowSeconds: 60 };
    // A window of its own whose one bucket expires, leaving that window empty.
    await store.hit("brief", { limit: 5, windowSeconds: 1 }, ctx);
    await store.hit("a", spent, ctx);
    clock.at += 10_000;
    await store.hit("b", spent, ctx);
    clock.at += 20_000;
    // "a" ends in 30 s: the first room.
    expect(await store.hit("flood", spent, ctx)).toEqual({ allowed: false, remaining: 0, resetSeconds: 30 });
    clock.at += 29_999;
    expect(await store.hit("flood", spent, ctx)).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    clock.at += 1;
    expect(await store.hit("flood", spent, ctx)).toMatchObject({ allowed: true });
    // "b" stays spent: the room came from "a" alone.
    expect((await store.hit("b", spent, ctx)).allowed).toBe(false);
  });

  it("a full store gives up the oldest bucket still within its limit, of any window made in any order, and never a spent one", async () => {
    const once = { limit: 1, windowSeconds: 5 };
    const short = { limit: 5, windowSeconds: 10 };
    const long = { limit: 5, windowSeconds: 60 };
    for (const first of [short, long]) {
      const { clock, store } = clocked({ maxBuckets: 3 });
      const named = (policy: typeof short) => (policy === short ? "short" : "long");
      await store.hit("spent", once, ctx);
      // Both windows' buckets start at once; "short" ends first (10 s against 60 s), whichever window came first.
      for (const policy of first === short ? [short, long] : [long, short]) await store.hit(named(policy), policy, ctx);
      clock.at += 1_000;
      expect((await store.hit("new", long, ctx)).allowed).toBe(true);
      expect(await store.hit("long", long, ctx)).toMatchObject({ remaining: 3 });
      expect((await store.hit("spent", once, ctx)).allowed).toBe(false);
      // "short" made room, so it starts again from its first hit.
      expect(await store.hit("short", short, ctx)).toMatchObject({ remaining: 4 });
    }
  });
});

describe.each(harnesses)("a Workers Rate Limiting binding (Miniflare's) on $name", (harness) => {
  it("refuses past the binding's limit with the window as Retry-After; a route without the binding fails closed", async () => {
    const mf = new Miniflare({
      modules: true,
      script: "export default { fetch: () => new Response(null) }",
      compatibilityDate: "2025-01-01",
      ratelimits: { LIMITER: { simple: { limit: 2, period: 60 } } },
    });
    try {
      const env = await mf.getBindings();
      const limited = (binding: string) =>
        limitedRoute(
          rateLimit({ limit: 2, windowSeconds: 60, key: byHeader("x-client"), store: workersRateLimitStore(binding) }),
        );
      const app = harness.make();
      app.router.get("/ping", limited("LIMITER"));
      app.router.get("/unbound", limited("MISSING"));
      const from = (client: string, path = "/ping") =>
        app.serveWith(new Request(`http://localhost${path}`, { headers: { "x-client": client } }), env);
      // Miniflare counts in the wall clock's minutes: requests that straddle one would start counting again.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_100 - intoMinute));
      const answers = [await from("a"), await from("a"), await from("a")];
      expect(answers.map((answer) => answer?.status)).toEqual([200, 200, 429]);
      // The binding tells no count: the policy, and no RateLimit header.
      expect(answers[0]!.headers.get("ratelimit-policy")).toBe('"default";q=2;w=60');
      expect(answers[0]!.headers.get("ratelimit")).toBeNull();
      expect(answers[2]!.headers.get("retry-after")).toBe("60");
      // Counted by the key the policy made: another client has its own count.
      expect((await from("b"))?.status).toBe(200);
      // Served with no environment at all, or one without the binding: a 500, never an uncounted request.
      const unbound = [await from("a", "/unbound"), await app.request("/ping", { headers: { "x-client": "c" } })];
      expect(unbound.map((answer) => answer?.status)).toEqual([500, 500]);
      const missing = app.caught.map(String).filter((caught) => caught.includes("No Workers Rate Limiting binding"));
      expect(missing).toEqual([
        "Error: No Workers Rate Limiting binding named MISSING",
        "Error: No Workers Rate Limiting binding named LIMITER",
      ]);
    } finally {
      await mf.dispose();
    }
  });
});

describe.each(httpHarnesses)("what a client tries against a limit, over HTTP on $name", (harness) => {
  it("a key over 200 characters is counted under its SHA-256: a huge header is not kept, and long keys sharing a prefix never share a bucket", async () => {
    const store = recordingStore();
    const app = harness.make();
    app.router.get("/ping", limitedRoute(rateLimit({ limit: 1, windowSeconds: 60, key: byHeader("x-client"), store })));
    // "default#" and 192 characters: 200, kept as it is.
    const longest = "k".repeat(192);
    const huge = (last: string) => `${"x".repeat(8000)}${last}`;
    const statuses = [];
    for (const client of [longest, huge("a"), huge("b"), huge("a")])
      statuses.push((await send(app, "/ping", client)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(store.buckets).toEqual([
      `default#${longest}`,
      hashedBucket(`default#${huge("a")}`),
      hashedBucket(`default#${huge("b")}`),
      hashedBucket(`default#${huge("a")}`),
    ]);
  });

  it("a key ending in a space is counted under its SHA-256: no engine that ignores trailing spaces (MariaDB) reads it as the key without them", async () => {
    const store = recordingStore();
    const byPrincipal = rateLimit({
      limit: 5,
      windowSeconds: 60,
      key: ({ principal }) => (principal as { id: string }).id,
      store,
    });
    const app = harness.make();
    app.router.get("/login", passwordRoute(byPrincipal).Login);
    for (const username of ["ada", "ada ", " ada"]) {
      expect((await app.request("/login", { headers: basic(username, "right") })).status).toBe(200);
    }
    const keyBuckets = store.buckets.filter((bucket) => !bucket.startsWith("default@"));
    expect(keyBuckets).toEqual(["default#ada", hashedBucket("default#ada "), "default# ada"]);
  });

  it("a 429 says which limit it is and when to retry: the seconds left, rounded up, never 0", async () => {
    let clock = 1_000_000;
    const store = memoryRateLimitStore({ now: () => clock });
    const app = harness.make();
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ name: "sms", limit: 1, windowSeconds: 60, key: byHeader("x-client"), store })),
    );
    await send(app, "/ping");
    clock += 59_600;
    const refused = await send(app, "/ping");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit")).toBe('"sms";r=0;t=1');
    expect(((await refused.json()) as any).errors[0].message).toBe('Rate limit "sms" exceeded: 1 requests per 60 s');
  });

  it("a store's odd counts never reach the headers: no negative remaining, and a 429 without a reset waits the window", async () => {
    // An app's own store (a Redis script, say) whose count overshot and that tells no reset.
    const overshooting: RateLimitStore = { hit: async () => ({ allowed: false, remaining: -3 }) };
    const app = harness.make();
    app.router.get(
      "/ping",
      limitedRoute(rateLimit({ limit: 5, windowSeconds: 30, key: byHeader("x-client"), store: overshooting })),
    );
    const refused = await send(app, "/ping");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=30');
  });

  it("a request its key exempts (undefined) is never counted, nor filed under one bucket with every other exempt one", async () => {
    const store = recordingStore();
    const app = harness.make();
    const exemptWithoutClient = ({ request }: RateLimitContext) => request.headers.get("x-client") ?? undefined;
    app.router.get("/ping", limitedRoute(rateLimit({ limit: 1, windowSeconds: 60, key: exemptWithoutClient, store })));
    for (let i = 0; i < 3; i++) {
      const answer = await app.request("/ping");
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-policy")).toBeNull();
    }
    expect(store.buckets).toEqual([]);
  });

  it("keyed by principal on a store without refund, accepted logins stay counted against the address; a failing refund fails the request", async () => {
    const memory = memoryRateLimitStore();
    const byPrincipal = (store: RateLimitStore) =>
      rateLimit({ limit: 2, windowSeconds: 60, key: ({ principal }) => (principal as { id: string }).id, store });
    const refundFails = {
      hit: memoryRateLimitStore().hit,
      refund: async () => Promise.reject(new Error("store went away")),
    };
    const app = harness.make();
    app.router.get("/login", passwordRoute(byPrincipal({ hit: memory.hit })).Login);
    app.router.get("/fragile", passwordRoute(byPrincipal(refundFails)).Login);
    const statuses = [];
    for (const name of ["ada", "bob", "carol"])
      statuses.push((await app.request("/login", { headers: basic(name, "right") })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await app.request("/fragile", { headers: basic("ada", "right") })).status).toBe(500);
  });

  it("a redirect, whose headers cannot change, still carries the RateLimit headers", async () => {
    const policy = rateLimit({ limit: 2, windowSeconds: 60, key: byHeader("x-client"), store: memoryRateLimitStore() });
    class Moved extends OpenAPIRoute {
      schema = { rateLimit: policy, responses: { "303": { description: "see other" } } };
      handle() {
        return Response.redirect("http://localhost/elsewhere", 303);
      }
    }
    const app = harness.make();
    app.router.get("/moved", Moved);
    const moved = await app.request("/moved", { headers: { "x-client": "a" }, redirect: "manual" });
    expect(moved.status).toBe(303);
    expect(moved.headers.get("location")).toBe("http://localhost/elsewhere");
    expect(moved.headers.get("ratelimit-policy")).toBe('"default";q=2;w=60');
    expect(moved.headers.get("ratelimit")).toMatch(/^"default";r=1;t=/);
  });

  it("trustProxy names its header in any case; keyed by clientIp explicitly, a login counts once, against the address only", async () => {
    const store = recordingStore();
    const app = harness.make();
    const viaProxy = rateLimit({ limit: 2, windowSeconds: 60, store, trustProxy: { header: "X-Real-IP" } });
    app.router.get("/ping", limitedRoute(viaProxy));
    const { Login } = passwordRoute(rateLimit({ name: "login", limit: 2, windowSeconds: 60, key: clientIp, store }));
    app.router.get("/login", Login);
    expect((await app.request("/ping", { headers: { "x-real-ip": "203.0.113.4" } })).status).toBe(200);
    const logins = [];
    for (let i = 0; i < 3; i++) logins.push((await app.request("/login", { headers: basic("ada", "right") })).status);
    expect(logins).toEqual([200, 200, 429]);
    expect(store.buckets).toEqual(["default@203.0.113.4", "login@127.0.0.1", "login@127.0.0.1", "login@127.0.0.1"]);
  });
});
