import { Hono } from "hono";
import { type DocsAssetsOption, fromHono, renderException, UnauthorizedException } from "specroute";
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
  TaskStats,
  UpdateProject,
  UpdateTask,
  UploadAttachment,
} from "./endpoints";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The tasks API: projects, their tasks, and a stats endpoint, on one Hono app. */
export function createApp(options: { docsAssets?: DocsAssetsOption } = {}) {
  const app = new Hono<{ Bindings: Env }>();

  // Writes need the API key; reads and the docs are open.
  app.use("*", async (c, next) => {
    if (WRITES.has(c.req.method) && c.req.header("X-API-Key") !== c.env.API_KEY) {
      return renderException(new UnauthorizedException("Send the API key in the X-API-Key header"));
    }
    await next();
  });

  const openapi = fromHono(app, {
    schema: {
      info: { title: "Tasks API", version: "1.0.0", description: "Projects and their tasks, built with specroute." },
      components: { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-Key" } } },
      tags: [
        { name: "projects", description: "Projects group tasks" },
        { name: "tasks", description: "Tasks of a project" },
        { name: "attachments", description: "Files attached to a project" },
        { name: "stats", description: "Figures over all tasks" },
      ],
    },
    docsAssets: options.docsAssets,
  });

  openapi.get("/projects", ListProjects);
  openapi.post("/projects", CreateProject);
  openapi.get("/projects/:id", GetProject);
  openapi.patch("/projects/:id", UpdateProject);
  openapi.delete("/projects/:id", DeleteProject);

  const tasks = fromHono(new Hono<{ Bindings: Env }>());
  tasks.get("/", ListTasks);
  tasks.post("/", CreateTask);
  tasks.get("/:id", GetTask);
  tasks.patch("/:id", UpdateTask);
  tasks.delete("/:id", DeleteTask);
  openapi.route("/projects/:projectId/tasks", tasks);
  openapi.post("/projects/:projectId/attachments", UploadAttachment);
  openapi.get("/projects/:projectId/attachments", ListAttachments);

  openapi.get("/stats", TaskStats);
  return { app, openapi };
}

/** The app with CDN-hosted docs assets: what Workers serve and what `specroute openapi` reads. */
export const { app, openapi } = createApp();
export default app;
