// An app whose header transform builds a class instance (a Map, its own Caller class) gets that same
// instance from getValidatedData() with conditionalRequests on: the derived headers are checked beside
// the app's schema, never spread into its output.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

class Caller {
  constructor(readonly client: string) {}
  label() {
    return `caller ${this.client}`;
  }
}
const asMap = z.object({ "x-client": z.string().min(3) }).transform((h) => new Map(Object.entries(h)));
const asCaller = z.object({ "x-client": z.string().min(3) }).transform((h) => new Caller(h["x-client"]));

for (const harness of httpHarnesses) {
  describe(`a header transform's output reaches the handler unchanged (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    const seen: Record<string, unknown> = {};
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      class CreateNote extends SqlCreateEndpoint {
        _meta = meta;
      }
      app.router.post("/notes", CreateNote);
      for (const [name, headers] of Object.entries({ map: asMap, caller: asCaller })) {
        class UpdateNote extends SqlUpdateEndpoint {
          _meta = meta;
          conditionalRequests = true;
          schema = { request: { headers } };
          override async update(...args: Parameters<SqlUpdateEndpoint["update"]>) {
            seen[name] = (await this.getValidatedData()).headers;
            return super.update(...args);
          }
        }
        app.router.patch(`/${name}/notes/:id`, UpdateNote);
      }
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    it("a Map stays a Map, a class instance keeps its class", async () => {
      for (const name of ["map", "caller"]) {
        const id = (await (await app.request("/notes", jsonBody({ title: "first" }))).json()).result.id as number;
        const written = await app.request(
          `/${name}/notes/${id}`,
          jsonBody({ title: "second" }, { method: "PATCH", headers: { "x-client": "app" } }),
        );
        expect(written.status).toBe(200);
      }
      expect(seen.map).toBeInstanceOf(Map);
      expect((seen.map as Map<string, string>).get("x-client")).toBe("app");
      expect(seen.caller).toBeInstanceOf(Caller);
      expect((seen.caller as Caller).label()).toBe("caller app");
    });
  });
}
