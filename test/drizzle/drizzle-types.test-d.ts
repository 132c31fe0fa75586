import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { fromHono } from "../../src";
import { createClient } from "../../src/client";
import {
  DrizzleCreateEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
  drizzleMeta,
} from "../../src/drizzle";

const users = sqliteTable("users", {
  id: integer().primaryKey({ autoIncrement: true }),
  email: text().notNull(),
  role: text({ enum: ["member", "admin"] })
    .notNull()
    .default("member"),
  joinedAt: integer({ mode: "timestamp" }).notNull(),
  note: text(),
});
const meta = drizzleMeta(users, { refine: { email: (email) => email.email() } });

describe("drizzleMeta's types", () => {
  it("types the model as the table's select row, refinements included", () => {
    expectTypeOf<z.output<typeof meta.model.schema>>().toEqualTypeOf<typeof users.$inferSelect>();
  });

  it("types the fields as the insert row, dates accepted as JSON text", () => {
    type Fields = z.output<typeof meta.fields>;
    expectTypeOf<Fields["email"]>().toEqualTypeOf<string>();
    expectTypeOf<Fields["role"]>().toEqualTypeOf<"member" | "admin" | undefined>();
    expectTypeOf<Fields["joinedAt"]>().toEqualTypeOf<Date>();
    expectTypeOf<z.input<typeof meta.fields>["joinedAt"]>().toEqualTypeOf<unknown>();
  });

  it("refuses refinements of columns the table does not have", () => {
    // @ts-expect-error: the table has no column "nickname"
    drizzleMeta(users, { refine: { nickname: (name: z.ZodString) => name.min(1) } });
  });
});

describe("typed clients of Drizzle endpoints", () => {
  class CreateUser extends DrizzleCreateEndpoint {
    _meta = meta;
  }
  class GetUser extends DrizzleReadEndpoint {
    _meta = meta;
  }
  class PatchUser extends DrizzleUpdateEndpoint {
    _meta = meta;
  }
  class ListUsers extends DrizzleListEndpoint {
    _meta = meta;
    filterFields = ["role"];
  }
  const routes = fromHono(new Hono())
    .post("/users", CreateUser)
    .get("/users", ListUsers)
    .get("/users/:id", GetUser)
    .patch("/users/:id", PatchUser);
  const api = createClient<typeof routes>("http://localhost");

  it("answers the stored row and takes the insert row", async () => {
    const read = await api.get("/users/:id", { param: { id: 1 } });
    if (read.ok) {
      expectTypeOf(read.data.result.email).toEqualTypeOf<string>();
      expectTypeOf(read.data.result.note).toEqualTypeOf<string | null>();
    }
    await api.post("/users", { json: { email: "a@x.io", joinedAt: "2026-01-01T00:00:00Z" } });
    await api.patch("/users/:id", { param: { id: 1 }, json: { role: "admin" } });
    // @ts-expect-error: email is required
    api.post("/users", { json: { joinedAt: "2026-01-01T00:00:00Z" } });
  });
});
