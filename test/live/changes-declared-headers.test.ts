// Before the fix: a changes endpoint derives Last-Event-ID as If-Match is derived, but reads it from the
// validated headers, not as sent. An app's own header schema (a lower-case `last-event-id`, a valibot
// object, a zod transform) then drops it: a reconnecting client silently misses every change it was
// away for (the stream starts from now), or the request is a 500.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import Database from "better-sqlite3";
import { Hono } from "hono";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, changeFeed, fromHono, SqlChangesEndpoint, SqlCreateEndpoint } from "../../src";
import { jsonBody, listenOnLoopback } from "../helpers";
import { readStream } from "./http-app";

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

const Note = z.object({ id: z.number().int(), text: z.string() });

const declarations = {
  "lower-case zod": z.object({ "last-event-id": z.string().regex(/^\d+$/).optional() }),
  valibot: toStandardJsonSchema(v.object({ "x-client": v.optional(v.string()) })),
  "zod transform": z.object({ "x-client": z.string().optional() }).transform((headers) => headers["x-client"]),
};

async function notesApp(headers: unknown) {
  const driver = betterSqlite3Driver(new Database(":memory:"));
  await driver.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)", []);
  const meta = {
    model: { tableName: "notes", schema: Note, primaryKeys: ["id"] },
    fields: Note.pick({ text: true }),
    changes: changeFeed(),
  };
  const router = fromHono(new Hono(), { db: driver })
    .post(
      "/notes",
      class extends SqlCreateEndpoint {
        _meta = meta;
      },
    )
    .get(
      "/notes/changes",
      class extends SqlChangesEndpoint {
        _meta = meta;
        schema = { request: { headers } } as any;
      },
    );
  const server = await listenOnLoopback((request, env) => router.fetch(request, env));
  servers.push(server);
  const { origin } = server;
  const write = async (text: string) => {
    const answer = await fetch(`${origin}/notes`, jsonBody({ text }));
    if (!answer.ok) throw new Error(`POST /notes answered ${answer.status}`);
  };
  return { origin, write };
}

describe("Last-Event-ID beside an app's own header schema", () => {
  for (const [name, headers] of Object.entries(declarations)) {
    it(`${name}: a reconnecting client is replayed the changes after its Last-Event-ID`, async () => {
      const app = await notesApp(headers);
      await app.write("first");
      await app.write("second");
      const controller = new AbortController();
      const response = await fetch(`${app.origin}/notes/changes`, {
        headers: { "last-event-id": "1" },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      await app.write("third");
      const events = await readStream(response, (event) => event.data.object?.text === "third");
      controller.abort();
      // Without the replay the client never learns of "second".
      expect(events.map((event) => [event.event, event.id, event.data.object?.text])).toEqual([
        ["created", "2", "second"],
        ["created", "3", "third"],
      ]);
    });
  }
});
