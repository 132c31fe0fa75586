// An app documents the header it sends in lower case, as HTTP/2 carries it: `if-match` (or the D1-style
// `if-none-match`) in its valibot / ArkType header object. alongside() drops a derived member only when
// the app declares the exact same spelling, so "If-Match" is added beside "if-match": the document lists
// one header twice (HTTP field names are case-insensitive, RFC 9110 §5.1) and the handler's validated
// headers carry two keys for one field.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import Database from "better-sqlite3";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

const declarations = {
  valibot: toStandardJsonSchema(
    v.object({ "if-match": v.optional(v.string()), "if-none-match": v.optional(v.string()) }),
  ),
  arktype: type({ "if-match?": "string", "if-none-match?": "string" }),
} as const;

for (const harness of httpHarnesses) {
  describe(`a derived header the app declares in another case (${harness.name})`, () => {
    let app: ReturnType<typeof harness.make>;
    const db = new Database(":memory:");
    beforeAll(() => {
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
      app = harness.make({ db: betterSqlite3Driver(db) });
      for (const [name, headers] of Object.entries(declarations)) {
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
        app.router.get(`/${name}/notes/:id`, ReadNote);
        app.router.patch(`/${name}/notes/:id`, UpdateNote);
      }
    });
    afterAll(async () => {
      await closeHttpHarnesses();
      db.close();
    });

    for (const version of ["3", "3.1", "3.2"]) {
      it(`${version}: each header parameter is listed once, whatever its case`, () => {
        const doc = app.router.getGeneratedSchema(version) as any;
        for (const name of Object.keys(declarations)) {
          for (const method of ["get", "patch"]) {
            const names = doc.paths[`/${name}/notes/{id}`][method].parameters
              .filter((p: { in: string }) => p.in === "header")
              .map((p: { name: string }) => p.name.toLowerCase());
            expect(names, `${name} ${method}`).toEqual([...new Set(names)]);
          }
        }
      });
    }
  });
}
