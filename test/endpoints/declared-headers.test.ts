// An auto endpoint whose app declares its own request headers in a schema specroute cannot extend (a
// valibot object, a transformed zod object) still reads and documents the headers it derives itself:
// If-Match, If-None-Match. Dropping them would skip the lost-update check without a word.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import Database from "better-sqlite3";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, documentErrors, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

// The same header, with the same rule, declared three ways.
const declarations = {
  valibot: toStandardJsonSchema(v.object({ "x-client": v.optional(v.pipe(v.string(), v.minLength(3))) })),
  transformed: z
    .object({ "x-client": z.string().min(3).optional() })
    .transform((headers) => ({ ...headers, seen: true })),
  zod: z.object({ "x-client": z.string().min(3).optional() }),
} as const;

for (const harness of httpHarnesses) {
  describe(`derived headers beside the app's own (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      class CreateNote extends SqlCreateEndpoint {
        _meta = meta;
      }
      app.router.post("/notes", CreateNote);
      for (const [name, headers] of Object.entries(declarations)) {
        class ReadNote extends SqlReadEndpoint {
          _meta = meta;
          conditionalRequests = true;
          schema = { request: { headers } };
        }
        class UpdateNote extends SqlUpdateEndpoint {
          _meta = meta;
          requireIfMatch = true;
          schema = { request: { headers } };
        }
        app.router.get(`/${name}/notes/:id`, ReadNote);
        app.router.patch(`/${name}/notes/:id`, UpdateNote);
      }
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    const create = async () => {
      const response = await app.request("/notes", jsonBody({ title: "first" }));
      expect(response.status).toBe(201);
      return (await response.json()).result.id as number;
    };

    for (const name of Object.keys(declarations)) {
      it(`${name}: If-Match is required and checked, If-None-Match answers 304`, async () => {
        const id = await create();
        const read = await app.request(`/${name}/notes/${id}`);
        expect(read.status).toBe(200);
        const tag = read.headers.get("etag")!;
        expect(tag).toMatch(/^"/);
        expect((await app.request(`/${name}/notes/${id}`, { headers: { "if-none-match": tag } })).status).toBe(304);

        const patch = (headers: Record<string, string>) =>
          app.request(`/${name}/notes/${id}`, jsonBody({ title: "second" }, { method: "PATCH", headers }));
        expect((await patch({})).status).toBe(428);
        expect((await patch({ "if-match": '"stale"' })).status).toBe(412);
        const written = await patch({ "if-match": tag });
        expect(written.status).toBe(200);
        expect((await written.json()).result.title).toBe("second");
      });

      it(`${name}: the app's own header is still validated, and both are documented`, async () => {
        const id = await create();
        const refused = await app.request(`/${name}/notes/${id}`, { headers: { "x-client": "ab" } });
        expect(refused.status).toBe(400);
        expect((await refused.json()).errors[0].path).toEqual(["headers", "x-client"]);

        const doc = app.router.getGeneratedSchema("3.1") as any;
        const names = (method: string) =>
          doc.paths[`/${name}/notes/{id}`][method].parameters
            .filter((p: { in: string }) => p.in === "header")
            .map((p: { name: string }) => p.name)
            .sort();
        expect(names("get")).toEqual(["If-None-Match", "x-client"]);
        expect(names("patch")).toEqual(["If-Match", "x-client"]);
        expect(await documentErrors(doc)).toBeNull();
      });
    }
  });
}
