import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  betterSqlite3Driver,
  type ChangeFeedOptions,
  type ChangeToRecord,
  changeFeed,
  recordedWrite,
  type SqlDriver,
  sqlLiveStorage,
} from "../../src";
import { type ListenerView, listen } from "../../src/live/listen";
import { CHANGES_TABLE } from "../../src/sql/change-log";
import { listenFromNow } from "./from-now";

// What each listener of a live collection is sent, on a real SQLite change log, when the log is slow,
// trimmed or failing under it: every change it may see once, in order, and a lag or an end that always
// says where to go on from.

/** The project a change's row belongs to; listeners of project 1 see only its rows. */
type Row = { n: number; project: number };

/** A read of the change log: a page of changes, or where the log stands. */
type LogRead = "page" | "bounds";

/**
 * When a held read waits: before it reaches the database (so it finds what commits meanwhile), or
 * after (its answer comes late, without what committed meanwhile).
 */
type HoldWhen = "before" | "after";

interface Hold {
  when: HoldWhen;
  reached(): void;
  released: Promise<void>;
}

/**
 * A collection on an in-memory SQLite database whose reads of the log can be held (a slow database) or
 * made to fail (one that went away), with its pages counted; woken by a broker of the app's that says
 * how many watches it holds, wakes on each commit unless `wakeOnCommit` is false (then `wake()` does),
 * and fails to stop a watch when `stopFails` is set.
 */
function slowLog(feedOptions: ChangeFeedOptions = {}, { wakeOnCommit = true } = {}) {
  const driver = betterSqlite3Driver(new Database(":memory:"));
  const reads = { pages: 0, failing: false };
  const held: Partial<Record<LogRead, Hold>> = {};
  const served: SqlDriver = {
    ...driver,
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      if (!sql.includes(CHANGES_TABLE)) return driver.query<T>(sql, params);
      const read: LogRead = sql.includes("ORDER BY") ? "page" : "bounds";
      const hold = held[read];
      delete held[read];
      hold?.reached();
      if (hold?.when === "before") await hold.released;
      if (reads.failing) throw new Error("the database went away");
      const answer = await driver.query<T>(sql, params);
      if (hold?.when === "after") await hold.released;
      if (read === "page") reads.pages++;
      return answer;
    },
  };
  const wakes = new Set<() => void>();
  const broker = {
    watching: 0,
    stopFails: false,
    async watch(_collection: string, wake: () => void) {
      const entry = () => wake();
      wakes.add(entry);
      broker.watching++;
      return async () => {
        wakes.delete(entry);
        broker.watching--;
        if (broker.stopFails) throw new Error("the broker went away");
      };
    },
    committed() {
      if (wakeOnCommit) wakeAll();
    },
  };
  const wakeAll = () => {
    for (const wake of [...wakes]) wake();
  };
  const live = sqlLiveStorage(changeFeed({ ...feedOptions, broker }), served, "rows");
  let written = 0;
  return {
    live,
    driver,
    reads,
    broker,
    wake: wakeAll,
    /** Holds the next read of the log's pages (or of its bounds): `reached` once it waits, until `release()`. */
    holdNext(read: LogRead, when: HoldWhen = "before"): { reached: Promise<void>; release: () => void } {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => {
        reach = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const hold: Hold = { when, reached: reach, released };
      held[read] = hold;
      // A hold no read reached is taken back, so it never catches a later read.
      return {
        reached,
        release: () => {
          if (held[read] === hold) delete held[read];
          release();
        },
      };
    },
    /** One transaction recording a created row for each of `projects`, in order. */
    async write(...projects: number[]): Promise<void> {
      const changes: ChangeToRecord[] = projects.map((project) => ({
        kind: "created",
        row: { n: ++written, project },
        before: null,
      }));
      await recordedWrite(live, async () => ({ result: null, changes }));
    },
    /** Drops all but the newest `count` changes, as the periodic sweep does. */
    trim(count: number): Promise<void> {
      return live.source.log.trim(driver, "rows", { count, maxAgeMs: Number.POSITIVE_INFINITY });
    },
  };
}

/** A listener's items as text: the changes it may see (of `project`, or all), and its notices. */
function viewOf(project?: number): ListenerView<string> {
  return {
    select: (change) =>
      project === undefined || (change.row as Row).project === project ? `change ${change.seq}` : null,
    reset: () => "reset",
    lagged: (resumeAfter) => `lagged after ${resumeAfter}`,
    reconnect: (resumeAfter) => `reconnect after ${resumeAfter}`,
  };
}

/** The next `count` items of `events`, heartbeats left out. */
async function next(events: AsyncIterator<unknown>, count: number): Promise<unknown[]> {
  const taken: unknown[] = [];
  while (taken.length < count) {
    const { done, value } = await events.next();
    if (done) break;
    if (typeof value === "string") taken.push(value);
  }
  return taken;
}

/** The items of `events` up to `last`, or up to its end: a listener sent too few ends the wait as one sent `last`. */
async function until(events: AsyncIterator<unknown>, last: string): Promise<unknown[]> {
  const taken: unknown[] = [];
  while (taken.at(-1) !== last) {
    const { done, value } = await events.next();
    if (done) break;
    if (typeof value === "string") taken.push(value);
  }
  return taken;
}

/** The next item of `events`, or "quiet" when a heartbeat comes first (nothing was sent for `heartbeatMs`). */
async function nextOrQuiet(events: AsyncIterator<unknown>): Promise<unknown> {
  const { value } = await events.next();
  return typeof value === "string" ? value : "quiet";
}

const ones = (count: number) => Array.from({ length: count }, () => 1);

const changes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => `change ${from + n}`);

describe("a listener catching up after its Last-Event-ID", () => {
  it("is sent a change written while it reads the log once, though both its read and the collection's reader find it", async () => {
    const { live, write, holdNext } = slowLog();
    await write(1, 1, 1);
    const replaying = await listen(live.source, viewOf(), { after: 0 });
    const watching = await listenFromNow(live.source, viewOf());
    const { release } = holdNext("page");
    const replayed = replaying.next();
    // Change 4 commits while the replay's read waits, so the read finds it, and the reader offers it too.
    await write(1);
    expect(await next(watching, 1)).toEqual(["change 4"]);
    release();
    await write(1);
    const heard = [(await replayed).value, ...(await until(replaying, "change 5"))];
    await Promise.all([replaying.return?.(), watching.return?.()]);
    expect(heard).toEqual(changes(1, 5));
  });

  it("is told to list again when the log is trimmed past it between two pages, and goes on from the oldest change kept", async () => {
    const { live, write, trim } = slowLog({ bufferSize: 5 });
    await write(...ones(20));
    const events = await listen(live.source, viewOf(), { after: 0 });
    // Pages are no larger than the buffer: the first holds changes 1 to 5.
    const firstPage = await next(events, 5);
    await trim(5);
    const rest = await until(events, "change 20");
    await events.return?.();
    expect([...firstPage, ...rest]).toEqual([...changes(1, 5), "reset", ...changes(16, 20)]);
  });

  it("makes no read of the log for a client that went away while its read waited its turn", async () => {
    const { live, reads, write, holdNext } = slowLog({ replay: { concurrency: 1 } });
    await write(1, 1, 1);
    const first = await listen(live.source, viewOf(), { after: 0 });
    const second = await listen(live.source, viewOf(), { after: 0 });
    const { release } = holdNext("page");
    // The first replay's read holds the one turn; the second's waits for it, and its client goes.
    const firstPage = first.next();
    const secondPage = second.next();
    await second.return?.();
    release();
    expect(await firstPage).toEqual({ done: false, value: "change 1" });
    expect(await secondPage).toEqual({ done: true, value: undefined });
    await first.return?.();
    expect(reads.pages).toBe(1);
  });
});

describe("a listener catching up, while its read runs", () => {
  it("reads on when more changes come than its buffer holds, rather than trusting those it kept", async () => {
    const { live, write, holdNext } = slowLog({ bufferSize: 3 });
    // At the log's head: its first read finds nothing, and answers after five changes were offered to it.
    const events = await listen(live.source, viewOf(), { after: 0 });
    const { reached, release } = holdNext("page", "after");
    const first = events.next();
    await reached;
    await write(1, 1, 1, 1, 1);
    release();
    await write(1);
    const heard = [(await first).value, ...(await until(events, "change 6"))];
    await events.return?.();
    expect(heard).toEqual(changes(1, 6));
  });

  it("goes live with the changes offered during its last read when they fit its buffer, making no read more", async () => {
    const { live, reads, write, holdNext } = slowLog();
    await write(1);
    const events = await listen(live.source, viewOf(), { after: 0 });
    const watching = await listenFromNow(live.source, viewOf());
    // Its page of change 1 answers late; the reader reads change 2 meanwhile, and offers it to both.
    const { reached, release } = holdNext("page", "after");
    const first = events.next();
    await reached;
    await write(1);
    await next(watching, 1);
    release();
    const heard = [(await first).value, ...(await next(events, 1))];
    await Promise.all([events.return?.(), watching.return?.()]);
    expect(heard).toEqual(changes(1, 2));
    // Its own page and the reader's.
    expect(reads.pages).toBe(2);
  });

  it("reads on rather than lag when what it read and what was offered meanwhile fit its buffer only apart", async () => {
    const { live, write, holdNext } = slowLog({ bufferSize: 3 });
    await write(1, 1);
    const events = await listen(live.source, viewOf(), { after: 0 });
    const watching = await listenFromNow(live.source, viewOf());
    // Its page of changes 1 and 2 answers late; changes 3 and 4 are offered meanwhile: four in all.
    const { reached, release } = holdNext("page", "after");
    const first = events.next();
    await reached;
    await write(1, 1);
    await next(watching, 2);
    release();
    const heard = [(await first).value, ...(await until(events, "change 4"))];
    await Promise.all([events.return?.(), watching.return?.()]);
    expect(heard).toEqual(changes(1, 4));
  });

  it("ends with the failure when its read of the log fails", async () => {
    const { live, reads, write } = slowLog();
    await write(1, 1);
    const events = await listen(live.source, viewOf(), { after: 0 });
    reads.failing = true;
    await expect(events.next()).rejects.toThrow("the database went away");
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("answers a next() its client left waiting with the end of the stream", async () => {
    const { live } = slowLog();
    const events = await listenFromNow(live.source, viewOf());
    const pending = events.next();
    await events.return?.();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it("ends quietly when its client left before the read failed", async () => {
    const { live, reads, write, holdNext } = slowLog();
    await write(1, 1);
    const events = await listen(live.source, viewOf(), { after: 0 });
    const { reached, release } = holdNext("page");
    const pending = events.next();
    await reached;
    await events.return?.();
    reads.failing = true;
    release();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});

describe("a listener that reads slower than changes come", () => {
  it("resumes after the last change it was sent, not after a later one it had nothing to see of, so a reconnect misses nothing", async () => {
    const { live, write } = slowLog({ bufferSize: 3 });
    const events = await listenFromNow(live.source, viewOf(1));
    const everything = await listenFromNow(live.source, viewOf());
    await write(1);
    expect(await next(events, 1)).toEqual(["change 1"]);
    // Changes 2 and 3 wait in its queue when change 4 of another project comes, then 5 and 6 overflow it.
    for (const project of [1, 1, 2, 1, 1]) await write(project);
    await next(everything, 6);
    await everything.return?.();
    expect(await next(events, 2)).toEqual(["lagged after 1"]);
    const resumed = await listen(live.source, viewOf(1), { after: 1 });
    const replayed = await until(resumed, "change 6");
    await resumed.return?.();
    expect(replayed).toEqual(["change 2", "change 3", "change 5", "change 6"]);
  });

  it("that sees few of the changes resumes after those it had nothing to see of, within the replay's reach", async () => {
    const { live, write } = slowLog({ bufferSize: 3, replay: { maxChanges: 10 } });
    const events = await listenFromNow(live.source, viewOf(1));
    const everything = await listenFromNow(live.source, viewOf());
    // Twenty changes of another project, then four of its own at once: more than its buffer.
    await write(...ones(20).map(() => 2));
    await write(1, 1, 1, 1);
    await next(everything, 24);
    await everything.return?.();
    expect(await next(events, 2)).toEqual(["lagged after 20"]);
    const resumed = await listen(live.source, viewOf(1), { after: 20 });
    const replayed = await until(resumed, "change 24");
    await resumed.return?.();
    expect(replayed).toEqual(changes(21, 24));
  });
});

describe("a listener whose collection's reads of the log fail", () => {
  it("ends with the failure, and no reconnect notice, even when its lifetime passes before its client reads", async () => {
    const { live, reads, write } = slowLog({ lifetimeMs: 100 });
    const events = await listenFromNow(live.source, viewOf());
    const waiting = await listenFromNow(live.source, viewOf());
    const failed = waiting.next();
    reads.failing = true;
    await write(1);
    await expect(failed).rejects.toThrow("the database went away");
    // Longer than any stream's lifetime: its timer has fired by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(events.next()).rejects.toThrow("the database went away");
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("that is connecting is sent the failure, not a notice to list again, when the reads fail before it knows where it starts", async () => {
    const { live, reads, write, holdNext } = slowLog();
    const waiting = await listenFromNow(live.source, viewOf());
    const failed = waiting.next();
    // Its Last-Event-ID is past the log's newest, so it would start with a reset, once the bounds read returns.
    const { reached, release } = holdNext("bounds", "after");
    const connecting = listen(live.source, viewOf(), { after: 99 });
    await reached;
    reads.failing = true;
    await write(1);
    await expect(failed).rejects.toThrow("the database went away");
    release();
    const events = await connecting;
    await expect(events.next()).rejects.toThrow("the database went away");
  });
});

describe("a listener's Last-Event-ID", () => {
  it("replays from just before the oldest change the log keeps, and is answered reset one further back", async () => {
    const { live, write, trim } = slowLog();
    await write(...ones(20));
    await trim(5);
    const kept = await listen(live.source, viewOf(), { after: 15 });
    const gone = await listen(live.source, viewOf(), { after: 14 });
    const [first, reset] = [await next(kept, 1), await next(gone, 1)];
    await Promise.all([kept.return?.(), gone.return?.()]);
    expect(first).toEqual(["change 16"]);
    expect(reset).toEqual(["reset"]);
  });

  it("is followed, once the catch-up has read past changes the listener may not see, by the place it went past", async () => {
    const { live, write } = slowLog({ heartbeatMs: 60_000 });
    await write(1, 1, 1);
    // A listener of project 2 back after change 0: the three changes since are project 1's.
    const events = await listen(live.source, viewOf(2), { after: 0 });
    const quiet = new Promise((resolve) => setTimeout(() => resolve("nothing within a second"), 1000));
    expect(await Promise.race([events.next().then(({ value }) => value), quiet])).toEqual({ heartbeat: true, id: "3" });
    await events.return?.();
  });

  it("is answered reset before the place it goes on from: a client cut off between the two still hears it must list again", async () => {
    const { live, write } = slowLog();
    await write(...ones(3));
    const events = await listen(live.source, viewOf(), { after: 99 });
    const items = [(await events.next()).value, (await events.next()).value];
    await events.return?.();
    expect(items).toEqual(["reset", { heartbeat: true, id: "3" }]);
  });
});

describe("a collection's reader", () => {
  it("tells every live listener to list again when the log was trimmed past it, then sends what was kept", async () => {
    // A broker that wakes late (a slow bus): the log is written and swept before the reader reads.
    const { live, write, trim, wake } = slowLog({}, { wakeOnCommit: false });
    const events = await listenFromNow(live.source, viewOf());
    // At the log's head, so it catches up from there; it reads nothing before its client asks.
    const catchingUp = await listen(live.source, viewOf(), { after: 0 });
    await write(...ones(20));
    await trim(5);
    wake();
    const heard = await until(events, "change 20");
    // The listener catching up finds the trim in its own read: one reset, not one more from the reader.
    const caughtUp = await until(catchingUp, "change 20");
    await Promise.all([events.return?.(), catchingUp.return?.()]);
    expect(heard).toEqual(["reset", ...changes(16, 20)]);
    expect(caughtUp).toEqual(["reset", ...changes(16, 20)]);
  });

  it("sends a change committed while it reads where the log stands without waiting for the next write", async () => {
    const { live, write, holdNext } = slowLog({ heartbeatMs: 500 });
    // The first listener starts the reader, whose read of the log's head answers late.
    const { reached, release } = holdNext("bounds", "after");
    const listening = listen(live.source, viewOf());
    await reached;
    await write(1);
    release();
    const events = await listening;
    // Its place first: the head as read, before change 1 was offered.
    expect((await events.next()).value).toMatchObject({ heartbeat: true, id: "0" });
    const heard = await nextOrQuiet(events);
    await events.return?.();
    expect(heard).toBe("change 1");
  });

  it("sends a change committed while it reads a page without waiting for the next write, reading once more after it", async () => {
    const { live, reads, write, holdNext } = slowLog({ heartbeatMs: 500 });
    const events = await listenFromNow(live.source, viewOf());
    // The page with change 1 answers late; change 2 commits meanwhile.
    const { reached, release } = holdNext("page", "after");
    await write(1);
    await reached;
    await write(1);
    release();
    const heard = [await nextOrQuiet(events), await nextOrQuiet(events)];
    // A listener from now starts after change 2, whichever read offered it last.
    const later = await listenFromNow(live.source, viewOf());
    await write(1);
    const laterHeard = await nextOrQuiet(later);
    await Promise.all([events.return?.(), later.return?.()]);
    expect(heard).toEqual(["change 1", "change 2"]);
    expect(laterHeard).toBe("change 3");
    // One read per wake that came while none ran: the late page, the one read after it, change 3's.
    expect(reads.pages).toBe(3);
  });

  it("reads no more once its last listener has left, though a wake came during its last read", async () => {
    const { live, reads, write, holdNext } = slowLog();
    const events = await listenFromNow(live.source, viewOf());
    // The page with change 1 answers late; change 2 commits meanwhile, then the only listener goes.
    const { reached, release } = holdNext("page", "after");
    await write(1);
    await reached;
    await write(1);
    await events.return?.();
    release();
    // Long enough for a read asked for then to have run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads.pages).toBe(1);
  });

  it("sends nothing for a wake that finds the log as it was, and the next change as ever", async () => {
    const { live, write, wake } = slowLog({ heartbeatMs: 500 });
    const events = await listenFromNow(live.source, viewOf());
    wake();
    await write(1);
    const heard = await nextOrQuiet(events);
    await events.return?.();
    expect(heard).toBe("change 1");
  });

  it("stops watching the broker with its last listener, one that could not start included", async () => {
    const { live, reads, broker } = slowLog();
    const staying = await listenFromNow(live.source, viewOf());
    reads.failing = true;
    await expect(listen(live.source, viewOf(), { after: 0 })).rejects.toThrow("the database went away");
    reads.failing = false;
    expect(broker.watching).toBe(1);
    await staying.return?.();
    expect(broker.watching).toBe(0);
  });

  it("refuses its first listener while the database is down, keeps no watch, and serves the next once it is back", async () => {
    const { live, reads, broker, write } = slowLog();
    reads.failing = true;
    await expect(listen(live.source, viewOf())).rejects.toThrow("the database went away");
    expect(broker.watching).toBe(0);
    reads.failing = false;
    const events = await listenFromNow(live.source, viewOf());
    await write(1);
    const heard = await next(events, 1);
    await events.return?.();
    expect(heard).toEqual(["change 1"]);
    expect(broker.watching).toBe(0);
  });

  it("lets a listener's client leave though the broker fails to stop watching", async () => {
    const { live, broker } = slowLog();
    broker.stopFails = true;
    const events = await listenFromNow(live.source, viewOf());
    expect(await events.return?.()).toEqual({ done: true, value: undefined });
    expect(broker.watching).toBe(0);
  });
});

describe("a listener's lifetime", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("ends its stream with reconnect between 80 % and 100 % of the feed's lifetimeMs, drawn for each stream", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { live } = slowLog({ lifetimeMs: 1000 });
    // The draw's two ends: the first stream's lifetime is 800 ms, the second's just under 1,000.
    vi.spyOn(Math, "random").mockReturnValueOnce(0).mockReturnValueOnce(0.999);
    const shortest = await listenFromNow(live.source, viewOf());
    const longest = await listenFromNow(live.source, viewOf());
    const ended: string[] = [];
    void shortest.next().then(({ value }) => ended.push(`shortest: ${value}`));
    void longest.next().then(({ value }) => ended.push(`longest: ${value}`));
    await vi.advanceTimersByTimeAsync(799);
    expect(ended).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ended).toEqual(["shortest: reconnect after 0"]);
    await vi.advanceTimersByTimeAsync(198);
    expect(ended).toEqual(["shortest: reconnect after 0"]);
    await vi.advanceTimersByTimeAsync(2);
    expect(ended).toEqual(["shortest: reconnect after 0", "longest: reconnect after 0"]);
  });

  it("does not keep a Node process running while its stream is open", async () => {
    const { live } = slowLog();
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
    const before = timers();
    const events = await listenFromNow(live.source, viewOf());
    const open = timers();
    await events.return?.();
    expect(open).toBe(before);
  });
});
