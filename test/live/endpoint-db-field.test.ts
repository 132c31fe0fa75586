import Database from "better-sqlite3";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, changeFeed, fromHono, SqlChangesEndpoint, SqlCreateEndpoint } from "../../src";
import { listenOnLoopback } from "../helpers";

// docs/sql.md "Where the database comes from": 1. the endpoint's `db` property (a driver). docs/live.md:
// on SQLite "the writing process wakes its own listeners at once; others poll the log's head every
// pollMs". The live storage and its broker are kept per driver (src/sql/live.ts), so a driver set as the
// endpoint's `db` class field must be the same object on every request: were it copied per request as a
// plain object field, a listener in the very process that wrote would hear the write only at its next
// poll. The same app with the router's `db` option is the control.

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** Reads the SSE stream at `url` until `pattern` appears or `ms` pass; answers whether it appeared. */
async function hears(url: string, pattern: RegExp, ms: number, after: () => Promise<void>): Promise<boolean> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers: { accept: "text/event-stream" } });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => controller.abort(), ms);
  // The stream is open: now write.
  const reading = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return false;
        text += decoder.decode(value);
        if (pattern.test(text)) return true;
      }
    } catch {
      return false;
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await after();
  const heard = await reading;
  clearTimeout(timer);
  controller.abort();
  return heard;
}

function app(where: "endpoint" | "router") {
  const sqlite = new Database(":memory:");
  sqlite.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)");
  const driver = betterSqlite3Driver(sqlite);
  const Note = z.object({ id: z.number().int(), text: z.string() });
  // A poll far beyond the test's wait: only the in-process wake can deliver in time.
  const meta = {
    model: { tableName: "notes", schema: Note, primaryKeys: ["id"] },
    fields: Note.omit({ id: true }),
    changes: changeFeed({ pollMs: 60_000 }),
  };
  const db = where === "endpoint" ? driver : undefined;
  class CreateNote extends SqlCreateEndpoint {
    _meta = meta;
    db = db;
  }
  class NoteChanges extends SqlChangesEndpoint {
    _meta = meta;
    db = db;
  }
  const hono = new Hono();
  fromHono(hono, where === "router" ? { db: driver } : {})
    .post("/notes", CreateNote)
    .get("/notes/changes", NoteChanges);
  return hono;
}

describe("a live write on SQLite wakes the listeners of its own process at once", () => {
  for (const where of ["router", "endpoint"] as const) {
    it(`with the driver as the ${where}'s db`, async () => {
      const server = await listenOnLoopback(app(where).fetch);
      servers.push(server);
      const heard = await hears(`${server.origin}/notes/changes`, /event: created/, 3000, async () => {
        const created = await fetch(`${server.origin}/notes`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text: "hello" }),
        });
        expect(created.status).toBe(201);
      });
      expect(heard).toBe(true);
    });
  }
});

describe("the endpoint's db, as a request sees it", () => {
  it("is the driver the class set, the same object on every request", async () => {
    const sqlite = new Database(":memory:");
    sqlite.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)");
    const driver = betterSqlite3Driver(sqlite);
    const Note = z.object({ id: z.number().int(), text: z.string() });
    const seen: unknown[] = [];
    class CreateNote extends SqlCreateEndpoint {
      _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
      db = driver;
      async before(data: Record<string, unknown>) {
        seen.push(this.database());
        return data;
      }
    }
    const hono = new Hono();
    fromHono(hono).post("/notes", CreateNote);
    for (const text of ["a", "b"]) {
      const created = await hono.request("/notes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text }),
      });
      expect(created.status).toBe(201);
    }
    expect(seen[0]).toBe(driver);
    expect(seen[1]).toBe(seen[0]);
  });
});
