import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import Database from "better-sqlite3";
import { Hono } from "hono";
import * as v from "valibot";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  fromHono,
  type Meta,
  SqlCreateEndpoint,
  type SqlDriver,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody, listenOnLoopback, type TestApp } from "../helpers";
import { storeEngines } from "../ops/engines";

/*
 * A model validated whole before anything is written (issue #41, finding 10): a user of an organisation
 * whose object check says an admin needs `approved_by`, and whose email is trimmed and lower-cased
 * before its length limit. Over real HTTP on Hono and itty-router, stored in SQLite (and PostgreSQL
 * and MariaDB when their URLs are set), for a nested create (the organisation's key from the URL), a
 * bulk create, PUT and PATCH: the check refuses with a 400 naming the field, the row holds the
 * model's output, and a raw value the client sent is never stored.
 */

const TABLE = "whole_model_users";
/** Longer than any column the limit allows: 100,000 spaces then a short address, which trims to 8 characters. */
const PADDED = `${" ".repeat(100_000)}A@B.Co  `;

const valibotUser = toStandardJsonSchema(
  v.pipe(
    v.object({
      org_id: v.pipe(v.number(), v.integer()),
      id: v.pipe(v.number(), v.integer()),
      email: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(40)),
      role: v.picklist(["user", "admin"]),
      approved_by: v.optional(v.nullable(v.string())),
    }),
    v.forward(
      v.check((user) => user.role !== "admin" || !!user.approved_by, "An admin needs approved_by"),
      ["approved_by"],
    ),
  ),
);

const arktypeUser = type({
  org_id: "number.integer",
  id: "number.integer",
  email: type("string.trim").to("string.lower").to("string <= 40"),
  role: "'user' | 'admin'",
  "approved_by?": "string | null",
}).narrow(
  (user, ctx) =>
    user.role !== "admin" || !!user.approved_by || ctx.reject({ expected: "set for an admin", path: ["approved_by"] }),
);

// zod has the same hole where its model has a check over the object (omit/partial drop it, or refuse it).
const zodUser = z
  .object({
    org_id: z.number().int(),
    id: z.number().int(),
    email: z.string().trim().toLowerCase().max(40),
    role: z.enum(["user", "admin"]),
    approved_by: z.string().nullable().optional(),
  })
  .refine((user) => user.role !== "admin" || !!user.approved_by, {
    message: "An admin needs approved_by",
    path: ["approved_by"],
  });

const libraries = [
  { library: "valibot", schema: valibotUser },
  { library: "ArkType", schema: arktypeUser },
  { library: "zod (a refined object)", schema: zodUser },
] as Array<{ library: string; schema: NonNullable<Meta["fields"]> }>;

describe("a check over the object, judged on the row a PATCH stores", () => {
  // `fields` without the key, every member of it sent: the library runs its check over the object on
  // the PATCH's members alone, where the stored approver is missing. The stored row decides.
  const valibotPerson = v.object({
    role: v.picklist(["user", "admin"]),
    approved_by: v.optional(v.nullable(v.string())),
  });
  const arktypePerson = type({ role: "'user' | 'admin'", "approved_by?": "string | null" });
  const approval = {
    valibot: {
      model: toStandardJsonSchema(v.object({ id: v.pipe(v.number(), v.integer()), ...valibotPerson.entries })),
      fields: toStandardJsonSchema(
        v.pipe(
          valibotPerson,
          v.check((user) => user.role !== "admin" || !!user.approved_by, "An admin needs approved_by"),
        ),
      ),
    },
    ArkType: {
      model: type({ id: "number.integer" }).and(arktypePerson),
      fields: arktypePerson.narrow(
        (user, ctx) =>
          user.role !== "admin" || !!user.approved_by || ctx.reject({ message: "An admin needs approved_by" }),
      ),
    },
  };
  for (const [library, { model, fields }] of Object.entries(approval)) {
    it(`lets ${library} make a user with a stored approver an admin, and refuses one without`, async () => {
      const db = new Database(":memory:");
      db.exec("CREATE TABLE people (id INTEGER PRIMARY KEY, role TEXT NOT NULL, approved_by TEXT)");
      db.exec("INSERT INTO people VALUES (1, 'user', 'ada'), (2, 'user', NULL)");
      class UpdatePerson extends SqlUpdateEndpoint {
        _meta = {
          model: { tableName: "people", schema: model, primaryKeys: ["id"] },
          fields,
        };
      }
      const router = fromHono(new Hono(), { db: betterSqlite3Driver(db) });
      router.patch("/people/:id", UpdatePerson);
      const { origin, close } = await listenOnLoopback((request, env) => router.fetch(request, env));
      try {
        const patch = (id: number) => fetch(`${origin}/people/${id}`, jsonBody({ role: "admin" }, { method: "PATCH" }));
        expect((await patch(1)).status).toBe(200);
        const refused = await patch(2);
        expect(refused.status).toBe(400);
        expect((await refused.json()).errors).toEqual([
          expect.objectContaining({ path: ["body"], message: expect.stringContaining("An admin needs approved_by") }),
        ]);
        expect(db.prepare("SELECT id, role FROM people ORDER BY id").all()).toEqual([
          { id: 1, role: "admin" },
          { id: 2, role: "user" },
        ]);
      } finally {
        await close();
        db.close();
      }
    });
  }
});

describe("an update's refusal quotes no stored value the client did not send", () => {
  // The row holds a secret the serializer never answers, and a tier the model no longer accepts (written
  // before the model changed). The libraries' own wording quotes what they judged: ArkType's narrow the
  // whole object, valibot's picklist the value. On an update that is the stored row, not what was sent.
  const SECRET = "s3cret-value-never-answered";
  const LEGACY_TIER = "platinum-legacy-tier";
  const models = {
    valibot: toStandardJsonSchema(
      v.object({
        id: v.pipe(v.number(), v.integer()),
        name: v.string(),
        tier: v.picklist(["free", "paid"]),
        secret: v.string(),
      }),
    ),
    ArkType: type({ id: "number.integer", name: "string", tier: "'free' | 'paid'", secret: "string" }).narrow(
      (account, ctx) => account.name !== "root" || ctx.reject({ expected: "not root", path: ["name"] }),
    ),
  };
  for (const [library, schema] of Object.entries(models)) {
    it(`answers ${library}'s refusal of a PATCH naming the fields, without the stored values`, async () => {
      const db = new Database(":memory:");
      db.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, tier TEXT, secret TEXT)");
      db.prepare("INSERT INTO accounts VALUES (1, 'ada', ?, ?), (2, 'bob', 'free', ?)").run(
        LEGACY_TIER,
        SECRET,
        SECRET,
      );
      class UpdateAccount extends SqlUpdateEndpoint {
        _meta = {
          model: {
            tableName: "accounts",
            schema,
            primaryKeys: ["id"],
            serializer: ({ secret: _secret, ...shown }: Record<string, unknown>) => shown,
          },
        };
      }
      const router = fromHono(new Hono(), { db: betterSqlite3Driver(db) });
      router.patch("/accounts/:id", UpdateAccount);
      const { origin, close } = await listenOnLoopback((request, env) => router.fetch(request, env));
      try {
        const patch = (id: number, body: unknown) =>
          fetch(`${origin}/accounts/${id}`, jsonBody(body, { method: "PATCH" }));
        const stale = await patch(1, { name: "grace" });
        expect(stale.status).toBe(400);
        const staleText = await stale.text();
        expect(JSON.parse(staleText).errors.map((error: { path: unknown }) => error.path)).toEqual([["body", "tier"]]);
        expect(staleText).not.toContain(LEGACY_TIER);
        expect(staleText).not.toContain(SECRET);
        if (library === "ArkType") {
          const root = await patch(2, { name: "root" });
          expect(root.status).toBe(400);
          const rootText = await root.text();
          expect(JSON.parse(rootText).errors.map((error: { path: unknown }) => error.path)).toEqual([["body", "name"]]);
          expect(rootText).not.toContain(SECRET);
        }
        // What the client sent is its own to see quoted back.
        const sent = await patch(2, { tier: "gold-tier-sent" });
        expect(await sent.text()).toContain("gold-tier-sent");
      } finally {
        await close();
        db.close();
      }
    });
  }
});

describe("a model an update cannot validate again", () => {
  it("is refused when the update is registered, naming the member and why; a create over it is not", () => {
    const Counter = type({ id: "number.integer", count: "string.numeric.parse" });
    const meta = { model: { tableName: "counters", schema: Counter, primaryKeys: ["id"] } };
    class CreateCounter extends SqlCreateEndpoint {
      _meta = meta;
    }
    class UpdateCounter extends SqlUpdateEndpoint {
      _meta = meta;
    }
    const router = fromHono(new Hono());
    router.post("/counters", CreateCounter);
    expect(() => router.patch("/counters/:id", UpdateCounter)).toThrow(
      /member "count" outputs number but accepts string/,
    );
  });
});

type Row = { org_id: number; id: number; email: string; role: string; approved_by: string | null };

for (const engine of storeEngines(TABLE, 2)) {
  describe.skipIf(engine.skip)(`a model validated whole on ${engine.name}`, () => {
    let driver: SqlDriver;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ driver, close } = await engine.open());
      await driver.execute(
        `CREATE TABLE ${TABLE} (org_id INTEGER NOT NULL, id INTEGER NOT NULL, email TEXT NOT NULL, ` +
          "role VARCHAR(10) NOT NULL, approved_by VARCHAR(40), PRIMARY KEY (org_id, id))",
        [],
      );
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      await driver?.execute(`DROP TABLE IF EXISTS ${TABLE}`, []);
      await close?.();
    });
    beforeEach(() => driver.execute(`DELETE FROM ${TABLE}`, []));

    // A raw value that got stored is shown by its length: a diff of 100,000 characters takes vitest a minute.
    const rows = async () =>
      (
        await driver.query<Row>(`SELECT org_id, id, email, role, approved_by FROM ${TABLE} ORDER BY org_id, id`, [])
      ).map((row) => ({
        ...row,
        org_id: Number(row.org_id),
        id: Number(row.id),
        email: row.email.length > 60 ? `(${row.email.length} characters)` : row.email,
      }));
    const insert = (row: Row) => {
      const values = [1, 2, 3, 4, 5].map((position) => driver.dialect.placeholder(position)).join(", ");
      return driver.execute(
        `INSERT INTO ${TABLE} (org_id, id, email, role, approved_by) VALUES (${values})`,
        Object.values(row),
      );
    };
    const pathsOf = async (response: Response) =>
      ((await response.json()).errors as Array<{ path: unknown }>).map((error) => error.path);

    for (const { library, schema } of libraries) {
      for (const harness of httpHarnesses) {
        describe(`${library} on ${harness.name}, over HTTP`, () => {
          let app: TestApp;
          beforeAll(() => {
            const meta = { model: { tableName: TABLE, schema, primaryKeys: ["org_id", "id"] } };
            class CreateUser extends SqlCreateEndpoint {
              _meta = meta;
            }
            class CreateUsers extends SqlCreateEndpoint {
              _meta = { ...meta, pathParameters: ["org_id", "id"] };
              bulk = true;
            }
            class ReadUser extends SqlReadEndpoint {
              _meta = meta;
            }
            class UpdateUser extends SqlUpdateEndpoint {
              _meta = meta;
            }
            // The whole key in the body: the body is the model itself, validated whole by its own library.
            class CreateAnywhere extends SqlCreateEndpoint {
              _meta = meta;
            }
            app = harness.make({ db: driver });
            app.router.post("/users", CreateAnywhere);
            app.router.post("/orgs/:org_id/users", CreateUser);
            app.router.post("/orgs/:org_id/users/bulk", CreateUsers);
            app.router.get("/orgs/:org_id/users/:id", ReadUser);
            app.router.put("/orgs/:org_id/users/:id", UpdateUser);
            app.router.patch("/orgs/:org_id/users/:id", UpdateUser);
          });
          const call = (path: string, method: string, body: unknown) => app.request(path, jsonBody(body, { method }));

          it("stores a nested create as the model outputs it: trimmed and lower-cased", async () => {
            const created = await call("/orgs/7/users", "POST", { id: 1, email: "  Ada@Example.COM ", role: "user" });
            expect(created.status).toBe(201);
            expect((await created.json()).result).toMatchObject({ org_id: 7, id: 1, email: "ada@example.com" });
            expect(await rows()).toEqual([
              { org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null },
            ]);
          });

          it("refuses a nested create the object check refuses, naming the field, and stores nothing", async () => {
            const refused = await call("/orgs/7/users", "POST", { id: 1, email: "ada@example.com", role: "admin" });
            expect(refused.status).toBe(400);
            expect(await pathsOf(refused)).toEqual([["body", "approved_by"]]);
            expect(await rows()).toEqual([]);
          });

          it("never stores the raw value of a member whose limit holds only once trimmed", async () => {
            const created = await call("/orgs/7/users", "POST", { id: 1, email: PADDED, role: "user" });
            expect(created.status).toBe(201);
            expect((await rows()).map((row) => row.email)).toEqual(["a@b.co"]);
          });

          it("checks each object of a bulk create whole, naming the item, all or none", async () => {
            const refused = await call("/orgs/7/users/bulk", "POST", [
              { id: 1, email: PADDED, role: "user" },
              { id: 2, email: "b@example.com", role: "admin" },
            ]);
            expect(refused.status).toBe(400);
            expect(await pathsOf(refused)).toEqual([["body", "1", "approved_by"]]);
            expect(await rows()).toEqual([]);
            const created = await call("/orgs/7/users/bulk", "POST", [
              { id: 1, email: PADDED, role: "user" },
              { id: 2, email: " B@Example.com", role: "admin", approved_by: "ada" },
            ]);
            expect(created.status).toBe(201);
            expect((await rows()).map((row) => row.email)).toEqual(["a@b.co", "b@example.com"]);
          });

          it("refuses a PUT the object check refuses, and stores a valid one as the model outputs it", async () => {
            await insert({ org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null });
            const refused = await call("/orgs/7/users/1", "PUT", { email: "ada@example.com", role: "admin" });
            expect(refused.status).toBe(400);
            expect(await pathsOf(refused)).toEqual([["body", "approved_by"]]);
            expect((await rows())[0]!.role).toBe("user");
            const put = await call("/orgs/7/users/1", "PUT", { email: PADDED, role: "admin", approved_by: "grace" });
            expect(put.status).toBe(200);
            expect(await rows()).toEqual([{ org_id: 7, id: 1, email: "a@b.co", role: "admin", approved_by: "grace" }]);
          });

          it("checks a PATCH on the stored row with the changes laid over it", async () => {
            await insert({ org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null });
            await insert({ org_id: 7, id: 2, email: "grace@example.com", role: "admin", approved_by: "ada" });
            // The stored row has no approved_by: making it an admin is refused, naming the member.
            const promoted = await call("/orgs/7/users/1", "PATCH", { role: "admin" });
            expect(promoted.status).toBe(400);
            expect(await pathsOf(promoted)).toEqual([["body", "approved_by"]]);
            // The stored admin keeps an approver: clearing it is refused.
            const cleared = await call("/orgs/7/users/2", "PATCH", { approved_by: null });
            expect(cleared.status).toBe(400);
            expect(await pathsOf(cleared)).toEqual([["body", "approved_by"]]);
            // The stored admin's approver makes a change of another member valid.
            const renamed = await call("/orgs/7/users/2", "PATCH", { email: PADDED });
            expect(renamed.status).toBe(200);
            expect((await renamed.json()).result).toMatchObject({ email: "a@b.co", role: "admin" });
            expect(await rows()).toEqual([
              { org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null },
              { org_id: 7, id: 2, email: "a@b.co", role: "admin", approved_by: "ada" },
            ]);
          });

          it("takes the path's keys from the URL and stores no member the model does not declare", async () => {
            const stray = { org_id: 8, id: 1, email: "ada@example.com", role: "user", admin: true };
            expect((await call("/orgs/7/users", "POST", stray)).status).toBe(201);
            expect((await call("/users", "POST", { ...stray, id: 2 })).status).toBe(201);
            const patched = await call("/orgs/7/users/1", "PATCH", {
              org_id: 9,
              id: 3,
              email: "Eve@Example.com",
              admin: 1,
            });
            expect(patched.status).toBe(200);
            expect(await rows()).toEqual([
              { org_id: 7, id: 1, email: "eve@example.com", role: "user", approved_by: null },
              { org_id: 8, id: 2, email: "ada@example.com", role: "user", approved_by: null },
            ]);
            const admin = await call("/users", "POST", { org_id: 8, id: 3, email: "b@example.com", role: "admin" });
            expect(admin.status).toBe(400);
            expect(await pathsOf(admin)).toEqual([["body", "approved_by"]]);
          });

          it("still names each bad member of a PATCH, and an unknown row is 404", async () => {
            await insert({ org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null });
            const refused = await call("/orgs/7/users/1", "PATCH", { email: 42, role: "owner" });
            expect(refused.status).toBe(400);
            expect((await pathsOf(refused)).sort()).toEqual([
              ["body", "email"],
              ["body", "role"],
            ]);
            const tooLong = await call("/orgs/7/users/1", "PATCH", { email: ` ${"x".repeat(41)} ` });
            expect(tooLong.status).toBe(400);
            expect(await pathsOf(tooLong)).toEqual([["body", "email"]]);
            expect(await rows()).toEqual([
              { org_id: 7, id: 1, email: "ada@example.com", role: "user", approved_by: null },
            ]);
            expect((await call("/orgs/7/users/9", "PATCH", { role: "user" })).status).toBe(404);
          });
        });
      }
    }
  });
}
