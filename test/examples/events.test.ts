import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TasksApi } from "../../examples/tasks/app";
import { createClient } from "../../src/client";
import { startTasksServer, type TasksServer } from "./processes";

// The example's stream over real HTTP: one client listens to a project's task changes while another
// writes, as `npm start` serves it.

const API_KEY = "events-key";
let dir: string;
let server: TasksServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "specroute-events-"));
  server = await startTasksServer({ workers: 1, env: { DB_FILE: join(dir, "tasks.db"), API_KEY } });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /projects/{projectId}/events on the example", () => {
  it("sends a typed event for each task created, changed and deleted while the client listens", async () => {
    const writer = createClient<TasksApi>(server.origin, { headers: { "x-api-key": API_KEY } });
    const listener = createClient<TasksApi>(server.origin);
    const project = await writer.post("/projects", { json: { name: "Streamed" } });
    if (!project.ok) throw new Error(`no project: ${project.status}`);
    const projectId = project.data.result.id;
    const other = await writer.post("/projects", { json: { name: "Elsewhere" } });
    if (!other.ok) throw new Error(`no project: ${other.status}`);

    const listening = await listener.get("/projects/:projectId/events", { param: { projectId } });
    if (!listening.ok) throw new Error(`not listening: ${listening.status}`);
    expect(listening.response.headers.get("content-type")).toBe("text/event-stream");
    const events = listening.data;

    // A change to another project is not this listener's.
    await writer.post("/projects/:projectId/tasks", {
      param: { projectId: other.data.result.id },
      json: { title: "Not heard" },
    });
    const created = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title: "Heard" } });
    if (!created.ok) throw new Error(`no task: ${created.status}`);
    const taskId = created.data.result.id;
    await writer.patch("/projects/:projectId/tasks/:id", {
      param: { projectId, id: taskId },
      json: { status: "done" },
    });
    await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId, id: taskId } });

    const heard = [];
    for await (const event of events) {
      heard.push(event);
      if (heard.length === 3) break;
    }
    expect(
      heard.map((event) => [event.event, event.id, event.data.type, event.data.task.title, event.data.task.status]),
    ).toEqual([
      ["created", `${projectId}/${taskId}`, "created", "Heard", "todo"],
      ["updated", `${projectId}/${taskId}`, "updated", "Heard", "done"],
      ["deleted", `${projectId}/${taskId}`, "deleted", "Heard", "done"],
    ]);
  });

  it("answers 404 for a project that does not exist, before any stream", async () => {
    const response = await fetch(`${server.origin}/projects/999/events`);
    expect(response.status).toBe(404);
    expect((await response.json()).errors[0].message).toBe("No such project");
  });
});
