// The Drizzle endpoints as a Worker: a Drizzle schema, five endpoints per table, the D1 binding env.DB
// wrapped by drizzle-orm/d1 inside workerd.

import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { fromHono } from "specroute";
import {
  DrizzleCreateEndpoint,
  DrizzleDeleteEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
  drizzleMeta,
} from "../../src/drizzle";

const projects = sqliteTable("projects", {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull().unique(),
});
const tasks = sqliteTable(
  "tasks",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id),
    id: integer().notNull(),
    title: text().notNull(),
    done: integer({ mode: "boolean" }).notNull().default(false),
    version: integer().notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

const projectMeta = drizzleMeta(projects, { refine: { name: (name) => name.min(1) } });
const taskMeta = drizzleMeta(tasks, {
  refine: { title: (title) => title.min(1) },
  pathParameters: ["projectId", "id"],
  versionField: "version",
});

class CreateProject extends DrizzleCreateEndpoint {
  _meta = projectMeta;
  dbName = "DB";
  bulk = true;
}
class ListProjects extends DrizzleListEndpoint {
  _meta = projectMeta;
  dbName = "DB";
  searchFields = ["name"];
}
class CreateTask extends DrizzleCreateEndpoint {
  _meta = taskMeta;
  dbName = "DB";
}
class ListTasks extends DrizzleListEndpoint {
  _meta = taskMeta;
  dbName = "DB";
  filterFields = ["done"];
  pagination = "cursor" as const;
  orderByFields = ["id"];
}
class ReadTask extends DrizzleReadEndpoint {
  _meta = taskMeta;
  dbName = "DB";
  conditionalRequests = true;
}
class UpdateTask extends DrizzleUpdateEndpoint {
  _meta = taskMeta;
  dbName = "DB";
  requireIfMatch = true;
}
class DeleteTask extends DrizzleDeleteEndpoint {
  _meta = taskMeta;
  dbName = "DB";
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/projects", CreateProject);
openapi.get("/projects", ListProjects);
const projectTasks = fromHono(new Hono());
projectTasks.post("/", CreateTask);
projectTasks.get("/", ListTasks);
projectTasks.get("/:id", ReadTask);
projectTasks.patch("/:id", UpdateTask);
projectTasks.delete("/:id", DeleteTask);
openapi.route("/projects/:projectId/tasks", projectTasks);

export default app;
