import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, fromHono, OpenAPIRoute, type SqlDriver, SqlReadEndpoint } from "../../src";
import { DrizzleReadEndpoint, drizzleMeta } from "../../src/drizzle";

// One endpoint class registered on two Hono apps (a closing note saw a 404 once): each app serves it
// from its own router, with its own database, whichever app registers or serves first, with or without
// a base. Each app keeps answering after the other registered and served.

const items = sqliteTable("items", { id: integer().primaryKey(), name: text().notNull() });
const sqlMeta = {
  model: { schema: z.object({ id: z.number().int(), name: z.string() }), primaryKeys: ["id"], tableName: "items" },
};

class PlainItem extends OpenAPIRoute {
  schema = { request: { params: z.object({ id: z.coerce.number() }) }, responses: {} };
  async handle(c: { req: { url: string } }) {
    const { params } = await this.getValidatedData<typeof this.schema>();
    return { result: { id: params.id, name: new URL(c.req.url).hostname } };
  }
}
class SqlItem extends SqlReadEndpoint {
  _meta = sqlMeta;
}
class DrizzleItem extends DrizzleReadEndpoint {
  _meta = drizzleMeta(items);
}

/** A database holding one item named `name`: as a SqlDriver and as a Drizzle database. */
function database(name: string): { driver: SqlDriver; drizzle: ReturnType<typeof drizzle> } {
  const client = new Database(":memory:");
  client.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  client.prepare("INSERT INTO items VALUES (1, ?)").run(name);
  return { driver: betterSqlite3Driver(client), drizzle: drizzle(client) };
}

const endpoints = [
  { name: "a plain endpoint", Endpoint: PlainItem, db: () => undefined },
  { name: "a SQL Read endpoint", Endpoint: SqlItem, db: (name: string) => database(name).driver },
  { name: "a Drizzle Read endpoint", Endpoint: DrizzleItem, db: (name: string) => database(name).drizzle },
];

describe.each(endpoints)("$name registered on two Hono apps", ({ Endpoint, db }) => {
  const app = (name: string, base: string) => {
    const hono = new Hono();
    const router = fromHono(hono, { db: db(name), ...(base ? { base } : {}) });
    return { name, hono, router };
  };
  const answer = async (served: ReturnType<typeof app>, base: string) => {
    const response = await served.hono.request(`http://${served.name}${base}/items/1`);
    return [response.status, (await response.json()).result?.name];
  };

  for (const base of ["", "/api"]) {
    for (const order of ["registered first", "registered second"]) {
      it(`the app ${order} answers from its own database, serving before and after the other (base "${base}")`, async () => {
        const first = app("first", base);
        const second = app("second", base);
        const [early, late] = order === "registered first" ? [first, second] : [second, first];
        early.router.get("/items/:id", Endpoint);
        expect(await answer(early, base)).toEqual([200, early.name]);
        late.router.get("/items/:id", Endpoint);
        expect(await answer(late, base)).toEqual([200, late.name]);
        expect(await answer(early, base)).toEqual([200, early.name]);
        expect(Object.keys(late.router.schema.paths)).toEqual([`${base}/items/{id}`]);
      });
    }
  }
});
