import { Hono } from "hono";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CHANGES_CHANNEL, changeFeed, fromHono, pgDriver, SqlCreateEndpoint } from "../src";
import { listenOnLoopback } from "./helpers";

// docs/security.md, "Change feeds" (issue #45): "A notification says nothing a listener may not see;
// anyone who can `LISTEN` on the database already holds the database." On PostgreSQL LISTEN needs no
// privilege at all: any role that can connect hears every live write's NOTIFY, with the table's name,
// at the moment of each write, though it may read neither that table nor the change log.

const pgUrl = process.env.SPECROUTE_PG_URL;
const run = pgUrl ? describe : describe.skip;

run("PostgreSQL: who hears a live write's NOTIFY", () => {
  const table = `secret_notes_${process.pid}`;
  const role = `attack_nobody_${process.pid}`;
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.query(`CREATE TABLE ${table} (id SERIAL PRIMARY KEY, text TEXT NOT NULL)`);
    await pool.query(`DROP ROLE IF EXISTS ${role}`);
    // A login and nothing else: no grant on any table, no schema usage.
    await pool.query(`CREATE ROLE ${role} LOGIN`);
  });
  afterAll(async () => {
    await pool?.query(`DROP TABLE IF EXISTS ${table}`);
    await pool?.query(`DROP ROLE IF EXISTS ${role}`);
    await pool?.end();
  });

  it("a role with no privilege on the table or the change log hears nothing of its writes", async () => {
    const Note = z.object({ id: z.number().int(), text: z.string() });
    const meta = {
      model: { tableName: table, schema: Note, primaryKeys: ["id"] },
      fields: Note.omit({ id: true }),
      changes: changeFeed(),
    };
    class CreateNote extends SqlCreateEndpoint {
      _meta = meta;
    }
    const app = new Hono();
    fromHono(app, { db: pgDriver(pool) }).post("/notes", CreateNote);
    const server = await listenOnLoopback(app.fetch);

    const url = new URL(pgUrl!);
    url.username = role;
    url.password = "";
    const outsider = new pg.Client({ connectionString: url.toString() });
    await outsider.connect();
    try {
      const [{ schema }] = (await pool.query("SELECT current_schema() AS schema")).rows;
      // It can read neither the table nor the log.
      await expect(outsider.query(`SELECT * FROM "${schema}"."${table}"`)).rejects.toThrow(/permission denied/);
      await expect(outsider.query(`SELECT * FROM "${schema}"."specroute_changes"`)).rejects.toThrow(
        /permission denied/,
      );
      const heard: string[] = [];
      outsider.on("notification", (message) => heard.push(message.payload ?? ""));
      await outsider.query(`LISTEN ${CHANGES_CHANNEL}`);

      const created = await fetch(`${server.origin}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "private" }),
      });
      expect(created.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(heard).toEqual([]);
    } finally {
      await outsider.end();
      await server.close();
    }
  });
});
