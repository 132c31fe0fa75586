import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TasksApi } from "../../examples/tasks/app";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { createClient } from "../../src/client";
import { runTasksScenario } from "../examples/tasks.scenario";
import { documentErrors } from "../helpers";
import { startWorker } from "./bundle";

describe("the tasks example inside workerd with D1 (Miniflare)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("examples/tasks/worker.ts", {
      schema: MIGRATIONS,
      bindings: { API_KEY: "test-key" },
      durableObjects: { LIVE_CHANGES: "LiveChangesObject" },
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("serves the same scenario as on Node", async () => {
    await runTasksScenario(worker.fetch);
  });

  it("streams a project's task changes to a listener, the writes made by other requests", async () => {
    const origin = await worker.origin();
    const writer = createClient<TasksApi>(origin, { headers: { "x-api-key": "test-key" } });
    const project = await writer.post("/projects", { json: { name: "Live on Workers" } });
    if (!project.ok) throw new Error(`creating the project answered ${project.status}`);
    const projectId = project.data.result.id;
    const listening = await createClient<TasksApi>(origin).get("/projects/:projectId/tasks/changes", {
      param: { projectId },
    });
    if (!listening.ok) throw new Error(`listening answered ${listening.status}`);
    const events = listening.data[Symbol.asyncIterator]();
    const task = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title: "Heard" } });
    if (!task.ok) throw new Error(`creating the task answered ${task.status}`);
    const id = task.data.result.id;
    await writer.patch("/projects/:projectId/tasks/:id", { param: { projectId, id }, json: { status: "done" } });
    await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId, id } });
    const heard = [(await events.next()).value, (await events.next()).value, (await events.next()).value];
    await events.return?.();
    expect(heard.map((event: any) => [event.event, event.data.object.id, event.data.object.status])).toEqual([
      ["created", id, "todo"],
      ["updated", id, "done"],
      ["deleted", id, "done"],
    ]);
  });

  it("serves a valid document and the docs page", async () => {
    expect(await documentErrors(await (await worker.fetch("/openapi.json")).json())).toBeNull();
    expect(await (await worker.fetch("/docs")).text()).toContain("swagger-ui");
  });
});

describe("a chanfana-style D1 app on workerd, unchanged but for the import", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/chanfana-d1-app.ts", {
      schema: [
        "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL UNIQUE, email TEXT NOT NULL, active INTEGER NOT NULL)",
      ],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const post = (body: unknown) =>
    worker.fetch("/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("creates, reads, lists, updates and deletes through env.DB", async () => {
    const created = await post({ username: "ada", email: "ada@example.com", active: true });
    expect(created.status).toBe(201);
    expect((await created.json()).result).toEqual({ id: 1, username: "ada", email: "ada@example.com", active: true });
    await post({ username: "bob", email: "bob@example.com", active: false });
    const duplicate = await post({ username: "ada", email: "x@example.com", active: true });
    expect(duplicate.status).toBe(409);
    expect(await duplicate.text()).not.toMatch(/D1_ERROR|SQLITE/);
    expect((await (await worker.fetch("/users/2")).json()).result.username).toBe("bob");
    const list = await (await worker.fetch("/users?active=true&search=ADA")).json();
    expect(list.result.map((user: { id: number }) => user.id)).toEqual([1]);
    const patched = await worker.fetch("/users/2", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ active: true }),
    });
    expect((await patched.json()).result).toEqual({ id: 2, username: "bob", email: "bob@example.com", active: true });
    expect((await worker.fetch("/users/1", { method: "DELETE" })).status).toBe(200);
    expect((await worker.fetch("/users/1")).status).toBe(404);
  });
});
