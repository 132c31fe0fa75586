import type { Context } from "hono";
import {
  contentJson,
  InputValidationException,
  NotFoundException,
  OpenAPIRoute,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
  toSqlDriver,
} from "specroute";
import { z } from "zod";
import { NewProject, NewTask, projectModel, taskModel } from "./models";

/** The environment: DB is a D1 binding on Workers, a better-sqlite3 driver on Node (see server.ts). */
export type Env = { DB: unknown; API_KEY: string };
type AppContext = Context<{ Bindings: Env }>;

// Every auto endpoint reads the database from the environment binding named DB.
const DB = "DB";
const writeSecurity = [{ apiKey: [] }];

const projectMeta = { model: projectModel, tags: ["projects"] };
const taskMeta = { model: taskModel, pathParameters: ["projectId", "id"], tags: ["tasks"] };

export class CreateProject extends SqlCreateEndpoint {
  _meta = { ...projectMeta, fields: NewProject };
  dbName = DB;
  schema = { summary: "Create a project", security: writeSecurity };
  constraintsMessages = {
    "projects.name": new InputValidationException("A project with this name already exists", ["body", "name"]),
  };
}

export class ListProjects extends SqlListEndpoint {
  _meta = projectMeta;
  dbName = DB;
  schema = { summary: "List projects" };
  searchFields = ["name", "description"];
  orderByFields = ["id", "name", "created_at"];
  defaultOrderBy = "id";
}

export class GetProject extends SqlReadEndpoint {
  _meta = projectMeta;
  dbName = DB;
  schema = { summary: "Get a project" };
}

export class UpdateProject extends SqlUpdateEndpoint {
  _meta = { ...projectMeta, fields: NewProject };
  dbName = DB;
  schema = { summary: "Change a project", security: writeSecurity };
}

export class DeleteProject extends SqlDeleteEndpoint {
  _meta = projectMeta;
  dbName = DB;
  schema = { summary: "Delete a project and its tasks", security: writeSecurity };
}

export class CreateTask extends SqlCreateEndpoint {
  _meta = { ...taskMeta, fields: NewTask };
  dbName = DB;
  schema = { summary: "Add a task to a project", security: writeSecurity };

  /** Tasks are numbered within their project: the next id is one more than the highest. */
  async before(data: { projectId: number }) {
    const [c] = this.args as [AppContext];
    const db = toSqlDriver(c.env.DB);
    const [project] = await db.query("SELECT id FROM projects WHERE id = ?", [data.projectId]);
    if (!project) throw new NotFoundException("No such project");
    const [row] = await db.query<{ next: number }>(
      "SELECT COALESCE(MAX(id), 0) + 1 AS next FROM tasks WHERE projectId = ?",
      [data.projectId],
    );
    return { ...data, id: Number(row!.next) };
  }
}

export class ListTasks extends SqlListEndpoint {
  _meta = taskMeta;
  dbName = DB;
  schema = { summary: "List a project's tasks" };
  filterFields = ["status", "priority"];
  filterOperators = { priority: ["gte", "lte"] as ("gte" | "lte")[], due: ["lt", "gte"] as ("lt" | "gte")[] };
  searchFields = ["title"];
  orderByFields = ["id", "priority", "due", "title"];
  defaultOrderBy = "id";
}

export class GetTask extends SqlReadEndpoint {
  _meta = taskMeta;
  dbName = DB;
  schema = { summary: "Get a task" };
}

export class UpdateTask extends SqlUpdateEndpoint {
  _meta = { ...taskMeta, fields: NewTask };
  dbName = DB;
  schema = { summary: "Change a task", security: writeSecurity };
}

export class DeleteTask extends SqlDeleteEndpoint {
  _meta = taskMeta;
  dbName = DB;
  schema = { summary: "Delete a task", security: writeSecurity };
}

/** A hand-written endpoint: counts per status, with validated query and header. */
export class TaskStats extends OpenAPIRoute {
  schema = {
    tags: ["stats"],
    summary: "Count tasks per status",
    request: {
      query: z.object({
        projectId: z.number().int().optional().describe("Only this project's tasks"),
        due_before: z.iso.date().optional().describe("Only tasks due before this date"),
      }),
      headers: z.object({
        "X-Client": z
          .string()
          .regex(/^[a-z0-9-]{1,40}$/)
          .optional()
          .describe("Name of the calling client, echoed back"),
      }),
    },
    responses: {
      "200": {
        description: "Counts per status",
        ...contentJson(
          z.object({
            client: z.string().nullable(),
            counts: z.object({ todo: z.number().int(), doing: z.number().int(), done: z.number().int() }),
          }),
        ),
      },
      ...InputValidationException.schema(),
    },
  };

  async handle(c: AppContext) {
    const { query, headers } = await this.getValidatedData();
    const db = toSqlDriver(c.env.DB);
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (query.projectId !== undefined) {
      conditions.push("projectId = ?");
      params.push(query.projectId);
    }
    if (query.due_before !== undefined) {
      conditions.push("due < ?");
      params.push(query.due_before);
    }
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
    const rows = await db.query<{ status: string; n: number }>(
      `SELECT status, COUNT(*) AS n FROM tasks${where} GROUP BY status`,
      params,
    );
    const counts = { todo: 0, doing: 0, done: 0 };
    for (const row of rows) counts[row.status as keyof typeof counts] = Number(row.n);
    return { client: headers["X-Client"] ?? null, counts };
  }
}
