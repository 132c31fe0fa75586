// One Hono app serving the same SQLite list three ways, on the same 10k-row better-sqlite3 database:
//   /sql/tasks      specroute's SqlListEndpoint (its own SQL through betterSqlite3Driver)
//   /drizzle/tasks  specroute's DrizzleListEndpoint over drizzleMeta(tasks), on the app's Drizzle database
//   /hand/tasks     a hand-written Hono handler: the query checked with zod, the page and the count with Drizzle
//   /endpoint/tasks specroute's plain ListEndpoint whose list() runs the hand-written Drizzle query: the
//                   endpoint layer alone, so the two differences (endpoint layer, Drizzle storage) read apart
// Each answers the same envelope and the same rows, so the case can check them equal before timing.
import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { betterSqlite3Driver, fromHono, ListEndpoint, SqlListEndpoint } from "specroute";
import { DrizzleListEndpoint, drizzleMeta } from "specroute/drizzle";
import { z } from "zod";
import { STATUSES } from "./shared/tasks.js";

export const tasks = sqliteTable("tasks", {
  id: integer().primaryKey(),
  title: text().notNull(),
  assignee: text().notNull(),
  priority: integer().notNull(),
  done: integer({ mode: "boolean" }).notNull(),
  status: text({ enum: STATUSES }).notNull(),
});

const Task = z.object({
  id: z.number().int(),
  title: z.string(),
  assignee: z.string(),
  priority: z.number().int(),
  done: z.boolean(),
  status: z.enum(STATUSES),
});

const listOptions = {
  filterFields: ["status"],
  searchFields: ["title"],
  orderByFields: ["id", "priority", "title"],
  defaultOrderBy: "id",
};

/** `%term%` with LIKE's wildcards taken literally (escape character `!`), as the endpoints search. */
function containsPattern(term) {
  return `%${term.replace(/[!%_]/g, (char) => `!${char}`)}%`;
}

const HandQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
  status: z.enum(STATUSES).optional(),
  search: z.string().optional(),
  order_by: z.enum(["id", "priority", "title"]).default("id"),
  order_by_direction: z.enum(["asc", "desc"]).default("asc"),
});

/** The app over `store` (a TaskStore: its `db` is the better-sqlite3 database). */
export function createApp({ store }) {
  const db = drizzle(store.db);
  const driver = betterSqlite3Driver(store.db);

  class SqlTasks extends SqlListEndpoint {
    _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
    db = driver;
    filterFields = listOptions.filterFields;
    searchFields = listOptions.searchFields;
    orderByFields = listOptions.orderByFields;
    defaultOrderBy = listOptions.defaultOrderBy;
  }
  class DrizzleTasks extends DrizzleListEndpoint {
    _meta = drizzleMeta(tasks);
    db = db;
    filterFields = listOptions.filterFields;
    searchFields = listOptions.searchFields;
    orderByFields = listOptions.orderByFields;
    defaultOrderBy = listOptions.defaultOrderBy;
  }

  /** The hand-written Drizzle query: one page and the count. */
  async function listPage({ page, per_page, status, search, order_by, order_by_direction }) {
    const where = and(
      status === undefined ? undefined : eq(tasks.status, status),
      search === undefined ? undefined : sql`${tasks.title} LIKE ${containsPattern(search)} ESCAPE '!'`,
    );
    const direction = order_by_direction === "desc" ? desc : asc;
    const order = order_by === "id" ? [direction(tasks.id)] : [direction(tasks[order_by]), asc(tasks.id)];
    const [result, [{ total }]] = await Promise.all([
      db
        .select()
        .from(tasks)
        .where(where)
        .orderBy(...order)
        .limit(per_page)
        .offset((page - 1) * per_page),
      db.select({ total: count() }).from(tasks).where(where),
    ]);
    return { result, result_info: { count: result.length, page, per_page, total_count: total } };
  }

  class EndpointTasks extends ListEndpoint {
    _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
    filterFields = listOptions.filterFields;
    searchFields = listOptions.searchFields;
    orderByFields = listOptions.orderByFields;
    defaultOrderBy = listOptions.defaultOrderBy;
    async list({ filters, options }) {
      const value = (field) => filters.find((condition) => condition.field === field)?.value;
      return listPage({ ...options, status: value("status"), search: value("search") });
    }
  }

  const app = new Hono();
  fromHono(app).get("/sql/tasks", SqlTasks).get("/drizzle/tasks", DrizzleTasks).get("/endpoint/tasks", EndpointTasks);

  // Hand-written Drizzle, as a Hono app would write the same list.
  app.get("/hand/tasks", async (c) => {
    const parsed = HandQuery.safeParse(c.req.query());
    if (!parsed.success) return c.json({ success: false, errors: parsed.error.issues }, 400);
    return c.json({ success: true, ...(await listPage(parsed.data)) });
  });
  return app;
}
