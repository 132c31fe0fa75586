import Database from "better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { betterSqlite3Driver, changeFeed, fromHono, recordedWrite, sqlLiveStorage } from "../../src";
import { DrizzleCreateEndpoint, drizzleMeta } from "../../src/drizzle";
import { listen } from "../../src/live/listen";

// A listener's queue on a real SQLite change log: bounded by the feed's bufferSize, so a client that
// reads slower than changes come is sent one `lagged` item and let go, and the server keeps no more.

describe("a live collection's listener that reads slower than changes come", () => {
  it("is sent lagged in place of what it did not read, then ends, and the collection forgets it", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const live = sqlLiveStorage(changeFeed({ bufferSize: 3 }), driver, "lagging");
    const write = (n: number) =>
      recordedWrite(live, async () => ({ result: n, changes: [{ kind: "created", row: { n }, before: null }] }));
    const view = {
      select: (change: { seq: number }) => `change ${change.seq}`,
      reset: () => "reset",
      lagged: () => "lagged",
    };
    const events = await listen(live.source, undefined, view);
    await write(1);
    expect(await events.next()).toEqual({ done: false, value: "change 1" });
    // Ten changes while the client reads nothing: the fourth overflows its queue of three.
    for (let n = 2; n <= 11; n++) await write(n);
    // The collection's reader reads them once woken; a generous pause lets it offer all ten first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await events.next()).toEqual({ done: false, value: "lagged" });
    expect(await events.next()).toEqual({ done: true, value: undefined });
    // A new listener starts from the head: the lagged one holds nothing back.
    const fresh = await listen(live.source, undefined, view);
    await write(12);
    expect(await fresh.next()).toEqual({ done: false, value: "change 12" });
    await fresh.return?.();
  });
});

describe("a live collection on a storage that cannot record its changes yet", () => {
  it("fails the registration of a Drizzle endpoint whose Meta names a change feed, saying so", () => {
    const users = sqliteTable("users", { id: integer("id").primaryKey(), name: text("name").notNull() });
    class CreateUser extends DrizzleCreateEndpoint {
      _meta = { ...drizzleMeta(users), changes: changeFeed() };
    }
    expect(() => fromHono(new Hono()).post("/users", CreateUser)).toThrow(
      "live collections (_meta.changes) are not supported on this storage yet",
    );
  });
});
