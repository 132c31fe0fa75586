import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("bulk create and __isnull on D1 inside workerd (env.DB)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/bulk-d1-app.ts", {
      schema: [
        "CREATE TABLE people (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0, note TEXT)",
      ],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const post = (body: unknown) =>
    worker.fetch("/people", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const emails = async (query: string) =>
    ((await (await worker.fetch(`/people?${query}`)).json()).result as { email: string }[]).map((p) => p.email);

  it("creates a batch in one D1 batch, or nothing when an item collides", async () => {
    const created = await post([
      { email: "a@x", name: "ada", note: "first" },
      { email: "b@x", name: "bob", score: 5 },
    ]);
    expect(created.status).toBe(201);
    expect((await created.json()).result).toEqual([
      { id: 1, email: "a@x", name: "ADA", score: 0, note: "first" },
      { id: 2, email: "b@x", name: "BOB", score: 5, note: null },
    ]);
    const collides = await post([
      { email: "c@x", name: "cy" },
      { email: "d@x", name: "di" },
      { email: "a@x", name: "again" },
    ]);
    expect(collides.status).toBe(409);
    expect(await collides.text()).not.toMatch(/D1_ERROR|SQLITE/);
    expect(await emails("order_by=id")).toEqual(["a@x", "b@x"]);
  });

  it("reports invalid items by index", async () => {
    const response = await post([
      { email: "ok@x", name: "ok" },
      { email: "z", name: "" },
    ]);
    expect(response.status).toBe(400);
    const paths = (await response.json()).errors.map((error: { path: unknown[] }) => error.path);
    expect(paths).toEqual([
      ["body", "1", "email"],
      ["body", "1", "name"],
    ]);
  });

  it("filters with __isnull and typed operators", async () => {
    expect(await emails("note__isnull=true")).toEqual(["b@x"]);
    expect(await emails("note__isnull=false")).toEqual(["a@x"]);
    expect(await emails("score__gte=1")).toEqual(["b@x"]);
    expect(await emails("score__in=0&score__in=5&order_by=id")).toEqual(["a@x", "b@x"]);
    expect((await worker.fetch("/people?score__gte=x")).status).toBe(400);
  });
});
