import Database from "better-sqlite3";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  changeFeed,
  fromHono,
  recordedWrite,
  SqlChangesEndpoint,
  sqlLiveStorage,
} from "../../src";
import { createClient } from "../../src/client";
import { listen } from "../../src/live/listen";
import { listenFromNow } from "./from-now";

// A listener's queue on a real SQLite change log: bounded by the feed's bufferSize, so a client that
// reads slower than changes come is sent one `lagged` item and let go, and the server keeps no more.

describe("a live collection's listener that reads slower than changes come", () => {
  it("is sent lagged, with where it resumes, in place of what it did not read, then ends, and the collection forgets it", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const live = sqlLiveStorage(changeFeed({ bufferSize: 3 }), driver, "lagging");
    const write = (n: number) =>
      recordedWrite(live, async () => ({ result: n, changes: [{ kind: "created", row: { n }, before: null }] }));
    const view = {
      select: (change: { seq: number }) => `change ${change.seq}`,
      reset: () => "reset",
      lagged: (resumeAfter: number) => `lagged after ${resumeAfter}`,
      reconnect: (resumeAfter: number) => `reconnect after ${resumeAfter}`,
    };
    const events = await listenFromNow(live.source, view, 0);
    await write(1);
    expect(await events.next()).toEqual({ done: false, value: "change 1" });
    // Ten changes while the client reads nothing: the fourth overflows its queue of three.
    for (let n = 2; n <= 11; n++) await write(n);
    // The collection's reader reads them once woken; a generous pause lets it offer all ten first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // It was sent change 1: that is where it goes on from.
    expect(await events.next()).toEqual({ done: false, value: "lagged after 1" });
    expect(await events.next()).toEqual({ done: true, value: undefined });
    // A new listener starts from the head: the lagged one holds nothing back.
    const fresh = await listenFromNow(live.source, view, 11);
    await write(12);
    expect(await fresh.next()).toEqual({ done: false, value: "change 12" });
    await fresh.return?.();
  });
});

describe("a live collection's listener that lags before it has read anything", () => {
  it("is sent lagged with where it started, and a listener from there gets every change once", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const live = sqlLiveStorage(changeFeed({ bufferSize: 5 }), driver, "lagging-early");
    const burst = Array.from({ length: 20 }, (_, n) => ({ kind: "created" as const, row: { n }, before: null }));
    const view = {
      select: (change: { seq: number }) => `change ${change.seq}`,
      reset: () => "reset",
      lagged: (resumeAfter: number) => `lagged after ${resumeAfter}`,
      reconnect: (resumeAfter: number) => `reconnect after ${resumeAfter}`,
    };
    const events = await listenFromNow(live.source, view, 0);
    // Twenty changes at once, before the client asked for its next: its queue of five overflows.
    await recordedWrite(live, async () => ({ result: null, changes: burst }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await events.next()).toEqual({ done: false, value: "lagged after 0" });
    expect(await events.next()).toEqual({ done: true, value: undefined });
    // From there, a page of at most five at a time: nothing lost, nothing twice, no lag.
    const resumed = await listen(live.source, view, { after: 0 });
    const received = [];
    for (let n = 0; n < 20; n++) received.push((await resumed.next()).value);
    await resumed.return?.();
    expect(received).toEqual(Array.from({ length: 20 }, (_, n) => `change ${n + 1}`));
  });
});

describe("a change's row, read back from the log", () => {
  it("reaches the model's serializer decoded as the Read endpoint reads it: a date as a Date", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    await driver.execute("CREATE TABLE meetings (id INTEGER PRIMARY KEY, at TEXT NOT NULL)", []);
    const Meeting = z.object({ id: z.number().int(), at: z.date() });
    const feed = changeFeed();
    const model = {
      tableName: "meetings",
      schema: Meeting,
      primaryKeys: ["id"],
      // A serializer that needs the Date: given the log's ISO text, it would throw.
      serializer: (obj: any) => ({ id: obj.id, day: (obj.at as Date).toISOString().slice(0, 10) }),
      serializerSchema: z.object({ id: z.number().int(), day: z.string() }),
    };
    class MeetingChanges extends SqlChangesEndpoint {
      _meta = { model, changes: feed };
    }
    const app = new Hono();
    const router = fromHono(app, { db: driver }).get("/meetings/changes", MeetingChanges);
    const client = createClient<typeof router>("http://local", { fetch: (request) => app.request(request) });
    const answer = await client.get("/meetings/changes");
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    const events = answer.data[Symbol.asyncIterator]();
    await recordedWrite(sqlLiveStorage(feed, driver, "meetings"), async (tx) => {
      await tx.execute("INSERT INTO meetings (id, at) VALUES (1, '2026-11-26T10:00:00.000Z')", []);
      const row = { id: 1, at: new Date("2026-11-26T10:00:00.000Z") };
      return { result: row, changes: [{ kind: "created", row, before: null }] };
    });
    const first = await events.next();
    await events.return?.();
    expect(first.value).toMatchObject({ event: "created", data: { object: { id: 1, day: "2026-11-26" } } });
  });
});

describe("a changes endpoint over a Meta that names no change feed", () => {
  it("fails the registration, saying what is missing", () => {
    const Note = z.object({ id: z.number().int(), text: z.string() });
    class NoteChanges extends SqlChangesEndpoint {
      _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
    }
    const router = fromHono(new Hono(), { db: betterSqlite3Driver(new Database(":memory:")) });
    expect(() => router.get("/notes/changes", NoteChanges)).toThrow(
      "NoteChanges: the _meta has no changes feed (changeFeed())",
    );
  });
});
