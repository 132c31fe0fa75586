import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { describe, expect, it } from "vitest";
import {
  betterSqlite3Driver,
  CHANGES_CHANNEL,
  type ChangeBroker,
  changeFeed,
  pgliteDriver,
  recordedWrite,
  SqlChangeLog,
  type SqlDriver,
  sqlLiveStorage,
} from "../../src";
import { drizzleLiveStorage } from "../../src/drizzle";
import { eventually } from "../helpers";

// A broker's `recorded` hook runs in the write's transaction, after its changes are recorded, and
// PostgreSQL's NOTIFY is sent there (issue #45). Real SQLite and PGlite; PostgreSQL's LISTEN across
// processes is in test/sql/change-log.test.ts and test/live/processes.test.ts.

const change = (id: number) => ({ kind: "created" as const, row: { id }, before: null });

/** A broker that wakes nobody and, in each write's transaction, runs `recorded` on the write's session. */
function hookBroker(recorded: (tx: SqlDriver, collection: string) => Promise<void>): ChangeBroker<SqlDriver> {
  return { watch: async () => async () => {}, recorded, committed() {} };
}

/** The seqs the log holds for `collection`, read in SQL on `tx` (no bound values, as a hook on any storage can). */
async function seqsOn(tx: SqlDriver, collection: string): Promise<number[]> {
  const lines = await tx.query<{ seq: unknown }>(
    `SELECT "seq" FROM "specroute_changes" WHERE "collection" = '${collection}' ORDER BY "seq"`,
    [],
  );
  return lines.map((line) => Number(line.seq));
}

describe("a broker's recorded hook", () => {
  it("runs once per write that changed something, in its transaction, after its changes are recorded (SQL on SQLite)", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const seen: Array<[string, number[]]> = [];
    const feed = changeFeed({
      broker: hookBroker(async (tx, collection) => {
        seen.push([collection, await seqsOn(tx, collection)]);
      }),
    });
    const live = sqlLiveStorage(feed, driver, "tasks");
    await recordedWrite(live, async () => ({ result: null, changes: [change(1), change(2)] }));
    await recordedWrite(live, async () => ({ result: null, changes: [] }));
    await recordedWrite(live, async () => ({ result: null, changes: [change(3)] }));
    expect(seen).toEqual([
      ["tasks", [1, 2]],
      ["tasks", [1, 2, 3]],
    ]);
  });

  it("rolls the write and its changes back when it fails (SQL on SQLite)", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY)");
    const driver = betterSqlite3Driver(db);
    const feed = changeFeed({
      broker: hookBroker(async () => {
        throw new Error("the bus refused");
      }),
    });
    const live = sqlLiveStorage(feed, driver, "tasks");
    const write = recordedWrite(live, async (tx) => {
      await tx.execute("INSERT INTO tasks (id) VALUES (1)", []);
      return { result: null, changes: [change(1)] };
    });
    await expect(write).rejects.toThrow("the bus refused");
    expect(db.prepare("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 0 });
    expect(await live.source.log.bounds(driver, "tasks")).toEqual({ oldest: 0, newest: 0 });
  });

  it("runs on the Drizzle transaction as a SqlDriver, so what it reads there is the write's own (Drizzle on SQLite)", async () => {
    const client = new Database(":memory:");
    const seen: number[][] = [];
    const feed = changeFeed({
      broker: hookBroker(async (tx, collection) => {
        seen.push(await seqsOn(tx, collection));
      }),
    });
    const db = drizzleSqlite(client);
    await recordedWrite(drizzleLiveStorage(feed, db, "notes"), async () => ({ result: null, changes: [change(1)] }));
    const failing = changeFeed({
      broker: hookBroker(async () => {
        throw new Error("the bus refused");
      }),
    });
    const refused = recordedWrite(drizzleLiveStorage(failing, db, "notes"), async () => ({
      result: null,
      changes: [change(2)],
    }));
    await expect(refused).rejects.toThrow("the bus refused");
    expect(seen).toEqual([[1]]);
    expect(await seqsOn(betterSqlite3Driver(client), "notes")).toEqual([1]);
  });
});

describe("a Drizzle database seen by the change log and its hooks as a SqlDriver", () => {
  const databases = [
    ["SQLite", () => ({ db: drizzleSqlite(new Database(":memory:")), close: async () => {} })],
    [
      "PGlite",
      () => {
        const client = new PGlite();
        return { db: drizzlePglite(client), close: () => client.close() };
      },
    ],
  ] as const;

  for (const [name, open] of databases) {
    it(`binds each value where the statement's parts put it, a '?' or '$1' in its text left as text (${name})`, async () => {
      const { db, close } = open();
      try {
        const answers: unknown[] = [];
        const feed = changeFeed({
          broker: hookBroker(async (tx) => {
            answers.push(
              await tx.queryParts!({ text: ["SELECT '?' AS q, '$1' AS d, CAST(", " AS INTEGER) AS v"], params: [7] }),
            );
            // Text cannot say where a value goes without being read again: a statement with values comes in parts.
            await expect(tx.query("SELECT CAST(? AS INTEGER) AS v", [7])).rejects.toThrow(TypeError);
          }),
        });
        await recordedWrite(drizzleLiveStorage(feed, db, "notes"), async () => ({
          result: null,
          changes: [change(1)],
        }));
        expect(answers).toEqual([[{ q: "?", d: "$1", v: 7 }]]);
      } finally {
        await close();
      }
    });
  }
});

describe("PostgreSQL's notification of a write (PGlite, which listens in process)", () => {
  /** The payloads PGlite delivers on CHANGES_CHANNEL from now on. */
  async function notices(db: PGlite): Promise<string[]> {
    const heard: string[] = [];
    await db.listen(CHANGES_CHANNEL, (payload) => heard.push(payload));
    return heard;
  }

  it("is sent by a live write whose driver cannot listen, at its commit, and never by a recording rolled back (SQL)", async () => {
    const db = new PGlite();
    try {
      const heard = await notices(db);
      const live = sqlLiveStorage(changeFeed(), pgliteDriver(db), "tasks");
      await expect(
        recordedWrite(live, async () => {
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      await expect(
        pgliteDriver(db).transaction!(async (tx) => {
          await new SqlChangeLog().record(tx, "rolled-back", [change(1)]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      // Delivered in commit order: a notice of the rolled back ones would come before this one.
      await recordedWrite(live, async () => ({ result: null, changes: [change(1)] }));
      await eventually(() => heard.length > 0);
      expect(heard).toEqual(["tasks"]);
    } finally {
      await db.close();
    }
  });

  it("is sent by a live write through Drizzle on the same database", async () => {
    const db = new PGlite();
    try {
      const heard = await notices(db);
      await recordedWrite(drizzleLiveStorage(changeFeed(), drizzlePglite(db), "notes"), async () => ({
        result: null,
        changes: [change(1)],
      }));
      await eventually(() => heard.length > 0);
      expect(heard).toEqual(["notes"]);
    } finally {
      await db.close();
    }
  });

  it("is sent by a change recorded by hand with a SqlChangeLog, unless the log is made with recorded: null", async () => {
    const db = new PGlite();
    try {
      const heard = await notices(db);
      const driver = pgliteDriver(db);
      const quiet = new SqlChangeLog({ recorded: null });
      await quiet.ready(driver);
      await driver.transaction!((tx) => quiet.record(tx, "quiet", [change(1)]));
      await driver.transaction!((tx) => new SqlChangeLog().record(tx, "by-hand", [change(1)]));
      await eventually(() => heard.length > 0);
      expect(heard).toEqual(["by-hand"]);
    } finally {
      await db.close();
    }
  });
});
