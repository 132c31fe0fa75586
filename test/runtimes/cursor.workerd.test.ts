import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("cursor pagination inside workerd, over a real D1", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/cursor-app.ts", {
      schema: [
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, label TEXT)",
        "INSERT INTO notes WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 23) SELECT i, i % 4, CASE WHEN i % 3 = 0 THEN NULL ELSE 'l' || (i % 5) END FROM n",
      ],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("follows the Link header forward and back, every note once, and refuses a foreign cursor", async () => {
    const visit = async (path: string, rel: "next" | "prev") => {
      const seen: number[][] = [];
      let next: string | undefined = path;
      let prevOfLast: string | undefined;
      while (next) {
        const response = await worker.fetch(next);
        expect(response.status).toBe(200);
        seen.push(((await response.json()) as any).result.map((note: { id: number }) => note.id));
        const target = /<([^>]*)>; rel="(\w+)"/g;
        const links = Object.fromEntries(
          [...(response.headers.get("link") ?? "").matchAll(target)].map((m) => [m[2], m[1]]),
        );
        next = links[rel] && `/notes${links[rel]}`;
        prevOfLast = links.prev && `/notes${links.prev}`;
      }
      return { seen, prevOfLast };
    };
    const { seen: forward, prevOfLast } = await visit(
      "/notes?order_by=label&order_by_direction=desc&per_page=5",
      "next",
    );
    expect(forward.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(forward.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
    // NULL labels (every third id) come last when descending.
    expect(forward.flat().slice(-7)).toEqual([3, 6, 9, 12, 15, 18, 21].reverse());
    const { seen: backward } = await visit(prevOfLast!, "prev");
    expect([...backward].reverse()).toEqual(forward.slice(0, -1));

    const last = await worker.fetch("/notes?order_by=label&order_by_direction=desc&per_page=5");
    const cursor = ((await last.json()) as any).result_info.next_cursor as string;
    const foreign = await worker.fetch(`/notes?order_by=rank&per_page=5&cursor=${cursor}`);
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as any).errors[0].path).toEqual(["query", "cursor"]);
  });
});
