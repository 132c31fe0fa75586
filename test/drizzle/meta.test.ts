import { sql } from "drizzle-orm";
import * as my from "drizzle-orm/mysql-core";
import * as pgc from "drizzle-orm/pg-core";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import {
  fromHono,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import {
  DrizzleCreateEndpoint,
  DrizzleDeleteEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
  drizzleMeta,
} from "../../src/drizzle";
import { documentErrors } from "../helpers";

const users = sqliteTable("users", {
  id: integer().primaryKey({ autoIncrement: true }),
  email: text().notNull().unique(),
  name: text({ length: 80 }).notNull(),
  role: text({ enum: ["member", "admin"] })
    .notNull()
    .default("member"),
  active: integer({ mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at", { mode: "timestamp" }).notNull().default(sql`(unixepoch())`),
  settings: text({ mode: "json" }),
  passwordHash: text("password_hash").notNull(),
});

describe("drizzleMeta", () => {
  it("takes the model from drizzle-zod's select schema and the key, UNIQUE columns and name from the table", () => {
    const meta = drizzleMeta(users, { omit: ["passwordHash"] });
    expect(meta.model.tableName).toBe("users");
    expect(meta.model.table).toBe(users);
    expect(meta.model.primaryKeys).toEqual(["id"]);
    expect(meta.model.unique).toEqual(["email"]);
    expect(Object.keys(meta.model.schema.shape)).toEqual([
      "id",
      "email",
      "name",
      "role",
      "active",
      "createdAt",
      "settings",
    ]);
    const row = {
      id: 1,
      email: "a@x",
      name: "Ada",
      role: "admin",
      active: true,
      createdAt: new Date(0),
      settings: null,
    };
    expect(meta.model.schema.parse(row)).toEqual(row);
    expect(meta.model.schema.safeParse({ ...row, role: "owner" }).success).toBe(false);
    expect(meta.model.schema.safeParse({ ...row, name: "x".repeat(81) }).success).toBe(false);
  });

  it("makes the request fields from the insert schema: a generated key left out, a literal default filled in", () => {
    const { fields } = drizzleMeta(users, { omit: ["passwordHash"] });
    expect(Object.keys(fields!.shape)).toEqual(["email", "name", "role", "active", "createdAt", "settings"]);
    // A literal default is the document's and validation's; a SQL default stays the database's.
    expect(fields!.parse({ email: "a@x", name: "Ada" })).toEqual({
      email: "a@x",
      name: "Ada",
      role: "member",
      active: true,
    });
    expect(fields!.safeParse({ name: "Ada" }).success).toBe(false);
  });

  it("picks, omits and refines columns as any Meta's fields", () => {
    const meta = drizzleMeta(users, {
      pick: ["id", "email", "name"],
      refine: { email: (email) => email.email(), name: (name) => name.min(2) },
      tags: ["users"],
    });
    expect(Object.keys(meta.model.schema.shape)).toEqual(["id", "email", "name"]);
    expect(Object.keys(meta.fields!.shape)).toEqual(["email", "name"]);
    expect(meta.fields!.safeParse({ email: "not an email", name: "Ada" }).success).toBe(false);
    expect(meta.model.schema.safeParse({ id: 1, email: "a@x.io", name: "A" }).success).toBe(false);
    expect(meta.tags).toEqual(["users"]);
  });

  it("reads a composite key, UNIQUE constraints, unique indexes and the schema of a PostgreSQL table", () => {
    const app = pgc.pgSchema("app");
    const members = app.table(
      "members",
      {
        orgId: pgc.integer("org_id").notNull(),
        userId: pgc.integer("user_id").notNull(),
        handle: pgc.text().notNull(),
        email: pgc.varchar({ length: 120 }).notNull(),
        nickname: pgc.text(),
        score: pgc.integer().notNull().default(0),
        total: pgc.integer().generatedAlwaysAs(sql`score * 2`),
      },
      (t) => [
        pgc.primaryKey({ columns: [t.orgId, t.userId] }),
        pgc.unique("members_handle").on(t.handle),
        pgc.uniqueIndex("members_email_idx").on(t.email),
        pgc.index("members_nickname_idx").on(t.nickname),
      ],
    );
    const meta = drizzleMeta(members, { pathParameters: ["orgId", "userId"] });
    expect(meta.model.tableName).toBe("app.members");
    expect(meta.model.primaryKeys).toEqual(["orgId", "userId"]);
    expect(meta.model.unique).toEqual(["handle", "email"]);
    expect(meta.pathParameters).toEqual(["orgId", "userId"]);
    // Composite keys are the client's (the path's); a column the database computes is read, never written.
    expect(Object.keys(meta.fields!.shape)).toEqual(["orgId", "userId", "handle", "email", "nickname", "score"]);
    expect(Object.keys(meta.model.schema.shape)).toContain("total");
  });

  it("leaves out a key the database or Drizzle generates on MySQL and PostgreSQL", () => {
    const sessions = my.mysqlTable("sessions", {
      id: my
        .varchar({ length: 36 })
        .primaryKey()
        .$defaultFn(() => crypto.randomUUID()),
      note: my.text(),
    });
    const counters = my.mysqlTable("counters", { id: my.int().autoincrement().primaryKey(), n: my.int().notNull() });
    const events = pgc.pgTable("events", {
      id: pgc.integer().primaryKey().generatedAlwaysAsIdentity(),
      name: pgc.text().notNull(),
    });
    expect(Object.keys(drizzleMeta(sessions).fields!.shape)).toEqual(["note"]);
    expect(Object.keys(drizzleMeta(counters).fields!.shape)).toEqual(["n"]);
    expect(Object.keys(drizzleMeta(events).fields!.shape)).toEqual(["name"]);
  });

  it("refuses a table without a primary key, a model without it, and columns the table lacks", () => {
    const log = sqliteTable("log", { line: text().notNull() });
    expect(() => drizzleMeta(log)).toThrow("drizzleMeta: log has no primary key");
    expect(() => drizzleMeta(users, { omit: ["id"] })).toThrow('the primary key "id" of users must stay in the model');
    expect(() => drizzleMeta(users, { pick: ["id", "nope" as "id"] })).toThrow('"nope" is not a column of users');
    expect(() => drizzleMeta({} as typeof users)).toThrow("Not a Drizzle table");
  });
});

describe("the five Drizzle endpoints' document", () => {
  const tasks = sqliteTable(
    "tasks",
    {
      listId: integer("list_id").notNull(),
      id: integer().notNull(),
      title: text().notNull(),
      slug: text().notNull().unique(),
    },
    (t) => [primaryKey({ columns: [t.listId, t.id] })],
  );
  const meta = drizzleMeta(tasks, { pathParameters: ["listId", "id"], tags: ["tasks"] });

  function documentOf(
    classes: Record<"Create" | "Read" | "Update" | "Delete" | "List", abstract new (...args: any[]) => any>,
  ) {
    class CreateTask extends classes.Create {
      _meta = meta;
    }
    class ListTasks extends classes.List {
      _meta = meta;
      filterFields = ["title"];
      filterOperators = { id: ["gte", "in"] };
      searchFields = ["title"];
      orderByFields = ["id", "title"];
      pagination = "both";
    }
    class ReadTask extends classes.Read {
      _meta = meta;
      conditionalRequests = true;
    }
    class UpdateTask extends classes.Update {
      _meta = meta;
      requireIfMatch = true;
    }
    class DeleteTask extends classes.Delete {
      _meta = meta;
    }
    // `any`: the classes extend bases passed in, which Hono's handler overloads cannot see through.
    const router: any = fromHono(new Hono());
    router.post("/lists/:listId/tasks", CreateTask);
    router.get("/lists/:listId/tasks", ListTasks);
    router.get("/lists/:listId/tasks/:id", ReadTask);
    router.patch("/lists/:listId/tasks/:id", UpdateTask);
    router.delete("/lists/:listId/tasks/:id", DeleteTask);
    return router.schema;
  }

  const drizzle = documentOf({
    Create: DrizzleCreateEndpoint,
    Read: DrizzleReadEndpoint,
    Update: DrizzleUpdateEndpoint,
    Delete: DrizzleDeleteEndpoint,
    List: DrizzleListEndpoint,
  });

  it("is a valid document with the UNIQUE column's 409 on Create and Update", async () => {
    expect(await documentErrors(drizzle)).toBeNull();
    const collection = drizzle.paths["/lists/{listId}/tasks"];
    const item = drizzle.paths["/lists/{listId}/tasks/{id}"];
    expect(Object.keys(collection.post.responses)).toContain("409");
    expect(Object.keys(item.patch.responses)).toEqual(expect.arrayContaining(["200", "404", "409", "412", "428"]));
    expect(collection.post.requestBody.content["application/json"].schema.required).toEqual(["id", "title", "slug"]);
  });

  it("is the SQL endpoints' document for the same Meta, byte for byte", () => {
    const sqlDocument = documentOf({
      Create: SqlCreateEndpoint,
      Read: SqlReadEndpoint,
      Update: SqlUpdateEndpoint,
      Delete: SqlDeleteEndpoint,
      List: SqlListEndpoint,
    });
    expect(JSON.stringify(drizzle)).toBe(JSON.stringify(sqlDocument));
  });
});
