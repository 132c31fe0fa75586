import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("the Drizzle endpoints inside workerd, on D1 through drizzle-orm/d1 (env.DB)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/drizzle-d1-app.ts", {
      schema: [
        "CREATE TABLE projects (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE)",
        "CREATE TABLE tasks (project_id INTEGER NOT NULL REFERENCES projects (id), id INTEGER NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (project_id, id))",
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

  it("creates in one D1 batch, or nothing when an item collides, answering 409", async () => {
    const created = await send("/projects", "POST", [{ name: "Alpha" }, { name: "Beta" }]);
    expect(created.status).toBe(201);
    expect((await created.json()).result).toEqual([
      { id: 1, name: "Alpha" },
      { id: 2, name: "Beta" },
    ]);
    const collides = await send("/projects", "POST", [{ name: "Gamma" }, { name: "Alpha" }]);
    expect(collides.status).toBe(409);
    expect(await collides.json()).toEqual({
      success: false,
      errors: [{ code: 7006, message: "An object with this name already exists" }],
      result: {},
    });
    const listed = await (await worker.fetch("/projects?search=a")).json();
    expect(listed.result.map((project: { name: string }) => project.name)).toEqual(["Alpha", "Beta"]);
    expect(listed.result_info).toEqual({ count: 2, page: 1, per_page: 20, total_count: 2 });
  });

  it("serves a nested collection by its pathParameters, with ETags and If-Match from the version column", async () => {
    for (const id of [1, 2, 3]) {
      expect((await send("/projects/1/tasks", "POST", { id, title: `Task ${id}`, done: id === 2 })).status).toBe(201);
    }
    const read = await worker.fetch("/projects/1/tasks/2");
    expect(read.headers.get("etag")).toBe('"v1"');
    expect((await read.json()).result).toEqual({ projectId: 1, id: 2, title: "Task 2", done: true, version: 1 });
    expect((await worker.fetch("/projects/2/tasks/2")).status).toBe(404);
    expect((await send("/projects/1/tasks/2", "PATCH", { title: "Renamed" })).status).toBe(428);
    expect((await send("/projects/1/tasks/2", "PATCH", { title: "Renamed" }, { "if-match": '"v9"' })).status).toBe(412);
    const updated = await send("/projects/1/tasks/2", "PATCH", { title: "Renamed" }, { "if-match": '"v1"' });
    expect(updated.status).toBe(200);
    expect(updated.headers.get("etag")).toBe('"v2"');

    const first = await (await worker.fetch("/projects/1/tasks?per_page=2&done=false")).json();
    expect(first.result.map((task: { id: number }) => task.id)).toEqual([1, 3]);
    expect(first.result_info.next_cursor).toBeNull();
    expect((await send("/projects/1/tasks/3", "DELETE")).status).toBe(200);
    expect((await send("/projects/1/tasks/3", "DELETE")).status).toBe(404);
  });

  it("documents the five endpoints, the 409 of the unique name included", async () => {
    const doc = await (await worker.fetch("/openapi.json")).json();
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/projects",
      "/projects/{projectId}/tasks",
      "/projects/{projectId}/tasks/{id}",
    ]);
    expect(Object.keys(doc.paths["/projects"].post.responses)).toContain("409");
    expect(doc.paths["/projects/{projectId}/tasks/{id}"].patch.parameters.map((p: { name: string }) => p.name)).toEqual(
      ["projectId", "id", "If-Match"],
    );
  });
});
