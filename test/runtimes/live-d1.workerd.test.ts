import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { d1Driver, SqlChangeLog } from "../../src";
import { createClient } from "../../src/client";
import { deliversEveryChange } from "../live/scenario";
import type { TasksRouter } from "../live/tasks-app";
import { startWorker } from "./bundle";

// The reconnect scenario of test/live/scenario.ts in real workerd (Miniflare) on a real D1, over real
// HTTP: D1's triggers record each write's change in its own statement, and the Durable Object wakes
// the listeners, each held by its own request.

describe("a live collection on D1 with its Durable Object, inside workerd", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/live-d1-app.ts", {
      schema: [
        `CREATE TABLE tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, "projectId" INTEGER NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1)`,
      ],
      durableObjects: { LIVE_CHANGES: "LiveChangesObject" },
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("delivers every change to every listener whose filter it meets, in commit order, none lost or twice, across a reconnect", async () => {
    const db = d1Driver((await worker.mf.getD1Database("DB")) as never);
    await deliversEveryChange({
      origins: [await worker.origin()],
      listeners: 8,
      writers: 4,
      writes: 200,
      readLog: () => new SqlChangeLog().readAfter(db, "tasks", 0, 1000),
    });
  }, 120_000);

  it("sends each change's row as the Read endpoint serializes it, its etag, and 401 to a listener without a key", async () => {
    const origin = await worker.origin();
    const writer = createClient<TasksRouter>(origin, { headers: { "x-key": "w" } });
    const reader = createClient<TasksRouter>(origin, { headers: { "x-key": "r" } });
    const anonymous = await createClient<TasksRouter>(origin).get("/projects/:projectId/tasks/changes", {
      param: { projectId: 7 },
    });
    expect(anonymous.status).toBe(401);
    const answer = await reader.get("/projects/:projectId/tasks/changes", { param: { projectId: 7 } });
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    const events = answer.data[Symbol.asyncIterator]();
    const created = await writer.post("/projects/:projectId/tasks", {
      param: { projectId: 7 },
      json: { title: "typed" },
    });
    if (!created.ok) throw new Error(`create answered ${created.status}`);
    const { id } = created.data.result;
    await writer.patch("/projects/:projectId/tasks/:id", { param: { projectId: 7, id }, json: { done: true } });
    const first = await events.next();
    const second = await events.next();
    await events.return?.();
    expect(first.value).toMatchObject({
      event: "created",
      data: { object: { id, projectId: 7, title: "typed", done: false, version: 1 }, etag: '"v1"' },
    });
    expect(second.value).toMatchObject({
      event: "updated",
      data: { object: { id, projectId: 7, title: "typed", done: true, version: 2 }, etag: '"v2"' },
    });
  });

  it("records a write made with raw SQL too, through the three triggers of its table", async () => {
    const db = d1Driver((await worker.mf.getD1Database("DB")) as never);
    const before = await new SqlChangeLog().bounds(db, "tasks");
    await db.execute(`INSERT INTO tasks ("projectId", title) VALUES (?1, ?2)`, [1, "raw"]);
    const [change] = await new SqlChangeLog().readAfter(db, "tasks", before.newest, 10);
    expect(change).toMatchObject({ seq: before.newest + 1, kind: "created", before: null });
    expect(change!.row).toMatchObject({ projectId: 1, title: "raw", done: 0, version: 1 });
    const triggers = await db.query<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tasks'",
      [],
    );
    expect(triggers).toHaveLength(3);
  });
});
