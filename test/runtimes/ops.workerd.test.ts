import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { d1Driver, sqlIdempotencyStore } from "../../src";
import { startWorker } from "./bundle";

describe("rate limits and idempotency keys inside workerd (Miniflare)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/ops-app.ts", {
      ratelimits: { LIMITER: { simple: { limit: 2, period: 60 } } },
      schema: ["CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)"],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("the SQL idempotency store on D1: of 20 retries racing for a key whose claim lapsed, one takes it over", async () => {
    const db = d1Driver((await worker.mf.getD1Database("DB")) as never);
    let clock = 1_000_000_000_000;
    const store = sqlIdempotencyStore(db, { now: () => clock });
    const ctx = { env: undefined };
    const crashed = { key: "d1-lapsed", fingerprint: "f", leaseEnds: clock + 5_000 };
    expect(await store.claim(crashed, ctx)).toEqual({ state: "claimed" });
    clock += 6_000;
    const retry = { ...crashed, leaseEnds: clock + 5_000 };
    const claims = await Promise.all(Array.from({ length: 20 }, () => store.claim(retry, ctx)));
    expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    // The lapsed claim's answer is refused; the one that took the key over is kept.
    const answer = (status: number) => ({ status, headers: [] as [string, string][], body: "" });
    await store.complete(crashed, answer(200), clock + 60_000, ctx);
    await store.complete(retry, answer(201), clock + 60_000, ctx);
    expect(await store.claim({ ...retry, leaseEnds: clock + 5_001 }, ctx)).toMatchObject({
      state: "done",
      answer: { status: 201 },
    });
  });

  for (const router of ["hono", "itty"]) {
    it(`${router}: the Workers Rate Limiting binding refuses the third request with 429 and Retry-After`, async () => {
      const client = `${router}-binding`;
      const statuses = [];
      let refused: Response | undefined;
      for (let i = 0; i < 3; i++) {
        const answer = await worker.fetch(`/${router}/binding`, { headers: { "x-client": client } });
        statuses.push(answer.status);
        if (answer.status === 429) refused = answer;
        else expect(answer.headers.get("ratelimit-policy")).toBe('"binding";q=2;w=60');
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(refused!.headers.get("retry-after")).toBe("60");
      expect(refused!.headers.get("ratelimit-policy")).toBe('"binding";q=2;w=60');
      expect((await worker.fetch(`/${router}/binding`, { headers: { "x-client": `${client}-2` } })).status).toBe(200);
    });

    it(`${router}: the SQL store on D1 counts in one table, with RateLimit's remaining count`, async () => {
      const client = `${router}-d1`;
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(await worker.fetch(`/${router}/d1`, { headers: { "x-client": client } }));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
      expect(answers[0]!.headers.get("ratelimit")).toMatch(/^"d1";r=1;t=\d+$/);
      const db = await worker.mf.getD1Database("DB");
      const row = await db
        .prepare("SELECT hits FROM specroute_rate_limits WHERE bucket = ?")
        .bind(`d1#${client}`)
        .first();
      expect(row).toEqual({ hits: 3 });
    });

    it(`${router}: the default key is CF-Connecting-IP, which Cloudflare sets: one bucket per address, IPv6 by /64`, async () => {
      const from = (ip: string) => worker.fetch(`/${router}/address`, { headers: { "cf-connecting-ip": ip } });
      const v4 = router === "hono" ? "203.0.113.1" : "203.0.113.2";
      const v6 = router === "hono" ? "2001:db8:a:1" : "2001:db8:a:2";
      const statuses = [];
      for (const ip of [v4, v4, v4, `${v6}::1`, `${v6}:ffff::2`, `${v6}::3`, "198.51.100.7"]) {
        statuses.push((await from(ip)).status);
      }
      expect(statuses).toEqual([200, 200, 429, 200, 200, 429, 200]);
      const db = await worker.mf.getD1Database("DB");
      const rows = await db
        .prepare("SELECT bucket, hits FROM specroute_rate_limits WHERE bucket IN (?, ?) ORDER BY bucket")
        .bind(`address@${v4}`, `address@${v6}::/64`)
        .all();
      expect(rows.results).toEqual([
        { bucket: `address@${v6}::/64`, hits: 3 },
        { bucket: `address@${v4}`, hits: 3 },
      ]);
    });

    it(`${router}: wrong passwords count against the address, with the binding too; a user elsewhere gets in`, async () => {
      const attacker = router === "hono" ? "203.0.113.20" : "203.0.113.21";
      const as = (ip: string, password: string) =>
        worker.fetch(`/${router}/login`, {
          headers: { "cf-connecting-ip": ip, authorization: `Basic ${btoa(`ada:${password}`)}` },
        });
      const statuses = [];
      for (const password of ["a", "b", "right"]) statuses.push((await as(attacker, password)).status);
      expect(statuses).toEqual([401, 401, 429]);
      expect((await as(router === "hono" ? "198.51.100.20" : "198.51.100.21", "right")).status).toBe(200);
    });

    it(`${router}: an idempotency key on D1 runs a create once; a retry replays it, another body is a 422`, async () => {
      const key = `${router}-order-1`;
      const create = (title: string) =>
        worker.fetch(`/${router}/notes`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify({ title }),
        });
      const first = await create("Once");
      expect(first.status).toBe(201);
      const body = await first.text();
      const retries = await Promise.all(Array.from({ length: 5 }, () => create("Once")));
      for (const retry of retries) {
        expect(retry.status).toBe(201);
        expect(await retry.text()).toBe(body);
      }
      expect((await create("Another")).status).toBe(422);
      const db = await worker.mf.getD1Database("DB");
      const rows = await db.prepare("SELECT title FROM notes WHERE title = ?").bind("Once").all();
      expect(rows.results).toHaveLength(router === "hono" ? 1 : 2);
    });

    it(`${router}: a keyed create in a D1 session answers its x-d1-bookmark, and every replay gives it back`, async () => {
      const create = () =>
        worker.fetch(`/${router}/session-notes`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": `${router}-session-1` },
          body: JSON.stringify({ title: "In a session" }),
        });
      const first = await create();
      expect(first.status).toBe(201);
      const bookmark = first.headers.get("x-d1-bookmark");
      expect(bookmark).toBeTruthy();
      const body = await first.text();
      const replay = await create();
      expect(replay.status).toBe(201);
      expect(replay.headers.get("x-d1-bookmark")).toBe(bookmark);
      expect(await replay.text()).toBe(body);
    });
  }
});
