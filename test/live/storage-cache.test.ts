import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { describe, expect, it } from "vitest";
import { betterSqlite3Driver, changeFeed, recordedWrite, sqlLiveStorage } from "../../src";
import { drizzleLiveStorage } from "../../src/drizzle";
import { listen } from "../../src/live/listen";

// A live storage is made on a collection's first write and kept per feed, driver and collection (issue #45).
describe("a SQL live storage", () => {
  it("is one value per feed, driver and collection, and a new one for another of any of them", () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const other = betterSqlite3Driver(new Database(":memory:"));
    const feed = changeFeed();
    const live = sqlLiveStorage(feed, driver, "tasks");

    expect(sqlLiveStorage(feed, driver, "tasks")).toBe(live);
    expect(sqlLiveStorage(feed, driver, "notes")).not.toBe(live);
    expect(sqlLiveStorage(feed, other, "tasks")).not.toBe(live);
    expect(sqlLiveStorage(changeFeed(), driver, "tasks")).not.toBe(live);
  });

  it("still records and sends the changes of collections an app names past the ones it keeps", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const feed = changeFeed();
    const names = Array.from({ length: 300 }, (_, i) => `tenant-${i}`);
    for (const name of names) {
      await recordedWrite(sqlLiveStorage(feed, driver, name), async () => ({
        result: null,
        changes: [{ kind: "created", row: { id: 1, name }, before: null }],
      }));
    }

    const last = names.at(-1)!;
    const view = {
      select: (change: { kind: string; row: unknown }) => `${change.kind} ${JSON.stringify(change.row)}`,
      reset: () => "reset",
      lagged: () => "lagged",
      reconnect: () => "reconnect",
    };
    const events = await listen(sqlLiveStorage(feed, driver, last).source, view, { after: 0 });
    const first = await events.next();
    await events.return?.();
    expect(first).toEqual({ done: false, value: `created {"id":1,"name":"${last}"}` });
    // Past the kept names, each call makes its own storage instead of keeping one more.
    expect(sqlLiveStorage(feed, driver, last)).not.toBe(sqlLiveStorage(feed, driver, last));
  });
});

describe("a Drizzle live storage", () => {
  it("shares one change source per feed, database and collection", () => {
    const db = drizzle(new Database(":memory:"));
    const feed = changeFeed();
    const live = drizzleLiveStorage(feed, db, "tasks");

    expect(drizzleLiveStorage(feed, db, "tasks").source).toBe(live.source);
    expect(drizzleLiveStorage(feed, db, "notes").source).not.toBe(live.source);
    expect(drizzleLiveStorage(feed, drizzle(new Database(":memory:")), "tasks").source).not.toBe(live.source);
  });
});
