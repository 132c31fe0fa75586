import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback, loopbackServer } from "../helpers";
import { API_KEY, type TasksEndpoints, tasksApp } from "../schema-libraries/tasks-app";
import { arktypeTasks } from "../schema-libraries/tasks-arktype";
import { valibotTasks } from "../schema-libraries/tasks-valibot";
import { callTool, connectMcp, textOf } from "./mcp-client";

// The tasks example's endpoints over valibot and ArkType models (test/schema-libraries) as MCP tools,
// served over real HTTP and driven by the official SDK's client: the tools are listed with the
// libraries' JSON Schemas, and a create and a list tool are called (the library validates the arguments).

const cases: Array<{ library: string; endpoints: TasksEndpoints; adapter: "hono" | "itty-router" }> = [
  { library: "valibot", endpoints: valibotTasks, adapter: "hono" },
  { library: "ArkType", endpoints: arktypeTasks, adapter: "hono" },
  { library: "valibot", endpoints: valibotTasks, adapter: "itty-router" },
  { library: "ArkType", endpoints: arktypeTasks, adapter: "itty-router" },
];

describe.each(cases)(
  `$library tasks on $adapter as MCP tools, over HTTP (${loopbackServer})`,
  ({ endpoints, adapter }) => {
    let app: ReturnType<typeof tasksApp>;
    let server: Awaited<ReturnType<typeof listenOnLoopback>>;
    let reader: Client;
    let writer: Client;
    beforeAll(async () => {
      app = tasksApp(endpoints, adapter, { seeded: true, mcp: true });
      server = await listenOnLoopback((request, env) => app.fetch(request, env));
      reader = await connectMcp(`${server.origin}/mcp`);
      writer = await connectMcp(`${server.origin}/mcp`, { "X-API-Key": API_KEY });
    });
    afterAll(async () => {
      await reader?.close();
      await writer?.close();
      await server?.close();
      app?.database.close();
    });

    it("lists a tool per operation, its input schema from the library's JSON Schema", async () => {
      const { tools } = await reader.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
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
          "get_TaskStats",
        ].sort(),
      );
      const createTask = byName.get("post_CreateTask")!;
      expect(createTask.title).toBe("Add a task to a project");
      expect(createTask.inputSchema).toMatchObject({
        type: "object",
        properties: {
          path: { type: "object", properties: { projectId: { type: "integer" } }, required: ["projectId"] },
          body: {
            type: "object",
            properties: {
              title: { type: "string", minLength: 1, maxLength: 200 },
              priority: { type: "integer", minimum: 1, maximum: 5 },
            },
            required: ["title"],
          },
        },
        required: ["path", "body"],
      });
      // The server sets the task's keys: the body does not take them.
      expect(Object.keys((createTask.inputSchema.properties as any).body.properties).sort()).toEqual([
        "due",
        "priority",
        "status",
        "title",
      ]);
      expect(createTask.outputSchema).toMatchObject({ type: "object", properties: { success: {}, result: {} } });
      expect(byName.get("get_ListTasks")!.inputSchema.properties).toMatchObject({
        query: { properties: { priority__gte: { type: "integer" }, search: { type: "string" } } },
      });
      expect(JSON.stringify(tools)).not.toContain("#/components/");
    });

    it("calls the create tool: the object is stored, and bad arguments are a tool error naming each field", async () => {
      const created = await callTool(writer, "post_CreateTask", {
        path: { projectId: 1 },
        body: { title: "From MCP", priority: 5 },
      });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toEqual({
        success: true,
        result: { projectId: 1, id: 2, title: "From MCP", status: "todo", priority: 5, due: null },
      });
      expect(JSON.parse(textOf(created))).toEqual(created.structuredContent);
      const overHttp = await fetch(`${server.origin}/projects/1/tasks/2`);
      expect((await overHttp.json()).result).toMatchObject({ title: "From MCP", priority: 5 });

      const invalid = await callTool(writer, "post_CreateTask", {
        path: { projectId: 1 },
        body: { title: "", priority: 9 },
      });
      expect(invalid.isError).toBe(true);
      const { errors } = JSON.parse(textOf(invalid));
      expect(errors.map((error: { path: unknown }) => error.path).sort()).toEqual([
        ["body", "priority"],
        ["body", "title"],
      ]);

      const refused = await callTool(reader, "post_CreateProject", { body: { name: "No key" } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse(textOf(refused)).errors[0]).toMatchObject({ code: 7003 });
    });

    it("calls the list tool with filters, order and pagination", async () => {
      await callTool(writer, "post_CreateTask", { path: { projectId: 1 }, body: { title: "Low", priority: 1 } });
      const listed = await callTool(reader, "get_ListTasks", {
        path: { projectId: 1 },
        query: { priority__gte: 4, order_by: "priority", order_by_direction: "desc", per_page: 5 },
      });
      expect(listed.isError).toBeFalsy();
      const { result, result_info } = listed.structuredContent as {
        result: Array<{ title: string; priority: number }>;
        result_info: { per_page: number };
      };
      expect(result.map((task) => [task.title, task.priority])).toEqual([["From MCP", 5]]);
      expect(result_info.per_page).toBe(5);
      const projects = await callTool(reader, "get_ListProjects", { query: { search: "oth" } });
      expect((projects.structuredContent as { result: Array<{ name: string }> }).result).toEqual([
        expect.objectContaining({ name: "Other", description: null }),
      ]);
      const bad = await callTool(reader, "get_ListTasks", { path: { projectId: 1 }, query: { order_by: "status" } });
      expect(bad.isError).toBe(true);
    });
  },
);
