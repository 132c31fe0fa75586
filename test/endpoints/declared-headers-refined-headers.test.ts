// An app's header schema is a z.object with a .refine / .superRefine (still a ZodObject in zod v4). With
// conditionalRequests on, mergeSchema builds derivedHeaders.extend(userHeaders.shape): only the shape
// survives, the app's own object-level rule is dropped without a word. The same route without
// conditionalRequests refuses the request; with it, the forbidden combination writes (200).
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

// A tenant header that must agree with the signed one: the app's own cross-header rule.
const headers = z
  .object({ "x-tenant": z.string().optional(), "x-signed-tenant": z.string().optional() })
  .refine((h) => h["x-tenant"] === h["x-signed-tenant"], { message: "tenant mismatch", path: ["x-tenant"] });

for (const harness of httpHarnesses) {
  describe(`an app's refined header object with conditional requests (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      class CreateNote extends SqlCreateEndpoint {
        _meta = meta;
      }
      class PlainUpdate extends SqlUpdateEndpoint {
        _meta = meta;
        schema = { request: { headers } };
      }
      class ConditionalUpdate extends SqlUpdateEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      class ConditionalRead extends SqlReadEndpoint {
        _meta = meta;
        conditionalRequests = true;
        schema = { request: { headers } };
      }
      app.router.post("/notes", CreateNote);
      app.router.patch("/plain/notes/:id", PlainUpdate);
      app.router.patch("/conditional/notes/:id", ConditionalUpdate);
      app.router.get("/conditional/notes/:id", ConditionalRead);
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    it("the refinement refuses the request with and without conditionalRequests", async () => {
      const id = (await (await app.request("/notes", jsonBody({ title: "first" }))).json()).result.id as number;
      const forged = { "x-tenant": "victim", "x-signed-tenant": "attacker" };
      for (const prefix of ["plain", "conditional"]) {
        const response = await app.request(
          `/${prefix}/notes/${id}`,
          jsonBody({ title: "forged" }, { method: "PATCH", headers: forged }),
        );
        expect(response.status, prefix).toBe(400);
        expect((await response.json()).errors[0].path, prefix).toEqual(["headers", "x-tenant"]);
      }
      expect((await app.request(`/conditional/notes/${id}`, { headers: forged })).status).toBe(400);
    });
  });
}
