// The live case's baseline (lib/cases/live.js): Server-Sent Events over PostgreSQL's LISTEN/NOTIFY
// written by hand on Hono, as a competent developer would without a framework. POST /tasks validates
// the body, inserts the row and sends pg_notify with the row as JSON in one transaction; one LISTEN
// connection per process hears the notifications, and GET /tasks/changes keeps a set of open SSE
// streams, writing each notification to each of them. No outbox, no replay, no per-listener filters.
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import pg from "pg";
import { z } from "zod";

const NewTask = z.object({ title: z.string().min(1).max(120), done: z.boolean().optional() });

/** The app over `pool` (node-postgres), the table `table` and the NOTIFY channel `channel`. */
export async function createLiveApp({ pool, table, channel, connectionString }) {
  const streams = new Set();
  // One connection of its own, LISTENing for the process's lifetime.
  const listener = new pg.Client({ connectionString });
  await listener.connect();
  listener.on("notification", (message) => {
    const data = `{"object":${message.payload}}`;
    for (const stream of streams) {
      // A stream whose client went away is dropped (its onAbort removes it too).
      stream.writeSSE({ event: "created", data }).catch(() => streams.delete(stream));
    }
  });
  await listener.query(`LISTEN "${channel}"`);

  const app = new Hono();
  app.post("/tasks", async (c) => {
    let body;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: "Malformed JSON" }, 400);
    }
    const parsed = NewTask.safeParse(body);
    if (!parsed.success) return c.json({ error: parsed.error.issues }, 400);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query(
        `INSERT INTO "${table}" (title, done) VALUES ($1, $2) RETURNING id, title, done`,
        [parsed.data.title, parsed.data.done ?? false],
      );
      await client.query("SELECT pg_notify($1, $2)", [channel, JSON.stringify(rows[0])]);
      await client.query("COMMIT");
      return c.json(rows[0], 201);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  });
  app.get("/tasks/changes", (c) =>
    streamSSE(c, async (stream) => {
      streams.add(stream);
      // Held open until the client goes away.
      await new Promise((resolve) => stream.onAbort(resolve));
      streams.delete(stream);
    }),
  );
  return { app, close: () => listener.end() };
}
