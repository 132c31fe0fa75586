import { afterAll, describe, expect, it } from "vitest";
import { type ChangeToRecord, recordedWrite, sqlLiveStorage } from "../../src";
import { type Client, closeLiveApps, create, engines, freshApp, type LiveEvent } from "./http-app";

// A listener that falls behind (issue #43 item 5) over real HTTP: it is never left without the id to
// go on from. A client that follows the protocol (reconnect with the last id it received, a lag
// notice's included) gets every change exactly once.

afterAll(closeLiveApps);

/**
 * A client as EventSource behaves: it keeps the last id it received (starting from `lastEventId`) and
 * reconnects with it whenever a stream ends, until it has `count` changes (or `maxConnections` streams).
 */
async function follow(reader: Client, count: number, lastEventId?: string, maxConnections = 10) {
  const events: LiveEvent[] = [];
  let last = lastEventId;
  let connections = 0;
  const changes = () => events.filter((event) => ["created", "updated", "deleted"].includes(event.event));
  while (changes().length < count && connections < maxConnections) {
    connections++;
    const answer = await reader.get("/projects/:projectId/tasks/changes", {
      param: { projectId: 1 },
      ...(last === undefined ? {} : { header: { "Last-Event-ID": last } }),
    });
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    const stream = answer.data[Symbol.asyncIterator]() as AsyncIterator<LiveEvent>;
    while (changes().length < count) {
      const next = await stream.next();
      if (next.done) break;
      events.push(next.value);
      if (next.value.id !== undefined) last = next.value.id;
    }
    await stream.return?.();
  }
  return { events, changes: changes(), connections };
}

/** `count` created tasks of project 1 recorded in one transaction (the app's own batch), so they come at once. */
function burst(count: number, from: number): ChangeToRecord[] {
  return Array.from({ length: count }, (_, n) => ({
    kind: "created",
    row: { id: from + n, projectId: 1, title: `burst ${n}`, done: false, version: 1 },
    before: null,
  }));
}

describe.each(engines)("a listener that falls behind on $name", (engine) => {
  it("is told where to resume when it lags before reading anything, and gets every change once", async () => {
    const { driver, table, feed, reader } = await freshApp(engine, { bufferSize: 5 });
    const live = sqlLiveStorage(feed, driver, table);
    await recordedWrite(live, async () => ({ result: null, changes: burst(20, 1) }));
    // Twenty changes wait in the log before the listener reads its first.
    const { events, changes } = await follow(reader, 20, "0");
    for (const lagged of events.filter((event) => event.event === "lagged")) expect(lagged.id).toMatch(/^\d+$/);
    expect(changes.map((event) => Number(event.id))).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
  });

  it("is told where to resume when it lags after its first read, and gets every change once", async () => {
    const { driver, table, feed, reader, writer } = await freshApp(engine, { bufferSize: 5 });
    const live = sqlLiveStorage(feed, driver, table);
    const answer = await reader.get("/projects/:projectId/tasks/changes", { param: { projectId: 1 } });
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    const stream = answer.data[Symbol.asyncIterator]() as AsyncIterator<LiveEvent>;
    await create(writer, 1, "read first");
    const first = (await stream.next()).value as LiveEvent;
    expect(first).toMatchObject({ event: "created", id: "1" });
    // Twenty changes offered at once: more than the stream's buffer of five.
    await recordedWrite(live, async () => ({ result: null, changes: burst(20, 1000) }));
    const rest: LiveEvent[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value as LiveEvent);
    const lagged = rest.at(-1);
    expect(lagged).toMatchObject({
      event: "lagged",
      id: expect.stringMatching(/^\d+$/),
      data: { message: "This client read changes slower than they came: reconnect with Last-Event-ID" },
    });
    const resumed = await follow(reader, 20 - (rest.length - 1), lagged!.id);
    const ids = [first, ...rest.slice(0, -1), ...resumed.changes].map((event) => Number(event.id));
    expect(ids).toEqual(Array.from({ length: 21 }, (_, n) => n + 1));
  });
});
