import Database from "better-sqlite3";
import { hc } from "hono/client";
import { createClient } from "specroute/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type TasksApi } from "../../examples/tasks/app";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { betterSqlite3Driver } from "../../src";
import { listenOnLoopback } from "../helpers";

const KEY = "client-test-key";

/** The tasks example on its own in-memory database, served over HTTP on 127.0.0.1. */
async function serveTasks() {
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  for (const statement of MIGRATIONS) sqlite.exec(statement);
  const env = { DB: betterSqlite3Driver(sqlite), API_KEY: KEY };
  const { app } = createApp();
  const server = await listenOnLoopback((request) => app.fetch(request, env));
  return {
    origin: server.origin,
    close: async () => {
      await server.close();
      sqlite.close();
    },
  };
}

describe("createClient over the tasks example", () => {
  let served: Awaited<ReturnType<typeof serveTasks>>;
  beforeAll(async () => {
    served = await serveTasks();
  });
  afterAll(() => served.close());

  it("creates, reads, lists with filters and pages, updates and deletes", async () => {
    const api = createClient<TasksApi>(served.origin, { headers: { "x-api-key": KEY } });

    const project = await api.post("/projects", { json: { name: "Launch", description: "Ship it" } });
    if (!project.ok) throw new Error(`create failed: ${JSON.stringify(project.error)}`);
    expect(project.status).toBe(201);
    const projectId = project.data.result.id;
    expect(project.data.result).toMatchObject({ name: "Launch", description: "Ship it" });

    const read = await api.get("/projects/:id", { param: { id: projectId } });
    expect(read.ok && read.data.result.name).toBe("Launch");

    for (const [title, priority] of [
      ["Draft post", 2],
      ["Review post", 4],
      ["Publish", 5],
      ["Celebrate", 1],
    ] as const) {
      const task = await api.post("/projects/:projectId/tasks", { param: { projectId }, json: { title, priority } });
      expect(task.status, title).toBe(201);
    }

    const page = await api.get("/projects/:projectId/tasks", {
      param: { projectId },
      query: {
        status: "todo",
        priority__gte: 2,
        order_by: "priority",
        order_by_direction: "desc",
        per_page: 2,
        page: 1,
      },
    });
    if (!page.ok) throw new Error(`list failed: ${JSON.stringify(page.error)}`);
    expect(page.data.result.map((task) => task.title)).toEqual(["Publish", "Review post"]);
    expect(page.data.result_info).toMatchObject({ page: 1, per_page: 2, count: 2 });
    const next = await api.get("/projects/:projectId/tasks", {
      param: { projectId },
      query: {
        status: "todo",
        priority__gte: 2,
        order_by: "priority",
        order_by_direction: "desc",
        per_page: 2,
        page: 2,
      },
    });
    expect(next.ok && next.data.result.map((task) => task.title)).toEqual(["Draft post"]);

    const updated = await api.patch("/projects/:projectId/tasks/:id", {
      param: { projectId, id: 1 },
      json: { status: "done" },
    });
    expect(updated.ok && updated.data.result).toMatchObject({ id: 1, title: "Draft post", status: "done" });
    const todo = await api.get("/projects/:projectId/tasks", { param: { projectId }, query: { status: "todo" } });
    expect(todo.ok && todo.data.result.map((task) => task.id)).toEqual([2, 3, 4]);

    const deleted = await api.delete("/projects/:projectId/tasks/:id", { param: { projectId, id: 4 } });
    expect(deleted.ok && deleted.data.result.title).toBe("Celebrate");
    const gone = await api.get("/projects/:projectId/tasks/:id", { param: { projectId, id: 4 } });
    expect(gone.ok).toBe(false);
    expect(gone.status).toBe(404);
    expect(!gone.ok && gone.error.success).toBe(false);
  });

  it("pages by cursor and sends If-Match, reading a stale tag's 412 as a typed error", async () => {
    const api = createClient<TasksApi>(served.origin, { headers: { "x-api-key": KEY } });
    const project = await api.post("/projects", { json: { name: "Cursors" } });
    if (!project.ok) throw new Error(`create failed: ${JSON.stringify(project.error)}`);
    const projectId = project.data.result.id;
    for (const title of ["one", "two", "three"]) {
      await api.post("/projects/:projectId/tasks", { param: { projectId }, json: { title } });
    }

    const titles: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await api.get("/projects/:projectId/tasks", {
        param: { projectId },
        query: { per_page: 2, cursor },
      });
      if (!page.ok) throw new Error(`list failed: ${JSON.stringify(page.error)}`);
      titles.push(...page.data.result.map((task) => task.title));
      if (page.data.result_info.next_cursor === null) break;
      cursor = page.data.result_info.next_cursor;
    }
    expect(titles).toEqual(["one", "two", "three"]);

    const read = await api.get("/projects/:projectId/tasks/:id", { param: { projectId, id: 1 } });
    const etag = read.response.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    const first = await api.patch(
      "/projects/:projectId/tasks/:id",
      { param: { projectId, id: 1 }, json: { title: "first" } },
      { headers: { "if-match": etag } },
    );
    expect(first.status).toBe(200);
    const stale = await api.patch(
      "/projects/:projectId/tasks/:id",
      { param: { projectId, id: 1 }, json: { title: "second" } },
      { headers: { "if-match": etag } },
    );
    if (stale.ok) throw new Error("a stale If-Match was accepted");
    expect(stale.status).toBe(412);
    expect(stale.error.success).toBe(false);
  });

  it("reads a validation failure as a typed error in the envelope", async () => {
    const api = createClient<TasksApi>(served.origin, { headers: { "x-api-key": KEY } });
    const refused = await api.post("/projects", { json: { name: "" } });
    if (refused.ok) throw new Error("an empty name was accepted");
    expect(refused.status).toBe(400);
    expect(refused.error.success).toBe(false);
    expect(refused.error.errors[0]).toMatchObject({ path: ["body", "name"] });
    expect(refused.response.headers.get("content-type")).toMatch(/json/);
  });

  it("sends the per-call headers, the query and a multipart upload", async () => {
    const api = createClient<TasksApi>(served.origin, { headers: () => ({ "x-api-key": KEY }) });
    const project = await api.post("/projects", { json: { name: "Uploads" } });
    if (!project.ok) throw new Error("create failed");
    const projectId = project.data.result.id;
    const file = new File(["hello"], "hello.txt", { type: "text/plain" });
    const uploaded = await api.post("/projects/:projectId/attachments", {
      param: { projectId },
      multipart: { file, note: "greeting" },
    });
    expect(uploaded.ok && uploaded.data).toMatchObject({ projectId, filename: "hello.txt", size: 5, note: "greeting" });

    const stats = await api.get("/stats", { query: { projectId }, header: { "X-Client": "typed-client" } });
    expect(stats.ok && stats.data).toEqual({ client: "typed-client", counts: { todo: 0, doing: 0, done: 0 } });

    const unauthorized = await createClient<TasksApi>(served.origin).post("/projects", { json: { name: "No key" } });
    expect(unauthorized.status).toBe(401);
    expect(!unauthorized.ok && unauthorized.error.errors.length).toBeGreaterThan(0);
  });
});

describe("Hono's hc over the tasks example", () => {
  let served: Awaited<ReturnType<typeof serveTasks>>;
  beforeAll(async () => {
    served = await serveTasks();
  });
  afterAll(() => served.close());

  it("creates, reads, lists with filters and pages, updates and deletes", async () => {
    const client = hc<TasksApi>(served.origin, { headers: { "x-api-key": KEY } });

    const created = await client.projects.$post({ json: { name: "Launch" } });
    expect(created.status).toBe(201);
    if (created.status !== 201) throw new Error("create failed");
    const projectId = String((await created.json()).result.id);

    const read = await client.projects[":id"].$get({ param: { id: projectId } });
    expect(read.status === 200 && (await read.json()).result.name).toBe("Launch");

    const tasks = client.projects[":projectId"].tasks;
    for (const [title, priority] of [
      ["Draft post", 2],
      ["Review post", 4],
      ["Publish", 5],
    ] as const) {
      expect((await tasks.$post({ param: { projectId }, json: { title, priority } })).status, title).toBe(201);
    }

    const page = await tasks.$get({
      param: { projectId },
      query: { priority__gte: "3", order_by: "priority", per_page: "1", page: "2" },
    });
    if (page.status !== 200) throw new Error(`list failed: ${page.status}`);
    const listed = await page.json();
    expect(listed.result.map((task) => task.title)).toEqual(["Publish"]);
    expect(listed.result_info).toMatchObject({ page: 2, per_page: 1 });

    const updated = await tasks[":id"].$patch({ param: { projectId, id: "2" }, json: { status: "doing" } });
    expect(updated.status === 200 && (await updated.json()).result.status).toBe("doing");

    const deleted = await tasks[":id"].$delete({ param: { projectId, id: "3" } });
    expect(deleted.status).toBe(200);
    const gone = await tasks[":id"].$get({ param: { projectId, id: "3" } });
    expect(gone.status).toBe(404);
  });

  it("reads a validation failure as a typed error", async () => {
    const client = hc<TasksApi>(served.origin, { headers: { "x-api-key": KEY } });
    const refused = await client.projects.$post({ json: { name: "" } });
    expect(refused.status).toBe(400);
    if (refused.ok) throw new Error("an empty name was accepted");
    const error = await refused.json();
    expect(error.success).toBe(false);
    expect(error.errors[0]).toMatchObject({ path: ["body", "name"] });
  });
});
