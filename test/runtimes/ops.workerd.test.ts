import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("rate limits inside workerd (Miniflare)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/ops-app.ts", {
      ratelimits: { LIMITER: { simple: { limit: 2, period: 60 } } },
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

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
        .bind(`d1:${client}`)
        .first();
      expect(row).toEqual({ hits: 3 });
    });
  }
});
