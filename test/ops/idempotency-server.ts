// One process of the multi-process idempotency test: a create endpoint with idempotency keys over
// PostgreSQL (DATABASE_URL), on Hono or itty-router (ROUTER), on an ephemeral 127.0.0.1 port.
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { Router } from "itty-router";
import pg from "pg";
import { z } from "zod";
import { fromHono, fromIttyRouter, idempotency, pgDriver, SqlCreateEndpoint, sqlIdempotencyStore } from "../../src";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const driver = pgDriver(pool);
const Note = z.object({ id: z.number().int(), title: z.string().min(1) });
const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["location"] });

class CreateNote extends SqlCreateEndpoint {
  _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
  schema = { idempotency: once };
}

let fetch: (request: Request, env: unknown) => Response | Promise<Response>;
if (process.env.ROUTER === "itty") {
  const itty = Router();
  fromIttyRouter(itty, { db: driver }).post("/notes", CreateNote);
  fetch = async (request, env) => (await itty.fetch(request, env)) ?? new Response("no route", { status: 404 });
} else {
  const app = new Hono();
  fromHono(app, { db: driver }).post("/notes", CreateNote);
  fetch = (request, env) => app.fetch(request, env as never);
}

const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
