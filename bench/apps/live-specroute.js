// The live case's specroute app (lib/cases/live.js): a live collection of tasks on PostgreSQL, written
// through SqlCreateEndpoint (which records each change in the write's transaction and NOTIFYs) and
// listened to through SqlChangesEndpoint (Server-Sent Events), as docs/live.md writes it.
import { Hono } from "hono";
import { changeFeed, fromHono, pgDriver, SqlChangesEndpoint, SqlCreateEndpoint } from "specroute";
import { z } from "zod";

const Task = z.object({ id: z.number().int(), title: z.string(), done: z.boolean() });
const NewTask = z.object({ title: z.string().min(1).max(120), done: z.boolean().optional() });

// The bench's 1,000 listeners all come from 127.0.0.1: past the default 16 per address and 1,000 per process.
const BOUNDS = { perCaller: 2000, perProcess: 2000 };

/**
 * The app over `pool` (node-postgres) and the table `table` (id SERIAL, title TEXT, done BOOLEAN), and the
 * feed's listener bounds (undefined on a build without them).
 */
export function createLiveApp({ pool, table }) {
  // A build from before the bounds (issue #41) has neither them nor the option.
  const changes = "maxListeners" in changeFeed() ? changeFeed({ maxListeners: BOUNDS }) : changeFeed();
  const meta = { model: { tableName: table, schema: Task, primaryKeys: ["id"] }, fields: NewTask, changes };
  class CreateTask extends SqlCreateEndpoint {
    _meta = meta;
  }
  class TaskChanges extends SqlChangesEndpoint {
    _meta = meta;
  }
  const app = new Hono();
  fromHono(app, { db: pgDriver(pool) })
    .post("/tasks", CreateTask)
    .get("/tasks/changes", TaskChanges);
  return { app, close: async () => {}, listenerBounds: changes.maxListeners };
}
