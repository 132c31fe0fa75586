import Database from "better-sqlite3";
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import {
  apiKeyAuth,
  betterSqlite3Driver,
  ConflictException,
  fromHono,
  fromIttyRouter,
  InputValidationException,
  type Meta,
  NotFoundException,
  OpenAPIRoute,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  type SqlDriver,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { serveMcp } from "../../src/mcp";

/*
 * The tasks example's project and task endpoints (examples/tasks/endpoints.ts) over models written in
 * another schema library: one builder, handed the library's schemas by tasks-valibot.ts and
 * tasks-arktype.ts. The live TaskChanges endpoint (zod only for now) and the multipart attachments are
 * left out; the rest keeps the example's options (filters, operators, search, order, both paginations,
 * conditional requests, the unique project name, the API key on writes).
 */

/** A model's schema, as `Meta` takes it: a zod object, or another library's through Standard JSON Schema. */
type ModelSchema = NonNullable<Meta["fields"]>;

/** What a library provides: the example's models and TaskStats' schemas, written in that library. */
export interface LibrarySchemas {
  /** The model of a project: id, unique name, description (null by default), created_at. */
  Project: ModelSchema;
  /** The model of a task: (projectId, id), title, status, priority, due. */
  Task: ModelSchema;
  /** What a client sends to create or change a project: Project without id and created_at. */
  NewProject: ModelSchema;
  /** What a client sends to create or change a task: Task without projectId and id. */
  NewTask: ModelSchema;
  /** TaskStats' query: projectId (integer) and due_before (a date), both optional. */
  StatsQuery: ModelSchema;
  /** TaskStats' headers: X-Client (lower-case letters, digits and dashes), optional. */
  StatsHeaders: ModelSchema;
  /** TaskStats' answer: `{ client: string | null, counts: { todo, doing, done } }`. */
  Stats: ModelSchema;
}

/** The API key writes need, in X-API-Key. */
export const API_KEY = "library-key";

const writeKey = apiKeyAuth({
  schemeName: "apiKey",
  in: "header",
  name: "X-API-Key",
  description: "The API key for writes",
  verify: (key) => (key === API_KEY ? { client: "api-key" } : null),
});

/** The router's `db` option, read by plain routes as the auto endpoints read it. */
function routerDb(route: OpenAPIRoute): SqlDriver {
  return (route.params.router as { options: { db: SqlDriver } }).options.db;
}

type ProjectMeta<L extends LibrarySchemas> = {
  model: { tableName: string; schema: L["Project"]; primaryKeys: string[]; unique: string[] };
  tags: string[];
};
type TaskMeta<L extends LibrarySchemas> = {
  model: { tableName: string; schema: L["Task"]; primaryKeys: string[] };
  pathParameters: string[];
  tags: string[];
};
type StatsSchema<L extends LibrarySchemas> = {
  tags: string[];
  summary: string;
  request: { query: L["StatsQuery"]; headers: L["StatsHeaders"] };
  responses: {
    "200": { description: string; content: { "application/json": { schema: L["Stats"] } } };
    "400": ReturnType<typeof InputValidationException.schema>[string];
  };
};

/*
 * The endpoints, each a named class generic in the library: what it does, its options, and the type of
 * its `_meta` (or of TaskStats' `schema`), which the typed clients read. `tasksEndpoints` sets those
 * values from a library's schemas. (Named rather than made inside the builder: an exported type cannot
 * hold an anonymous class, whose protected members a declaration file cannot write.)
 */

export class CreateProject<L extends LibrarySchemas> extends SqlCreateEndpoint {
  declare _meta: ProjectMeta<L> & { fields: L["NewProject"] };
  schema = { summary: "Create a project", auth: writeKey };
  constraintsMessages = {
    "projects.name": new InputValidationException("A project with this name already exists", ["body", "name"]),
  };
}

export class ListProjects<L extends LibrarySchemas> extends SqlListEndpoint {
  declare _meta: ProjectMeta<L>;
  schema = { summary: "List projects" };
  searchFields = ["name", "description"];
  orderByFields = ["id", "name", "created_at"];
  defaultOrderBy = "id";
}

export class GetProject<L extends LibrarySchemas> extends SqlReadEndpoint {
  declare _meta: ProjectMeta<L>;
  conditionalRequests = true;
  schema = { summary: "Get a project" };
}

export class UpdateProject<L extends LibrarySchemas> extends SqlUpdateEndpoint {
  declare _meta: ProjectMeta<L> & { fields: L["NewProject"] };
  conditionalRequests = true;
  schema = { summary: "Change a project", auth: writeKey };
}

export class DeleteProject<L extends LibrarySchemas> extends SqlDeleteEndpoint {
  declare _meta: ProjectMeta<L>;
  conditionalRequests = true;
  schema = { summary: "Delete a project and its tasks", auth: writeKey };
}

export class CreateTask<L extends LibrarySchemas> extends SqlCreateEndpoint {
  declare _meta: TaskMeta<L> & { fields: L["NewTask"] };
  schema = { summary: "Add a task to a project", auth: writeKey };
  checksParent = true;

  /** The project must exist. */
  async before(data: { projectId: number }) {
    const [project] = await this.database().query("SELECT id FROM projects WHERE id = ?", [data.projectId]);
    if (!project) throw new NotFoundException("No such project");
    return data;
  }

  /** Tasks are numbered within their project, one more than the highest; a taken number is tried again. */
  async create(data: { projectId: number }) {
    for (let attempt = 1; ; attempt++) {
      const [row] = await this.database().query<{ next: number }>(
        `SELECT COALESCE(MAX(id), 0) + 1 AS next FROM tasks WHERE "projectId" = ?`,
        [data.projectId],
      );
      try {
        return await super.create({ ...data, id: Number(row!.next) });
      } catch (error) {
        if (!(error instanceof ConflictException) || attempt >= 20) throw error;
      }
    }
  }
}

export class ListTasks<L extends LibrarySchemas> extends SqlListEndpoint {
  declare _meta: TaskMeta<L>;
  pagination = "both" as const;
  schema = { summary: "List a project's tasks" };
  filterFields = ["status", "priority"];
  filterOperators = { priority: ["gte", "lte"] as ("gte" | "lte")[], due: ["lt", "gte"] as ("lt" | "gte")[] };
  searchFields = ["title"];
  orderByFields = ["id", "priority", "due", "title"];
  defaultOrderBy = "id";
}

export class GetTask<L extends LibrarySchemas> extends SqlReadEndpoint {
  declare _meta: TaskMeta<L>;
  conditionalRequests = true;
  schema = { summary: "Get a task" };
}

export class UpdateTask<L extends LibrarySchemas> extends SqlUpdateEndpoint {
  declare _meta: TaskMeta<L> & { fields: L["NewTask"] };
  conditionalRequests = true;
  schema = { summary: "Change a task", auth: writeKey };
}

export class DeleteTask<L extends LibrarySchemas> extends SqlDeleteEndpoint {
  declare _meta: TaskMeta<L>;
  conditionalRequests = true;
  schema = { summary: "Delete a task", auth: writeKey };
}

/** A hand-written endpoint: counts per status, with validated query and header. */
export class TaskStats<L extends LibrarySchemas> extends OpenAPIRoute {
  declare schema: StatsSchema<L>;

  async handle() {
    // Typed by the library's schemas where L is known (the type tests); read here by their shape.
    const { query, headers } = (await this.getValidatedData()) as unknown as {
      query: { projectId?: number; due_before?: string };
      headers: { "X-Client"?: string };
    };
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (query.projectId !== undefined) conditions.push(`"projectId" = ?`) && params.push(query.projectId);
    if (query.due_before !== undefined) conditions.push("due < ?") && params.push(query.due_before);
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
    const rows = await routerDb(this).query<{ status: string; n: number }>(
      `SELECT status, COUNT(*) AS n FROM tasks${where} GROUP BY status`,
      params,
    );
    const counts = { todo: 0, doing: 0, done: 0 };
    for (const row of rows) counts[row.status as keyof typeof counts] = Number(row.n);
    return { client: headers["X-Client"] ?? null, counts };
  }
}

/** The endpoint classes over library `L`'s models. */
export interface TasksEndpoints<L extends LibrarySchemas = LibrarySchemas> {
  CreateProject: typeof CreateProject<L>;
  ListProjects: typeof ListProjects<L>;
  GetProject: typeof GetProject<L>;
  UpdateProject: typeof UpdateProject<L>;
  DeleteProject: typeof DeleteProject<L>;
  CreateTask: typeof CreateTask<L>;
  ListTasks: typeof ListTasks<L>;
  GetTask: typeof GetTask<L>;
  UpdateTask: typeof UpdateTask<L>;
  DeleteTask: typeof DeleteTask<L>;
  TaskStats: typeof TaskStats<L>;
}

/** The example's endpoints over `lib`'s models: the classes above, their `_meta` (and TaskStats' schema) set. */
export function tasksEndpoints<const L extends LibrarySchemas>(lib: L): TasksEndpoints<L> {
  const projectMeta: ProjectMeta<L> = {
    model: { tableName: "projects", schema: lib.Project, primaryKeys: ["id"], unique: ["name"] },
    tags: ["projects"],
  };
  const taskMeta: TaskMeta<L> = {
    model: { tableName: "tasks", schema: lib.Task, primaryKeys: ["projectId", "id"] },
    pathParameters: ["projectId", "id"],
    tags: ["tasks"],
  };
  const newProject = { ...projectMeta, fields: lib.NewProject };
  const newTask = { ...taskMeta, fields: lib.NewTask };
  // Each subclass keeps its parent's name, which the document's operation ids and the MCP tools' names read.
  const named = <C>(name: string, cls: C): C => Object.defineProperty(cls, "name", { value: name });
  return {
    CreateProject: named(
      "CreateProject",
      class extends CreateProject<L> {
        override _meta = newProject;
      },
    ),
    ListProjects: named(
      "ListProjects",
      class extends ListProjects<L> {
        override _meta = projectMeta;
      },
    ),
    GetProject: named(
      "GetProject",
      class extends GetProject<L> {
        override _meta = projectMeta;
      },
    ),
    UpdateProject: named(
      "UpdateProject",
      class extends UpdateProject<L> {
        override _meta = newProject;
      },
    ),
    DeleteProject: named(
      "DeleteProject",
      class extends DeleteProject<L> {
        override _meta = projectMeta;
      },
    ),
    CreateTask: named(
      "CreateTask",
      class extends CreateTask<L> {
        override _meta = newTask;
      },
    ),
    ListTasks: named(
      "ListTasks",
      class extends ListTasks<L> {
        override _meta = taskMeta;
      },
    ),
    GetTask: named(
      "GetTask",
      class extends GetTask<L> {
        override _meta = taskMeta;
      },
    ),
    UpdateTask: named(
      "UpdateTask",
      class extends UpdateTask<L> {
        override _meta = newTask;
      },
    ),
    DeleteTask: named(
      "DeleteTask",
      class extends DeleteTask<L> {
        override _meta = taskMeta;
      },
    ),
    TaskStats: named(
      "TaskStats",
      class extends TaskStats<L> {
        override schema: StatsSchema<L> = {
          tags: ["stats"],
          summary: "Count tasks per status",
          request: { query: lib.StatsQuery, headers: lib.StatsHeaders },
          responses: {
            "200": { description: "Counts per status", content: { "application/json": { schema: lib.Stats } } },
            "400": InputValidationException.schema()["400"]!,
          },
        };
      },
    ),
  };
}

const documentSchema = {
  info: {
    title: "Tasks API",
    version: "1.0.0",
    description: "The tasks example over another schema library.",
    license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
  },
  servers: [{ url: "/", description: "The server this document is served from" }],
  tags: [
    { name: "projects", description: "Projects group tasks" },
    { name: "tasks", description: "Tasks of a project" },
    { name: "stats", description: "Figures over all tasks" },
  ],
};

/**
 * The example's migrations on a fresh in-memory better-sqlite3 database (foreign keys on), seeded
 * with two projects ("Launch", "Other") and one task of project 1 when `seeded`; `reset()` brings it back
 * to that state.
 */
export function tasksDatabase({ seeded = false } = {}): { db: SqlDriver; reset(): void; close(): void } {
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  for (const statement of MIGRATIONS) sqlite.exec(statement);
  const reset = () => {
    sqlite.exec("DELETE FROM tasks; DELETE FROM projects; DELETE FROM sqlite_sequence");
    if (seeded) {
      sqlite.exec("INSERT INTO projects (name) VALUES ('Launch'), ('Other')");
      sqlite.exec("INSERT INTO tasks (projectId, id, title) VALUES (1, 1, 'First')");
    }
  };
  reset();
  return { db: betterSqlite3Driver(sqlite), reset, close: () => sqlite.close() };
}

/** The routes on Hono, chained so their types reach the typed clients; `app.fetch` serves them. */
export function honoTasksApp<L extends LibrarySchemas>(endpoints: TasksEndpoints<L>, db: SqlDriver) {
  const app = new Hono();
  const tasks = fromHono(new Hono(), { db })
    .get("/", endpoints.ListTasks)
    .post("/", endpoints.CreateTask)
    .get("/:id", endpoints.GetTask)
    .patch("/:id", endpoints.UpdateTask)
    .delete("/:id", endpoints.DeleteTask);
  const routes = fromHono(app, { schema: documentSchema, db })
    .get("/projects", endpoints.ListProjects)
    .post("/projects", endpoints.CreateProject)
    .get("/projects/:id", endpoints.GetProject)
    .patch("/projects/:id", endpoints.UpdateProject)
    .delete("/projects/:id", endpoints.DeleteProject)
    .route("/projects/:projectId/tasks", tasks)
    .get("/stats", endpoints.TaskStats);
  return { routes, fetch: (request: Request, env?: unknown) => app.fetch(request, env) };
}

/** The same routes on itty-router. */
export function ittyTasksApp<L extends LibrarySchemas>(endpoints: TasksEndpoints<L>, db: SqlDriver) {
  const tasks = fromIttyRouter(AutoRouter(), { db })
    .get("/", endpoints.ListTasks)
    .post("/", endpoints.CreateTask)
    .get("/:id", endpoints.GetTask)
    .patch("/:id", endpoints.UpdateTask)
    .delete("/:id", endpoints.DeleteTask);
  const router = AutoRouter();
  const routes = fromIttyRouter(router, { schema: documentSchema, db })
    .get("/projects", endpoints.ListProjects)
    .post("/projects", endpoints.CreateProject)
    .get("/projects/:id", endpoints.GetProject)
    .patch("/projects/:id", endpoints.UpdateProject)
    .delete("/projects/:id", endpoints.DeleteProject)
    .route("/projects/:projectId/tasks", tasks)
    .get("/stats", endpoints.TaskStats);
  return { routes, fetch: (request: Request, env?: unknown) => router.fetch(request, env) as Promise<Response> };
}

export type Adapter = "hono" | "itty-router";

/**
 * The app on `adapter` over a fresh database (seeded or not): its routes, a fetch, and the database; with
 * `mcp`, its operations are also MCP tools at /mcp, as in the example (writes need the same X-API-Key).
 */
export function tasksApp(endpoints: TasksEndpoints, adapter: Adapter, { seeded = false, mcp = false } = {}) {
  const database = tasksDatabase({ seeded });
  const built = adapter === "hono" ? honoTasksApp(endpoints, database.db) : ittyTasksApp(endpoints, database.db);
  if (mcp) serveMcp(built.routes, { path: "/mcp", expose: { tags: ["projects", "tasks", "stats"] } });
  return { ...built, routes: built.routes as { getGeneratedSchema(version?: string): any }, database };
}
