// The tasks API of the live-collection tests: a live collection of tasks per project, its writes and its changes.
import { Hono } from "hono";
import { z } from "zod";
import {
  apiKeyAuth,
  type ChangeFeed,
  type ChangeFeedOptions,
  changeFeed,
  type Filters,
  fromHono,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  type SqlDriver,
  SqlUpdateEndpoint,
} from "../../src";

export const Task = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  title: z.string(),
  done: z.boolean(),
  version: z.number().int(),
});
const NewTask = Task.pick({ title: true, done: true }).partial({ done: true });

export async function createTable(driver: SqlDriver, table: string): Promise<void> {
  const family =
    driver.dialect.name === "postgres" ? "postgres" : driver.dialect.name === "sqlite" ? "sqlite" : "mysql";
  const columns = {
    postgres: `id SERIAL PRIMARY KEY, "projectId" INTEGER NOT NULL, title TEXT NOT NULL, done BOOLEAN NOT NULL DEFAULT false`,
    sqlite: `id INTEGER PRIMARY KEY AUTOINCREMENT, "projectId" INTEGER NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0`,
    mysql:
      "id INT AUTO_INCREMENT PRIMARY KEY, `projectId` INT NOT NULL, title TEXT NOT NULL, done BOOLEAN NOT NULL DEFAULT false",
  }[family];
  await driver.execute(`DROP TABLE IF EXISTS ${table}`, []);
  await driver.execute(`CREATE TABLE ${table} (${columns}, version INTEGER NOT NULL DEFAULT 1)`, []);
}

const writeKey = apiKeyAuth({ in: "header", name: "X-Key", verify: (key) => (key === "w" ? { role: "w" } : null) });
/** The key "r" (or "w") reads, unless it is in `revoked`. */
const readKeyOf = (revoked: ReadonlySet<string>) =>
  apiKeyAuth({
    in: "header",
    name: "X-Key",
    verify: (key) => ((key === "w" || key === "r") && !revoked.has(key) ? { role: key } : null),
  });
const readKey = readKeyOf(new Set());

/** A Meta of the tasks of `table`, live on `feed`; a task belongs to a project, as in the example. */
function metaOf(table: string, feed: ChangeFeed) {
  const model = { tableName: table, schema: Task, primaryKeys: ["projectId", "id"], versionField: "version" };
  return { model, fields: NewTask, pathParameters: ["projectId", "id"], changes: feed };
}

/** Every app's endpoint classes; an app subclasses each with its own table and feed (see `tasksApp`). */
const shapeMeta = metaOf("tasks", changeFeed());

export class CreateTask extends SqlCreateEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
export class UpdateTask extends SqlUpdateEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
export class DeleteTask extends SqlDeleteEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
export class TaskChanges extends SqlChangesEndpoint {
  _meta = shapeMeta;
  schema = { auth: readKey };
  filterFields = ["done"];
}

/** Every task of the caller's tenant (a project): the key "t<n>" is project n's (unless revoked), and `before` narrows the feed to it. */
const tenantKeyOf = (revoked: ReadonlySet<string>) =>
  apiKeyAuth({
    in: "header",
    name: "X-Key",
    verify: (key) => (/^t\d+$/.test(key) && !revoked.has(key) ? { tenant: Number(key.slice(1)) } : null),
  });
const tenantKey = tenantKeyOf(new Set());

export class TenantChanges extends SqlChangesEndpoint {
  _meta = { ...shapeMeta, pathParameters: ["id"] };
  schema = { auth: tenantKey };

  override async before(filters: Filters): Promise<Filters> {
    const { tenant } = (await this.getPrincipal()) as { tenant: number };
    return { filters: [...filters.filters, { field: "projectId", operator: "EQ", value: tenant }] };
  }

  // A tenant's listeners count against the tenant's bound, wherever they connect from.
  override async listenerKey(): Promise<string> {
    const { tenant } = (await this.getPrincipal()) as { tenant: number };
    return `tenant:${tenant}`;
  }
}

/** How an app of `tasksApp` differs: its router's error format, and listeners' keys revoked since they connected. */
export interface TasksAppOptions {
  errorFormat?: "envelope" | "problem";
  /** Keys refused from now on ("r", "t1", ...): read at each request, so adding one revokes it. */
  revokedKeys?: ReadonlySet<string>;
}

/**
 * The tasks API with a live collection: writes need the key "w"; listening needs the key "r" (or "w").
 * `database` is a driver, or the name of the Workers binding holding a D1 database.
 */
export function tasksApp(
  database: SqlDriver | { binding: string },
  table: string,
  feedOptions: ChangeFeedOptions = {},
  { revokedKeys = new Set(), ...routerOptions }: TasksAppOptions = {},
) {
  const feed = changeFeed(feedOptions);
  const meta = metaOf(table, feed);
  // On Workers every endpoint reads the database from the request's bindings.
  const binding = "binding" in database ? database.binding : undefined;
  // Each class over this app's table and feed; typed as the shared class, whose types the client reads.
  const app = new Hono();
  const router = fromHono(app, { ...routerOptions, ...("binding" in database ? {} : { db: database }) })
    .post(
      "/projects/:projectId/tasks",
      class extends CreateTask {
        override _meta = meta;
        override dbName = binding;
      } as typeof CreateTask,
    )
    .patch(
      "/projects/:projectId/tasks/:id",
      class extends UpdateTask {
        override _meta = meta;
        override dbName = binding;
      } as typeof UpdateTask,
    )
    .delete(
      "/projects/:projectId/tasks/:id",
      class extends DeleteTask {
        override _meta = meta;
        override dbName = binding;
      } as typeof DeleteTask,
    )
    .get(
      "/projects/:projectId/tasks/changes",
      class extends TaskChanges {
        override _meta = meta;
        override dbName = binding;
        override schema = { auth: readKeyOf(revokedKeys) };
      } as typeof TaskChanges,
    )
    .get(
      "/tasks/changes",
      class extends TenantChanges {
        override _meta = { ...meta, pathParameters: ["id"] };
        override dbName = binding;
        override schema = { auth: tenantKeyOf(revokedKeys) };
      } as typeof TenantChanges,
    );
  return { app, router, feed };
}

export type TasksRouter = ReturnType<typeof tasksApp>["router"];
