import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
import { callTool, connectMcp, textOf } from "./mcp-client";

/**
 * The tasks example served as MCP at `origin`/mcp, driven by the official SDK's client over HTTP: the
 * tools it lists, reads, writes with the API key and refused without it, and a validation error as a tool
 * error carrying the body HTTP answers. The same on every runtime; the database starts empty.
 */
export async function runMcpTasksScenario(origin: string, apiKey: string): Promise<void> {
  const mcpUrl = new URL("/mcp", origin);
  const reader = await connectMcp(mcpUrl);
  const writer = await connectMcp(mcpUrl, { "X-API-Key": apiKey });
  try {
    await checkToolList(reader);

    // A write with the key, then read back over MCP and over HTTP.
    const created = await callTool(writer, "post_CreateProject", { body: { name: "From MCP" } });
    expect(created.isError).toBeFalsy();
    const project = (created.structuredContent as { result: { id: number; name: string } }).result;
    expect(project).toMatchObject({ name: "From MCP", description: null });
    expect(JSON.parse(textOf(created))).toEqual(created.structuredContent);
    const read = await callTool(reader, "get_GetProject", { path: { id: project.id } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual({ success: true, result: project });
    const overHttp = await fetch(new URL(`/projects/${project.id}`, origin));
    expect(await overHttp.json()).toEqual(read.structuredContent);

    // A nested route: path parameters, a body, query filters and their names kept apart.
    const task = await callTool(writer, "post_CreateTask", {
      path: { projectId: project.id },
      body: { title: "Ship the MCP server", priority: 5 },
    });
    expect(task.structuredContent).toMatchObject({ result: { projectId: project.id, id: 1, priority: 5 } });
    const listed = await callTool(reader, "get_ListTasks", {
      path: { projectId: project.id },
      query: { priority__gte: 4, order_by: "id" },
    });
    expect((listed.structuredContent as { result: unknown[] }).result).toHaveLength(1);
    const stats = await callTool(reader, "get_TaskStats", {
      query: { projectId: project.id },
      headers: { "X-Client": "mcp-test" },
    });
    expect(stats.structuredContent).toEqual({ client: "mcp-test", counts: { todo: 1, doing: 0, done: 0 } });

    // Without the key: a tool error with the 401 body HTTP answers, and nothing written.
    const refused = await callTool(reader, "post_CreateProject", { body: { name: "Refused" } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    const httpRefusal = await fetch(new URL("/projects", origin), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Refused" }),
    });
    expect(httpRefusal.status).toBe(401);
    expect(JSON.parse(textOf(refused))).toEqual(await httpRefusal.json());
    expect(JSON.parse(textOf(refused)).errors[0]).toMatchObject({ code: 7003 });
    const projects = await callTool(reader, "get_ListProjects");
    expect((projects.structuredContent as { result: unknown[] }).result).toHaveLength(1);

    // A validation error: a tool error naming the field, the body HTTP answers.
    const invalid = await callTool(writer, "post_CreateTask", { path: { projectId: project.id }, body: { title: "" } });
    expect(invalid.isError).toBe(true);
    const body = JSON.parse(textOf(invalid));
    expect(body).toMatchObject({ success: false, errors: [{ code: 7001, path: ["body", "title"] }] });
    const httpInvalid = await fetch(new URL(`/projects/${project.id}/tasks`, origin), {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ title: "" }),
    });
    expect(await httpInvalid.json()).toEqual(body);

    // A delete, then the read is a 404 tool error.
    const deleted = await callTool(writer, "delete_DeleteTask", { path: { projectId: project.id, id: 1 } });
    expect(deleted.isError).toBeFalsy();
    const gone = await callTool(reader, "get_GetTask", { path: { projectId: project.id, id: 1 } });
    expect(gone.isError).toBe(true);
    expect(JSON.parse(textOf(gone)).errors[0]).toMatchObject({ code: 7002 });
  } finally {
    await reader.close();
    await writer.close();
  }
}

async function checkToolList(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Every documented operation but the multipart upload (a tool's arguments are JSON).
  expect([...byName.keys()].sort()).toEqual(
    [
      "get_ListProjects",
      "post_CreateProject",
      "get_GetProject",
      "patch_UpdateProject",
      "delete_DeleteProject",
      "get_ListTasks",
      "post_CreateTask",
      "get_GetTask",
      "patch_UpdateTask",
      "delete_DeleteTask",
      "get_ListAttachments",
      "get_TaskStats",
    ].sort(),
  );
  const createTask = byName.get("post_CreateTask")!;
  expect(createTask.title).toBe("Add a task to a project");
  expect(createTask.inputSchema).toMatchObject({
    type: "object",
    properties: {
      path: { type: "object", properties: { projectId: { type: "integer" } }, required: ["projectId"] },
      body: { type: "object", properties: { title: { type: "string", minLength: 1 } } },
    },
    required: ["path", "body"],
    additionalProperties: false,
  });
  expect(createTask.outputSchema).toMatchObject({ type: "object", properties: { success: {}, result: {} } });
  expect(byName.get("get_TaskStats")!.inputSchema.properties).toMatchObject({
    query: { properties: { projectId: { type: "integer" }, due_before: { type: "string" } } },
    headers: { properties: { "X-Client": { type: "string" } } },
  });
  expect(byName.get("get_GetTask")!.annotations).toEqual({ readOnlyHint: true });
  expect(byName.get("delete_DeleteTask")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(byName.get("post_CreateProject")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  // No reference to a document the client does not have.
  expect(JSON.stringify(tools)).not.toContain("#/components/");
}
