import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import * as my from "drizzle-orm/mysql-core";
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import mysql from "mysql2/promise";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, fromHono } from "../../src";
import {
  DrizzleCreateEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
  drizzleMeta,
} from "../../src/drizzle";
import { openD1Binding } from "../endpoints/d1";
import { recordingLogger } from "../endpoints/recording-logger";
import { captureConsoleErrors, jsonBody } from "../helpers";

const users = sqliteTable("users", {
  id: integer().primaryKey({ autoIncrement: true }),
  emailAddress: text().notNull().unique(),
  name: text().notNull(),
  joinedAt: integer({ mode: "timestamp" }).notNull(),
  profile: text({ mode: "json" }).$type<{ city: string; tags: string[] }>(),
  active: integer({ mode: "boolean" }).notNull().default(true),
});
const USERS_DDL =
  "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, email_address TEXT NOT NULL UNIQUE, name TEXT NOT NULL, joined_at INTEGER NOT NULL, profile TEXT, active INTEGER NOT NULL DEFAULT 1)";
const meta = drizzleMeta(users, { refine: { emailAddress: (email) => email.email(), name: (name) => name.min(1) } });

/** A fresh in-memory SQLite with the users table, and the Drizzle database over it (casing: snake_case keys). */
function sqliteDb(config: Parameters<typeof drizzleSqlite>[1] = {}) {
  const client = new Database(":memory:");
  client.exec(USERS_DDL);
  return { client, db: drizzleSqlite(client, { casing: "snake_case", ...config }) };
}

const ada = { emailAddress: "ada@example.com", name: "Ada", joinedAt: "2024-03-01T10:00:00.000Z" };

describe("Drizzle endpoints on the app's own Drizzle database", () => {
  const logged = captureConsoleErrors();

  it("round-trips dates, JSON and booleans as Drizzle maps them, and filters on a date", async () => {
    const { client, db } = sqliteDb();
    class CreateUser extends DrizzleCreateEndpoint {
      _meta = meta;
    }
    class ListUsers extends DrizzleListEndpoint {
      _meta = meta;
      filterFields = ["active"];
      filterOperators = { joinedAt: ["gte" as const] };
      orderByFields = ["joinedAt"];
    }
    const app = new Hono();
    fromHono(app, { db }).post("/users", CreateUser).get("/users", ListUsers);
    const created = await app.request("/users", jsonBody({ ...ada, profile: { city: "London", tags: ["math"] } }));
    expect(created.status).toBe(201);
    expect((await created.json()).result).toEqual({
      id: 1,
      ...ada,
      profile: { city: "London", tags: ["math"] },
      active: true,
    });
    await app.request(
      "/users",
      jsonBody({ emailAddress: "bob@example.com", name: "Bob", joinedAt: "2025-01-01T00:00:00.000Z", active: false }),
    );
    const since = await (await app.request("/users?joinedAt__gte=2024-06-01T00:00:00.000Z")).json();
    expect(since.result.map((user: { name: string }) => user.name)).toEqual(["Bob"]);
    const active = await (await app.request("/users?active=true")).json();
    expect(active.result.map((user: { name: string }) => user.name)).toEqual(["Ada"]);
    // Stored as Drizzle stores them: epoch seconds, JSON text, 0/1, in the snake_case columns.
    expect(client.prepare("SELECT * FROM users").all()).toEqual([
      {
        id: 1,
        email_address: "ada@example.com",
        name: "Ada",
        joined_at: 1709287200,
        profile: '{"city":"London","tags":["math"]}',
        active: 1,
      },
      {
        id: 2,
        email_address: "bob@example.com",
        name: "Bob",
        joined_at: 1735689600,
        profile: null,
        active: 0,
      },
    ]);
  });

  it("validates with the refined schema and answers a duplicate with 409 naming the field by its key", async () => {
    const { db } = sqliteDb();
    class CreateUser extends DrizzleCreateEndpoint {
      _meta = meta;
    }
    const app = new Hono();
    fromHono(app, { db }).post("/users", CreateUser);
    const invalid = await app.request("/users", jsonBody({ ...ada, emailAddress: "not an email" }));
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).errors[0].path).toEqual(["body", "emailAddress"]);
    expect((await app.request("/users", jsonBody(ada))).status).toBe(201);
    const duplicate = await app.request("/users", jsonBody(ada));
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).errors).toEqual([
      { code: 7006, message: "An object with this emailAddress already exists" },
    ]);
  });

  it("runs every statement through Drizzle's logger, and gives the endpoint's logger statements, writes and failures", async () => {
    const queries: string[] = [];
    const { db } = sqliteDb({ logger: { logQuery: (query) => queries.push(query) } });
    const logger = recordingLogger();
    class CreateUser extends DrizzleCreateEndpoint {
      _meta = meta;
      logger = logger;
    }
    const app = new Hono();
    fromHono(app, { db }).post("/users", CreateUser);
    expect((await app.request("/users", jsonBody(ada))).status).toBe(201);
    expect(queries).toEqual([expect.stringMatching(/^insert into "users" \("id", "email_address", .*returning/)]);
    expect(logger.lines.debug?.[0]?.[0]).toMatch(/^\[CreateUser\] SQL: insert into "users"/);
    expect(logger.lines.log).toEqual([["Successfully created record in users"]]);
    expect((await app.request("/users", jsonBody(ada))).status).toBe(409);
    expect(logger.lines.error).toEqual([
      ["Database error during create users: UNIQUE constraint failed: users.email_address"],
    ]);
  });

  describe("where the database comes from", () => {
    class ReadUser extends DrizzleReadEndpoint {
      _meta = meta;
      dbName = "DB";
    }
    const seeded = () => {
      const { client, db } = sqliteDb();
      client.exec("INSERT INTO users (email_address, name, joined_at) VALUES ('ada@example.com', 'Ada', 0)");
      return db;
    };

    it("reads the endpoint's db, else the binding dbName names, else the router's db option", async () => {
      const own = seeded();
      class OwnDb extends DrizzleReadEndpoint {
        _meta = meta;
        db = own;
      }
      const app = new Hono();
      fromHono(app).get("/own/:id", OwnDb).get("/bound/:id", ReadUser);
      fromHono(app, { db: seeded() }).get(
        "/router/:id",
        class extends DrizzleReadEndpoint {
          _meta = meta;
        },
      );
      expect((await (await app.request("/own/1")).json()).result.name).toBe("Ada");
      expect((await (await app.request("/bound/1", undefined, { DB: seeded() })).json()).result.name).toBe("Ada");
      expect((await (await app.request("/router/1")).json()).result.name).toBe("Ada");
    });

    it("wraps a D1 binding with drizzle-orm/d1 (workerd via Miniflare)", async () => {
      // drizzle(binding) with no options: the columns are named in the table itself.
      const named = sqliteTable("users", {
        id: integer("id").primaryKey({ autoIncrement: true }),
        emailAddress: text("email_address").notNull(),
        active: integer("active", { mode: "boolean" }).notNull(),
      });
      const d1 = await openD1Binding();
      try {
        await d1.binding.exec(USERS_DDL);
        await d1.binding.exec(
          "INSERT INTO users (email_address, name, joined_at) VALUES ('ada@example.com', 'Ada', 0)",
        );
        class ReadD1 extends DrizzleReadEndpoint {
          _meta = drizzleMeta(named);
          dbName = "DB";
        }
        const app = new Hono();
        fromHono(app).get("/users/:id", ReadD1);
        const answer = await app.request("/users/1", undefined, { DB: d1.binding });
        expect(await answer.json()).toEqual({
          success: true,
          result: { id: 1, emailAddress: "ada@example.com", active: true },
        });
      } finally {
        await d1.close();
      }
    });

    it("answers 500 for no database, one that is not Drizzle's, and one of another dialect, and logs why", async () => {
      const postgres = new PGlite();
      const cases: Array<[string, object | undefined]> = [
        ["has no database: set db, dbName, or the router's db option", undefined],
        ["The router's db option is not a Drizzle database", { db: betterSqlite3Driver(new Database(":memory:")) }],
        ["The router's db option is not a sqlite Drizzle database, as its table is", { db: drizzlePglite(postgres) }],
      ];
      for (const [message, options] of cases) {
        const app = new Hono();
        fromHono(app, options).get(
          "/users/:id",
          class extends DrizzleReadEndpoint {
            _meta = meta;
          },
        );
        expect((await app.request("/users/1")).status, message).toBe(500);
      }
      const bound = new Hono();
      fromHono(bound).get("/users/:id", class extends ReadUser {});
      expect((await bound.request("/users/1", undefined, { DB: "not a database" })).status).toBe(500);
      const messages = logged.map((call) => (call.find((arg) => arg instanceof Error) as Error | undefined)?.message);
      expect(messages).toEqual([
        expect.stringContaining(cases[0]![0]),
        cases[1]![0],
        cases[2]![0],
        'Binding "DB" is neither a Drizzle database nor a D1 binding',
      ]);
      await postgres.close();
    });
  });

  it("refuses at registration a Meta field the Drizzle table has no column for, and a Meta without a table", () => {
    const app = fromHono(new Hono());
    class Wrong extends DrizzleReadEndpoint {
      _meta = { ...meta, model: { ...meta.model, schema: meta.model.schema.extend({ nickname: z.string() }) } };
    }
    expect(() => app.get("/wrong/:id", Wrong)).toThrow(
      'Field "nickname" of "users" is not a column of the Drizzle table users',
    );
    class NoTable extends DrizzleReadEndpoint {
      _meta = { model: { tableName: "users", schema: z.object({ id: z.number() }), primaryKeys: ["id"] } };
    }
    expect(() => app.get("/none/:id", NoTable)).toThrow("_meta.model has no Drizzle table");
  });
});

const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

describe.skipIf(!mysqlUrl)("Drizzle endpoints on MariaDB (mysql2): no RETURNING", () => {
  const sessions = my.mysqlTable(`drz_sessions_${process.pid}`, {
    id: my
      .varchar({ length: 36 })
      .primaryKey()
      .$defaultFn(() => crypto.randomUUID()),
    label: my.varchar({ length: 40 }).notNull(),
    hits: my.int().notNull().default(0),
  });
  const pool = mysqlUrl ? mysql.createPool({ uri: mysqlUrl, connectionLimit: 2 }) : undefined;
  const db = pool && drizzleMysql(pool);
  const sessionMeta = drizzleMeta(sessions);
  beforeEach(async () => {
    await db!.execute(sql`DROP TABLE IF EXISTS ${sessions}`);
    await db!.execute(
      sql`CREATE TABLE ${sessions} (id VARCHAR(36) PRIMARY KEY, label VARCHAR(40) NOT NULL, hits INT NOT NULL DEFAULT 0)`,
    );
  });
  afterAll(async () => {
    await db?.execute(sql`DROP TABLE IF EXISTS ${sessions}`);
    await pool?.end();
  });

  it("reads back a row whose key Drizzle generates ($defaultFn), after insert and after update", async () => {
    class CreateSession extends DrizzleCreateEndpoint {
      _meta = sessionMeta;
      bulk = true;
    }
    class UpdateSession extends DrizzleUpdateEndpoint {
      _meta = sessionMeta;
    }
    const app = new Hono();
    fromHono(app, { db }).post("/sessions", CreateSession).patch("/sessions/:id", UpdateSession);
    const created = await (await app.request("/sessions", jsonBody({ label: "one" }))).json();
    expect(created.result).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), label: "one", hits: 0 });
    const many = await (await app.request("/sessions", jsonBody([{ label: "two" }, { label: "three" }]))).json();
    expect(many.result.map((row: { label: string }) => row.label)).toEqual(["two", "three"]);
    const updated = await app.request(`/sessions/${created.result.id}`, jsonBody({ hits: 3 }, { method: "PATCH" }));
    expect((await updated.json()).result).toEqual({ ...created.result, hits: 3 });
  });
});
