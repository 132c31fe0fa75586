// One process of the multi-process idempotency tests, on an ephemeral 127.0.0.1 port, on Hono or
// itty-router (ROUTER), over DATABASE_URL: PostgreSQL (postgres://), MariaDB (mysql://) or a SQLite file
// (sqlite:<path>). POST /notes creates a note; POST /orders answers which process ran it, and with HANG=1
// never finishes (the process is killed mid-request). LEASE_SECONDS sets the keys' lease.
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import { Router } from "itty-router";
import mysql from "mysql2/promise";
import pg from "pg";
import { z } from "zod";
import {
  betterSqlite3Driver,
  fromHono,
  fromIttyRouter,
  idempotency,
  OpenAPIRoute,
  pgDriver,
  SqlCreateEndpoint,
  sqlIdempotencyStore,
} from "../../src";
import { mariadbDialect, mysql2Driver, type SqlDriver } from "../../src/sql";

function open(url: string): { driver: SqlDriver; close(): Promise<void> } {
  if (url.startsWith("sqlite:")) {
    const db = new Database(url.slice("sqlite:".length));
    return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
  }
  if (url.startsWith("mysql:")) {
    const driver = mysql2Driver(mysql.createPool({ uri: url, connectionLimit: 4 }), { dialect: mariadbDialect });
    return { driver, close: () => driver.close!() };
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return { driver: pgDriver(pool), close: () => pool.end() };
}

const { driver, close } = open(process.env.DATABASE_URL!);
const leaseSeconds = process.env.LEASE_SECONDS ? Number(process.env.LEASE_SECONDS) : undefined;
const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["location"], leaseSeconds });
const Note = z.object({ id: z.number().int(), title: z.string().min(1) });

class CreateNote extends SqlCreateEndpoint {
  _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
  schema = { idempotency: once };
}

class CreateOrder extends OpenAPIRoute {
  schema = { idempotency: once, responses: { "201": { description: "Which process ran the order" } } };
  async handle() {
    console.log(`handling an order in ${process.pid}`);
    if (process.env.HANG === "1") await new Promise(() => {});
    return Response.json({ handledBy: process.pid }, { status: 201 });
  }
}

let fetch: (request: Request, env: unknown) => Response | Promise<Response>;
if (process.env.ROUTER === "itty") {
  const itty = Router();
  fromIttyRouter(itty, { db: driver }).post("/notes", CreateNote).post("/orders", CreateOrder);
  fetch = async (request, env) => (await itty.fetch(request, env)) ?? new Response("no route", { status: 404 });
} else {
  const app = new Hono();
  fromHono(app, { db: driver }).post("/notes", CreateNote).post("/orders", CreateOrder);
  fetch = (request, env) => app.fetch(request, env as never);
}

const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => {
  server.close();
  void close().then(() => process.exit(0));
});
