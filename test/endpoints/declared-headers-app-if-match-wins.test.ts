// An app declares "If-Match" itself in its valibot header object (to document it, splitting the list as
// it likes). alongside() drops the derived member whenever the app declares the same name, so the app's
// output is what conditionalHeader() reads; an output that is not a string (the split list) reads as
// "not sent": the lost-update check is skipped and a stale If-Match writes (200), against docs/crud.md
// "no way of declaring headers turns the check off". The derived rule should still decide the check.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import Database from "better-sqlite3";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlDeleteEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
const headers = toStandardJsonSchema(
  v.object({
    "If-Match": v.optional(
      v.pipe(
        v.string(),
        v.transform((list) => list.split(/\s*,\s*/)),
      ),
    ),
  }),
);

for (const harness of httpHarnesses) {
  describe(`an app's own If-Match member (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      class CreateNote extends SqlCreateEndpoint {
        _meta = meta;
      }
      class UpdateNote extends SqlUpdateEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      class DeleteNote extends SqlDeleteEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      app.router.post("/notes", CreateNote);
      app.router.patch("/notes/:id", UpdateNote);
      app.router.delete("/notes/:id", DeleteNote);
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    it("a stale If-Match writes nothing and deletes nothing", async () => {
      const id = (await (await app.request("/notes", jsonBody({ title: "first" }))).json()).result.id as number;
      const stale = { "if-match": '"stale"' };
      const patched = await app.request(
        `/notes/${id}`,
        jsonBody({ title: "lost" }, { method: "PATCH", headers: stale }),
      );
      expect(patched.status).toBe(412);
      const deleted = await app.request(`/notes/${id}`, { method: "DELETE", headers: stale });
      expect(deleted.status).toBe(412);
    });
  });
}
