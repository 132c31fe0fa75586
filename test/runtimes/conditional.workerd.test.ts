import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("conditional requests on D1 endpoints inside workerd (Miniflare)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/conditional-app.ts", {
      schema: [
        "CREATE TABLE versioned_notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT, version INTEGER NOT NULL DEFAULT 1)",
        "CREATE TABLE row_notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT)",
      ],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const send = (path: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
    worker.fetch(path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const storedRow = async (table: string, id: number) =>
    (await (
      await worker.mf.getD1Database("DB")
    )
      .prepare(`SELECT * FROM ${table} WHERE id = ?`)
      .bind(id)
      .first()) as Record<string, unknown> | null;

  for (const [prefix, table] of [
    ["/versioned", "versioned_notes"],
    ["/rows", "row_notes"],
  ] as const) {
    it(`${prefix}: ETag on create and read, 304, 428, 412 with nothing written, and one winner among 20 writers`, async () => {
      const created = await send(prefix, "POST", { title: "Ada", body: null });
      expect(created.status).toBe(201);
      const tag = created.headers.get("etag")!;
      expect(tag).toMatch(prefix === "/versioned" ? /^"v1"$/ : /^"[A-Za-z0-9_-]{22}"$/);
      const { id } = ((await created.json()) as any).result;

      const read = await worker.fetch(`${prefix}/${id}`);
      expect(read.headers.get("etag")).toBe(tag);
      const cached = await worker.fetch(`${prefix}/${id}`, { headers: { "if-none-match": tag } });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe("");

      expect((await send(`${prefix}/${id}`, "PATCH", { body: "x" })).status).toBe(428);
      expect(await storedRow(table, id)).toMatchObject({ body: null });

      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, writer) =>
          send(`${prefix}/${id}`, "PATCH", { body: `writer ${writer}` }, { "if-match": tag }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(19);
      const winner = responses[statuses.indexOf(200)]!;
      const won = ((await winner.json()) as any).result;
      expect((await storedRow(table, id))?.body).toBe(won.body);
      const current = winner.headers.get("etag")!;
      expect((await worker.fetch(`${prefix}/${id}`)).headers.get("etag")).toBe(current);

      const stale = await send(`${prefix}/${id}`, "DELETE", undefined, { "if-match": tag });
      expect(stale.status).toBe(412);
      expect(((await stale.json()) as any).errors[0].code).toBe(7016);
      expect(await storedRow(table, id)).not.toBeNull();
      expect((await send(`${prefix}/${id}`, "DELETE", undefined, { "if-match": current })).status).toBe(200);
      expect(await storedRow(table, id)).toBeNull();
    });
  }
});
