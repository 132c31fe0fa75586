import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollingBroker } from "../../src/live/polling-broker";
import type { ChangeLog, ChangeToRecord, LogBounds, RecordedChange } from "../../src/live/types";
import { CHANGES_TABLE, SqlChangeLog, type SqlDriver } from "../../src/sql";
import type { EngineUnderTest } from "./fixtures";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, checking every 10 ms, for at most `timeoutMs`; answers whether it held. */
export async function eventually(done: () => boolean, timeoutMs = 5000): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < timeoutMs; await sleep(10)) if (done()) return true;
  return done();
}

const created = (id: number): ChangeToRecord => ({ kind: "created", row: { id, name: `n${id}` }, before: null });

/** How the log's tables hold a collection name it stores as its SHA-256. */
const hashedName = (collection: string) => `sha256:${createHash("sha256").update(collection).digest("hex")}`;

/**
 * The change log's suite: every engine must give the same answers, and keep seqs in commit order
 * under concurrent writers (`writers` at once; 1 on a single connection, where they queue).
 *
 * @example
 * describeChangeLogSuite({ name: "pg", family: "postgres", connect: async () => ({ driver, close }) })
 */
export function describeChangeLogSuite(engine: EngineUnderTest): void {
  describe.skipIf(Boolean(engine.skipReason))(`SqlChangeLog on ${engine.name}`, () => {
    // The PostgreSQL and MariaDB test databases are shared: every collection here is this run's own.
    const prefix = `cl-${randomUUID().slice(0, 8)}`;
    let counter = 0;
    const fresh = (label: string) => `${prefix}-${label}-${++counter}`;
    const log = new SqlChangeLog();
    let driver: SqlDriver;
    let close: () => Promise<void>;

    const record = (collection: string, changes: ChangeToRecord[]) =>
      driver.transaction!((tx) => log.record(tx, collection, changes));
    const seqs = (changes: RecordedChange[]) => changes.map((change) => change.seq);
    // Collections stored as their SHA-256, which the prefix's LIKE cannot find to delete.
    const hashedCollections: string[] = [];

    beforeAll(async () => {
      ({ driver, close } = await engine.connect());
      await log.ready(driver);
    });

    afterAll(async () => {
      if (!driver) return;
      const q = driver.dialect.quote;
      for (const table of [CHANGES_TABLE, "specroute_change_heads"]) {
        await driver.execute(`DELETE FROM ${q(table)} WHERE ${q("collection")} LIKE ${driver.dialect.placeholder(1)}`, [
          `${prefix}-%`,
        ]);
        for (const hashed of hashedCollections) {
          await driver.execute(`DELETE FROM ${q(table)} WHERE ${q("collection")} = ${driver.dialect.placeholder(1)}`, [
            hashed,
          ]);
        }
      }
      await close();
    });

    it("records changes with consecutive seqs and reads them back oldest first, through JSON", async () => {
      const collection = fresh("roundtrip");
      const before = Date.now();
      await driver.transaction!(async (tx) => {
        await log.record(tx, collection, [
          {
            kind: "created",
            row: { id: 1, big: 9007199254740993n, when: new Date("2026-01-02T03:04:05.006Z"), tags: ["a"] },
            before: null,
          },
          { kind: "updated", row: { id: 1, name: "b", note: null }, before: { id: 1, name: "a", note: null } },
        ]);
        await log.record(tx, collection, [{ kind: "deleted", row: { id: 1, name: "b" }, before: null }]);
      });
      const changes = await log.readAfter(driver, collection, 0, 10);
      expect(changes.map(({ at: _at, ...rest }) => rest)).toEqual([
        {
          seq: 1,
          kind: "created",
          row: { id: 1, big: "9007199254740993", when: "2026-01-02T03:04:05.006Z", tags: ["a"] },
          before: null,
        },
        { seq: 2, kind: "updated", row: { id: 1, name: "b", note: null }, before: { id: 1, name: "a", note: null } },
        { seq: 3, kind: "deleted", row: { id: 1, name: "b" }, before: null },
      ]);
      for (const change of changes) {
        expect(change.at).toBeGreaterThanOrEqual(before);
        expect(change.at).toBeLessThanOrEqual(Date.now());
      }
    });

    it("records a batch larger than one INSERT takes (250 changes) with consecutive seqs, in its order", async () => {
      const collection = fresh("batch");
      await record(collection, [created(1)]);
      const batch = Array.from({ length: 250 }, (_, index) => created(index + 2));
      await record(collection, batch);
      const changes = await log.readAfter(driver, collection, 0, 300);
      expect(seqs(changes)).toEqual(Array.from({ length: 251 }, (_, index) => index + 1));
      expect(changes.map((change) => change.row.id)).toEqual(Array.from({ length: 251 }, (_, index) => index + 1));
    });

    it("reads after a seq, at most `limit`", async () => {
      const collection = fresh("paging");
      await record(collection, [1, 2, 3, 4, 5].map(created));
      expect(seqs(await log.readAfter(driver, collection, 1, 2))).toEqual([2, 3]);
      expect(seqs(await log.readAfter(driver, collection, 3, 100))).toEqual([4, 5]);
      expect(await log.readAfter(driver, collection, 5, 100)).toEqual([]);
      expect(await log.readAfter(driver, collection, 0, 0)).toEqual([]);
      await expect(log.readAfter(driver, collection, -1, 10)).rejects.toThrow(RangeError);
    });

    it("answers bounds 0/0 for a collection that recorded nothing, else the oldest held and the head", async () => {
      const collection = fresh("bounds");
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 0, newest: 0 });
      await record(collection, [created(1)]);
      await record(collection, [created(2), created(3)]);
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 1, newest: 3 });
    });

    it("answers an oldest above the head when every change was removed by other means, so a reader knows it missed them", async () => {
      const collection = fresh("emptied");
      await record(collection, [created(1), created(2)]);
      const q = driver.dialect.quote;
      await driver.execute(
        `DELETE FROM ${q(CHANGES_TABLE)} WHERE ${q("collection")} = ${driver.dialect.placeholder(1)}`,
        [collection],
      );
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 3, newest: 2 });
    });

    it("keeps one log per collection name, which is bound as data (case, quotes and all)", async () => {
      const name = fresh("Names");
      const others = [name.toLowerCase(), `${name}'; DROP TABLE ${CHANGES_TABLE}; --`, `${name}"\`\\`];
      await record(name, [created(1), created(2)]);
      for (const other of others) await record(other, [created(9)]);
      expect(seqs(await log.readAfter(driver, name, 0, 10))).toEqual([1, 2]);
      for (const other of others) {
        expect(await log.readAfter(driver, other, 0, 10)).toMatchObject([{ seq: 1, row: { id: 9 } }]);
      }
    });

    it("keeps apart names that differ by trailing spaces, long names, and a name spelled as another's hash (MariaDB's PAD SPACE key merges none)", async () => {
      const room = fresh("room");
      const long = `${room}-${"x".repeat(300)}`;
      const others = [`${room} `, `${room}  `, long, `${long}y`, hashedName(`${room} `)];
      hashedCollections.push(...others.map(hashedName));
      await record(room, [created(1), created(2)]);
      for (const [index, other] of others.entries()) await record(other, [created(10 + index)]);
      expect(seqs(await log.readAfter(driver, room, 0, 10))).toEqual([1, 2]);
      expect(await log.bounds(driver, room)).toEqual({ oldest: 1, newest: 2 });
      for (const [index, other] of others.entries()) {
        expect(await log.readAfter(driver, other, 0, 10)).toMatchObject([{ seq: 1, row: { id: 10 + index } }]);
        expect(await log.bounds(driver, other)).toEqual({ oldest: 1, newest: 1 });
      }
      // Trimming one trims its own changes only.
      await record(`${room} `, [created(20)]);
      await log.trim(driver, `${room} `, { count: 0, maxAgeMs: 0 });
      expect(seqs(await log.readAfter(driver, `${room} `, 0, 10))).toEqual([2]);
      expect(seqs(await log.readAfter(driver, room, 0, 10))).toEqual([1, 2]);
      // A name that needs no hash is stored as it is; the others as their SHA-256, whatever the engine.
      const q = driver.dialect.quote;
      const p = driver.dialect.placeholder;
      const names = [room, ...hashedCollections.slice(-others.length)];
      const stored = await driver.query<{ collection: string }>(
        `SELECT ${q("collection")} AS ${q("collection")} FROM ${q("specroute_change_heads")} WHERE ${q("collection")} IN (${names.map((_, index) => p(index + 1)).join(", ")})`,
        names,
      );
      expect(stored.map((line) => line.collection).sort()).toEqual([...names].sort());
    });

    it("records nothing when the transaction rolls back, and the next write takes the seq it would have", async () => {
      const collection = fresh("rollback");
      await expect(
        driver.transaction!(async (tx) => {
          await log.record(tx, collection, [created(1)]);
          throw new Error("the write failed");
        }),
      ).rejects.toThrow("the write failed");
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 0, newest: 0 });
      await record(collection, [created(2)]);
      await expect(
        driver.transaction!(async (tx) => {
          await log.record(tx, collection, [created(3), created(4)]);
          throw new Error("the write failed");
        }),
      ).rejects.toThrow();
      await record(collection, [created(5)]);
      expect(await log.readAfter(driver, collection, 0, 10)).toMatchObject([
        { seq: 1, row: { id: 2 } },
        { seq: 2, row: { id: 5 } },
      ]);
    });

    it("trims beyond the newest `count` and older than `maxAgeMs`, never the newest change", async () => {
      const collection = fresh("trim");
      await record(collection, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(created));
      await log.trim(driver, collection, { count: 7, maxAgeMs: Number.POSITIVE_INFINITY });
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 4, newest: 10 });
      // Ages are set back by hand: seqs 4..6 a minute old, the rest fresh.
      const q = driver.dialect.quote;
      const p = driver.dialect.placeholder;
      await driver.execute(
        `UPDATE ${q(CHANGES_TABLE)} SET ${q("at")} = ${q("at")} - 60000 WHERE ${q("collection")} = ${p(1)} AND ${q("seq")} <= ${p(2)}`,
        [collection, 6],
      );
      await log.trim(driver, collection, { count: 100, maxAgeMs: 30_000 });
      expect(seqs(await log.readAfter(driver, collection, 0, 100))).toEqual([7, 8, 9, 10]);
      await log.trim(driver, collection, { count: 0, maxAgeMs: 0 });
      expect(await log.bounds(driver, collection)).toEqual<LogBounds>({ oldest: 10, newest: 10 });
      await record(collection, [created(11)]);
      expect(seqs(await log.readAfter(driver, collection, 0, 100))).toEqual([10, 11]);
    });

    it("trims a collection that recorded nothing without failing, and refuses a negative count", async () => {
      await log.trim(driver, fresh("empty"), { count: 0, maxAgeMs: 0 });
      await expect(log.trim(driver, fresh("bad"), { count: -1, maxAgeMs: 0 })).rejects.toThrow(RangeError);
    });

    it("keeps seqs in commit order under concurrent writers: 1..N with no gap, never a lower seq after a higher", async () => {
      const collection = fresh("concurrent");
      const writers = 8;
      const perWriter = 50;
      let writing = true;
      const problems: string[] = [];
      // A reader that has seen seq n must find the next change it reads to be n + 1.
      const reader = (async () => {
        let last = 0;
        while (writing || last < writers * perWriter) {
          const changes = await log.readAfter(driver, collection, last, 1000);
          for (const change of changes) {
            if (change.seq !== last + 1) problems.push(`read seq ${change.seq} after ${last}`);
            last = change.seq;
          }
          if (!writing && changes.length === 0) break;
          await sleep(1);
        }
        return last;
      })();
      const write = async (writer: number) => {
        for (let n = 0; n < perWriter; n++) {
          await driver.transaction!(async (tx) => {
            await sleep(Math.random() * 2);
            await log.record(tx, collection, [created(writer * 1000 + n)]);
            // Commit later than the seq was taken: a seq not held until commit would commit out of order.
            await sleep(Math.random() * 2);
          });
        }
      };
      try {
        await Promise.all(Array.from({ length: writers }, (_, writer) => write(writer)));
      } finally {
        writing = false;
      }
      expect(await reader).toBe(writers * perWriter);
      expect(problems).toEqual([]);
      const all = await log.readAfter(driver, collection, 0, writers * perWriter + 10);
      expect(seqs(all)).toEqual(Array.from({ length: writers * perWriter }, (_, index) => index + 1));
      expect(new Set(all.map((change) => change.row.id)).size).toBe(writers * perWriter);
      expect(await log.bounds(driver, collection)).toEqual({ oldest: 1, newest: writers * perWriter });
    });

    describe("pollingBroker", () => {
      it("wakes a collection's watchers when its log grew, not before, and stops once unwatched", async () => {
        const collection = fresh("polling");
        const other = fresh("polling-other");
        let polls = 0;
        // The real log, its bounds counted: the broker's polls, to see its timer stop.
        const counted: ChangeLog<SqlDriver> = {
          lock: log.lock.bind(log),
          record: log.record.bind(log),
          readAfter: log.readAfter.bind(log),
          trim: log.trim.bind(log),
          bounds: (session, name) => {
            polls++;
            return log.bounds(session, name);
          },
        };
        const broker = pollingBroker(driver, counted, 20);
        await record(collection, [created(1)]);
        let wakes = 0;
        let secondWakes = 0;
        const stop = await broker.watch(collection, () => wakes++);
        const stopSecond = await broker.watch(collection, () => secondWakes++);
        await sleep(120);
        expect(wakes).toBe(0);
        await record(other, [created(1)]);
        await sleep(120);
        expect(wakes).toBe(0);
        await record(collection, [created(2)]);
        expect(await eventually(() => wakes === 1 && secondWakes === 1)).toBe(true);
        await stopSecond();
        await record(collection, [created(3)]);
        expect(await eventually(() => wakes === 2)).toBe(true);
        expect(secondWakes).toBe(1);
        await stop();
        const pollsWhenStopped = polls;
        await record(collection, [created(4)]);
        await sleep(150);
        expect(wakes).toBe(2);
        // One poll may have been under way when the last watcher left.
        expect(polls - pollsWhenStopped).toBeLessThanOrEqual(1);
      });

      it("wakes this process's watchers at once on committed", async () => {
        const collection = fresh("committed");
        const broker = pollingBroker(driver, log, 60_000);
        let wakes = 0;
        const stop = await broker.watch(collection, () => wakes++);
        await broker.committed(collection);
        await broker.committed(fresh("unwatched"));
        expect(wakes).toBe(1);
        await stop();
        await broker.committed(collection);
        expect(wakes).toBe(1);
      });
    });
  });
}
