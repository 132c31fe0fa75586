// An app that declares its headers as a closed object (valibot v.strictObject, ArkType "+": "reject", a
// zod .strict() object with a .transform) and opts into conditionalRequests / requireIfMatch: the
// alongside node hands the app's schema the derived headers too (If-Match, If-None-Match, read because
// they are declared), so the closed object refuses them: every conditional request is a 400 naming the
// derived header, and with requireIfMatch no write can ever succeed (428 without, 400 with).
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import Database from "better-sqlite3";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, SqlCreateEndpoint, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), title: z.string() });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

const declarations = {
  valibotStrict: toStandardJsonSchema(v.strictObject({ "x-client": v.optional(v.pipe(v.string(), v.minLength(3))) })),
  arktypeReject: type({ "+": "reject", "x-client?": "string>=3" }),
  zodStrictTransformed: z
    .object({ "x-client": z.string().min(3).optional() })
    .strict()
    .transform((h) => ({ ...h })),
} as const;

for (const harness of httpHarnesses) {
  describe(`derived headers beside a closed header object (${harness.name})`, () => {
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

    for (const name of Object.keys(declarations)) {
      it(`${name}: If-None-Match answers 304, a stale If-Match 412, the current one writes`, async () => {
        const id = (await (await app.request("/notes", jsonBody({ title: "first" }))).json()).result.id as number;
        const read = await app.request(`/${name}/notes/${id}`, { headers: { "x-client": "app" } });
        expect(read.status).toBe(200);
        const tag = read.headers.get("etag")!;
        expect((await app.request(`/${name}/notes/${id}`, { headers: { "if-none-match": tag } })).status).toBe(304);
        const patch = (headers: Record<string, string>) =>
          app.request(`/${name}/notes/${id}`, jsonBody({ title: "second" }, { method: "PATCH", headers }));
        expect((await patch({ "if-match": '"stale"' })).status).toBe(412);
        const written = await patch({ "if-match": tag, "x-client": "app" });
        expect(written.status).toBe(200);
      });
    }
  });
}
