import { Hono } from "hono";
import { type DocsAssetsOption, fromHono } from "specroute";
import { serveMcp } from "specroute/mcp";
import {
  CreateProject,
  CreateTask,
  DeleteProject,
  DeleteTask,
  type Env,
  GetProject,
  GetTask,
  ListAttachments,
  ListProjects,
  ListTasks,
  TaskChanges,
  TaskStats,
  UpdateProject,
  UpdateTask,
  UploadAttachment,
} from "./endpoints";

export interface AppOptions {
  docsAssets?: DocsAssetsOption;
}

/** The tasks API: projects, their tasks and their changes, attachments, and a stats endpoint, on one Hono app. */
export function createApp(options: AppOptions = {}) {
  const app = new Hono<{ Bindings: Env }>();

  // Writes check the API key with their `auth` (endpoints.ts); reads and the docs are open.
  const openapi = fromHono(app, {
    schema: {
      info: {
        title: "Tasks API",
        version: "1.0.0",
        description: "Projects and their tasks, built with specroute.",
        license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      },
      servers: [{ url: "/", description: "The server this document is served from" }],
      tags: [
        { name: "projects", description: "Projects group tasks" },
        { name: "tasks", description: "Tasks of a project" },
        { name: "attachments", description: "Files attached to a project" },
        { name: "stats", description: "Figures over all tasks" },
      ],
    },
    docsAssets: options.docsAssets,
  });

  // Chained, so the routes' types reach `typeof openapi` for the typed clients (docs/client.md).
  // `/changes` before `/:id`, which would otherwise take "changes" for a task's id.
  const tasks = fromHono(new Hono<{ Bindings: Env }>())
    .get("/", ListTasks)
    .post("/", CreateTask)
    .get("/changes", TaskChanges)
    .get("/:id", GetTask)
    .patch("/:id", UpdateTask)
    .delete("/:id", DeleteTask);
  const routes = openapi
    .get("/projects", ListProjects)
    .post("/projects", CreateProject)
    .get("/projects/:id", GetProject)
    .patch("/projects/:id", UpdateProject)
    .delete("/projects/:id", DeleteProject)
    .route("/projects/:projectId/tasks", tasks)
    .post("/projects/:projectId/attachments", UploadAttachment)
    .get("/projects/:projectId/attachments", ListAttachments)
    .get("/stats", TaskStats);
  // The same operations as MCP tools at /mcp, but the multipart upload (a tool's arguments are JSON); a tool
  // call runs its route as an HTTP request does, so writes need the same X-API-Key (docs/mcp.md).
  serveMcp(routes, { path: "/mcp", expose: { tags: ["projects", "tasks", "attachments", "stats"] } });
  return { app, openapi: routes };
}

/** The example's routes, for `createClient<TasksApi>(...)` and Hono's `hc<TasksApi>(...)`. */
export type TasksApi = ReturnType<typeof createApp>["openapi"];

/** The app with CDN-hosted docs assets: what Workers serve and what `specroute openapi` reads. */
export const { app, openapi } = createApp();
export default app;
