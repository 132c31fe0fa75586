import type { Context } from "hono";
import {
  apiKeyAuth,
  ConflictException,
  changeFeed,
  clientIp,
  constantTimeEqual,
  contentJson,
  contentMultipart,
  type Filters,
  fileField,
  InputValidationException,
  idempotency,
  NotFoundException,
  OpenAPIRoute,
  rateLimit,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
  safeFileName,
  sqlIdempotencyStore,
  sqlRateLimitStore,
  toSqlDriver,
} from "specroute";
import { z } from "zod";
import { Attachment, NewProject, NewTask, projectModel, taskModel } from "./models";

/**
 * The environment: DB is a D1 binding on Workers, elsewhere a driver over the runtime's SQLite or pg (see
 * database.ts). Off Workers, each server also hands on what its runtime says of the connection (Node's
 * `incoming`, Bun's `server`, Deno's `remoteAddr`): where the writes' rate limit reads the client's address.
 */
export type Env = { DB: unknown; API_KEY: string; incoming?: unknown; server?: unknown; remoteAddr?: unknown };
type AppContext = Context<{ Bindings: Env }>;

// Every auto endpoint reads the database from the environment binding named DB.
const DB = "DB";

// The hand-written statements below run on SQLite, D1 and PostgreSQL: values go through the driver's
// own placeholder (`?` or `$1`), and "projectId" is quoted so PostgreSQL keeps its case.

/** Writes need the key in the environment's API_KEY, sent in the X-API-Key header; reads are open. */
const writeKey = apiKeyAuth({
  schemeName: "apiKey",
  in: "header",
  name: "X-API-Key",
  description: "The API key for writes (the API_KEY environment variable)",
  // constantTimeEqual, not ===: its time says nothing of how much of a guess was right; an unset API_KEY lets no one in.
  verify: async (key, { args }) =>
    (await constantTimeEqual(key, (args[0] as AppContext).env.API_KEY)) ? { client: "api-key" } : null,
});

/**
 * Every write (create, change, delete, upload) counts against one quota per client: the API key's
 * client, or the caller's IP without one. 6000 a minute (or WRITE_LIMIT where the process environment
 * sets it: `npm run soak` raises it, to load the server rather than its limit), counted in the example's
 * own database (its `specroute_rate_limits` table, made by the migrations), so the processes of a
 * cluster and the isolates of a Worker on D1 share the count. Over it, a 429 with `Retry-After`; every answer of a
 * write carries `RateLimit` and `RateLimit-Policy` (docs/operations.md).
 */
export const writeLimit = rateLimit({
  name: "writes",
  limit: Number(globalThis.process?.env?.WRITE_LIMIT ?? 6000),
  windowSeconds: 60,
  key: (ctx) => (ctx.principal as { client?: string } | undefined)?.client ?? clientIp(ctx),
  store: sqlRateLimitStore(({ env }) => toSqlDriver(env.DB)),
});

/**
 * Creates take an `Idempotency-Key` (docs/operations.md): a retried create with the same key gets the
 * first answer and creates nothing more; the key on another request is a 422. Keys and their answers
 * are kept a day in the `specroute_idempotency` table, beside the data.
 */
export const createOnce = idempotency({
  store: sqlIdempotencyStore(({ env }) => toSqlDriver(env.DB)),
  expiresSeconds: 86_400,
});

const projectMeta = { model: projectModel, tags: ["projects"] };

/**
 * The tasks are a live collection (docs/live.md): each write through CreateTask, UpdateTask and
 * DeleteTask records its change in the change log, in the write's own transaction, and TaskChanges
 * streams them to every listener, whichever process it is connected to.
 */
export const taskFeed = changeFeed();
const taskMeta = { model: taskModel, pathParameters: ["projectId", "id"], tags: ["tasks"], changes: taskFeed };

export class CreateProject extends SqlCreateEndpoint {
  _meta = { ...projectMeta, fields: NewProject };
  dbName = DB;
  schema = { summary: "Create a project", auth: writeKey, rateLimit: writeLimit, idempotency: createOnce };
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
  // An ETag on every answer, and 304 when If-None-Match already holds it.
  conditionalRequests = true;
  schema = { summary: "Get a project" };
}

export class UpdateProject extends SqlUpdateEndpoint {
  _meta = { ...projectMeta, fields: NewProject };
  dbName = DB;
  // A stale If-Match is a 412 and writes nothing: of two clients editing one version, one wins.
  conditionalRequests = true;
  schema = { summary: "Change a project", auth: writeKey, rateLimit: writeLimit };
}

export class DeleteProject extends SqlDeleteEndpoint {
  _meta = projectMeta;
  dbName = DB;
  // A stale If-Match is a 412 and writes nothing: of two clients editing one version, one wins.
  conditionalRequests = true;
  schema = { summary: "Delete a project and its tasks", auth: writeKey, rateLimit: writeLimit };
}

/** How long a task create keeps retrying a taken number before it answers the conflict. */
const CREATE_PATIENCE_MS = 10_000;

export class CreateTask extends SqlCreateEndpoint {
  _meta = { ...taskMeta, fields: NewTask };
  dbName = DB;
  schema = { summary: "Add a task to a project", auth: writeKey, rateLimit: writeLimit, idempotency: createOnce };
  // `before` answers 404 for a missing project; this puts that 404 in the document.
  checksParent = true;

  /** The project must exist. */
  async before(data: { projectId: number }) {
    const db = this.database();
    const [project] = await db.query(`SELECT id FROM projects WHERE id = ${db.dialect.placeholder(1)}`, [
      data.projectId,
    ]);
    if (!project) throw new NotFoundException("No such project");
    return data;
  }

  /**
   * Tasks are numbered within their project, one more than the highest. Two concurrent creates can
   * pick the same number; the loser's insert is a conflict, so it takes the next number and retries.
   * It first waits a random moment that grows with each loss: creators that collided in step would
   * otherwise pick the same next number again. Every round of colliding creators has one winner (the
   * live collection's writes run one after another), so each creator gets its turn; it gives up only
   * after CREATE_PATIENCE_MS, not after a count of losses, which a busy project can exhaust.
   */
  async create(data: { projectId: number }) {
    const db = this.database();
    const deadline = Date.now() + CREATE_PATIENCE_MS;
    for (let attempt = 1; ; attempt++) {
      const [row] = await db.query<{ next: number }>(
        `SELECT COALESCE(MAX(id), 0) + 1 AS next FROM tasks WHERE "projectId" = ${db.dialect.placeholder(1)}`,
        [data.projectId],
      );
      try {
        return await super.create({ ...data, id: Number(row!.next) });
      } catch (error) {
        if (!(error instanceof ConflictException) || Date.now() > deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt, 6)));
    }
  }
}

export class ListTasks extends SqlListEndpoint {
  _meta = taskMeta;
  dbName = DB;
  // Page numbers, and cursors (keyset pages that never repeat or skip a task under concurrent writes).
  pagination = "both" as const;
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
  // An ETag on every answer, and 304 when If-None-Match already holds it.
  conditionalRequests = true;
  schema = { summary: "Get a task" };
}

export class UpdateTask extends SqlUpdateEndpoint {
  _meta = { ...taskMeta, fields: NewTask };
  dbName = DB;
  // A stale If-Match is a 412 and writes nothing: of two clients editing one version, one wins.
  conditionalRequests = true;
  schema = { summary: "Change a task", auth: writeKey, rateLimit: writeLimit };
}

export class DeleteTask extends SqlDeleteEndpoint {
  _meta = taskMeta;
  dbName = DB;
  // A stale If-Match is a 412 and writes nothing: of two clients editing one version, one wins.
  conditionalRequests = true;
  schema = { summary: "Delete a task", auth: writeKey, rateLimit: writeLimit };
}

/**
 * A stream of the project's task changes as Server-Sent Events (`created`, `updated`, `deleted`, each
 * with the task and its id in the change log), for as long as the client listens; a client that
 * reconnects with `Last-Event-ID` gets what it missed. Open as ListTasks is, with its filters.
 */
export class TaskChanges extends SqlChangesEndpoint {
  _meta = taskMeta;
  dbName = DB;
  schema = { summary: "Listen to a project's task changes" };
  filterFields = ["status", "priority"];
  // `before` answers 404 for a missing project; this puts that 404 in the document.
  checksParent = true;

  /** The project must exist: a listener of no project would wait for ever. */
  override async before(filters: Filters): Promise<Filters> {
    const projectId = filters.filters.find((filter) => filter.field === "projectId")?.value;
    const db = this.database();
    const [project] = await db.query(`SELECT id FROM projects WHERE id = ${db.dialect.placeholder(1)}`, [projectId]);
    if (!project) throw new NotFoundException("No such project");
    return filters;
  }
}

const ProjectPath = z.object({ projectId: z.number().int() });

/** Largest accepted attachment: 256 KiB. */
export const MAX_ATTACHMENT_SIZE = 256 * 1024;

/** A file upload: multipart form data, the file checked for size and type, its metadata kept in SQL. */
export class UploadAttachment extends OpenAPIRoute {
  schema = {
    tags: ["attachments"],
    summary: "Attach a file to a project",
    auth: writeKey,
    // Limited like every write; no idempotency key: a multipart body is not part of a key's fingerprint.
    rateLimit: writeLimit,
    request: {
      params: ProjectPath,
      body: contentMultipart(
        z.object({
          file: fileField({
            maxSize: MAX_ATTACHMENT_SIZE,
            types: ["text/plain", "image/png", "image/jpeg", "application/pdf"],
            description: "Up to 256 KiB of text, PNG, JPEG or PDF",
          }),
          note: z.string().max(200).optional().describe("Why the file is here"),
        }),
      ),
    },
    responses: {
      "201": { description: "The stored attachment", ...contentJson(Attachment) },
      ...InputValidationException.schema(),
      ...NotFoundException.schema(),
    },
  };

  async handle(c: AppContext) {
    const { params, body } = await this.getValidatedData();
    const db = toSqlDriver(c.env.DB);
    const [project] = await db.query(`SELECT id FROM projects WHERE id = ${db.dialect.placeholder(1)}`, [
      params.projectId,
    ]);
    if (!project) throw new NotFoundException("No such project");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await body.file.arrayBuffer()));
    const sha256 = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    const values = [1, 2, 3, 4, 5, 6].map(db.dialect.placeholder).join(", ");
    const [row] = await db.query(
      `INSERT INTO attachments ("projectId", filename, content_type, size, sha256, note)
       VALUES (${values}) RETURNING *`,
      // The name is the client's (`../../x`, control characters, any length): kept only once made safe.
      [params.projectId, safeFileName(body.file.name), body.file.type, body.file.size, sha256, body.note ?? null],
    );
    return c.json(Attachment.parse(row), 201);
  }
}

export class ListAttachments extends OpenAPIRoute {
  schema = {
    tags: ["attachments"],
    summary: "List a project's attachments",
    request: { params: ProjectPath },
    responses: {
      "200": { description: "The project's attachments", ...contentJson(z.object({ result: z.array(Attachment) })) },
    },
  };

  async handle(c: AppContext) {
    const { params } = await this.getValidatedData();
    const db = toSqlDriver(c.env.DB);
    const rows = await db.query(
      `SELECT * FROM attachments WHERE "projectId" = ${db.dialect.placeholder(1)} ORDER BY id`,
      [params.projectId],
    );
    return { result: rows.map((row) => Attachment.parse(row)) };
  }
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
    const bind = (value: unknown) => db.dialect.placeholder(params.push(value));
    if (query.projectId !== undefined) conditions.push(`"projectId" = ${bind(query.projectId)}`);
    if (query.due_before !== undefined) conditions.push(`due < ${bind(query.due_before)}`);
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
