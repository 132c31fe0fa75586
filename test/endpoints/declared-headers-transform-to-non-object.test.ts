// An app whose header schema is a z.object with a .transform to a non-object (here the tenant string
// it wants) still gets If-Match checked, as docs/crud.md "Conditional requests" promises: "no way of
// declaring headers turns the check off": a stale write is 412, the current tag writes, 304 comes.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
const headers = z.object({ "x-tenant": z.string().min(1).optional() }).transform((h) => h["x-tenant"] ?? "public");

for (const harness of httpHarnesses) {
  describe(`If-Match beside a header schema transformed to a string (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      class CreateNote extends SqlCreateEndpoint {
        _meta = meta;
      }
      class ReadNote extends SqlReadEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      class UpdateNote extends SqlUpdateEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      class RequiredUpdateNote extends SqlUpdateEndpoint {
        _meta = meta;
        requireIfMatch = true;
        schema = { request: { headers } };
      }
      app.router.post("/notes", CreateNote);
      app.router.get("/notes/:id", ReadNote);
      app.router.patch("/notes/:id", UpdateNote);
      app.router.put("/notes/:id", RequiredUpdateNote);
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    const created = async () => {
      const response = await app.request("/notes", jsonBody({ title: "first" }));
      return (await response.json()).result.id as number;
    };

    it("a stale If-Match is 412 and nothing is written", async () => {
      const id = await created();
      const stale = await app.request(
        `/notes/${id}`,
        jsonBody({ title: "overwritten" }, { method: "PATCH", headers: { "if-match": '"stale"', "x-tenant": "t1" } }),
      );
      expect(stale.status).toBe(412);
      const after = await (await app.request(`/notes/${id}`)).json();
      expect(after.result.title).toBe("first");
    });

    it("requireIfMatch accepts the current tag", async () => {
      const id = await created();
      const tag = (await app.request(`/notes/${id}`)).headers.get("etag")!;
      const written = await app.request(
        `/notes/${id}`,
        jsonBody({ title: "second" }, { method: "PUT", headers: { "if-match": tag } }),
      );
      expect(written.status).toBe(200);
    });

    it("If-None-Match with the current tag answers 304", async () => {
      const id = await created();
      const tag = (await app.request(`/notes/${id}`)).headers.get("etag")!;
      expect((await app.request(`/notes/${id}`, { headers: { "if-none-match": tag } })).status).toBe(304);
    });
  });
}
