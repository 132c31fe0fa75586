import { afterAll, describe, expect, it } from "vitest";
import { type ChangeFeed, type ChangeToRecord, recordedWrite, type SqlDriver, sqlLiveStorage } from "../../src";
import { CHANGES_TABLE } from "../../src/sql/change-log";
import { closeLiveApps, create, engines, freshApp, type LiveEvent, listen, take } from "./http-app";

// What a hostile or careless listener of a live collection can get, over real HTTP on every engine the
// environment has: content it may not see, a stream that outlives its credentials, more streams and
// replays than a process can hold.

afterAll(closeLiveApps);

/** The app's own write moving task `id` to project `to` with a new title, recorded with the row before it. */
async function moveTask(
  driver: SqlDriver,
  table: string,
  feed: Parameters<typeof sqlLiveStorage>[0],
  id: number,
  to: number,
  title: string,
) {
  const q = driver.dialect.quote;
  const p = driver.dialect.placeholder;
  const select = `SELECT id, ${q("projectId")}, title, done, version FROM ${table} WHERE id = ${p(1)}`;
  await recordedWrite(sqlLiveStorage(feed, driver, table), async (tx) => {
    const [before] = await tx.query<Record<string, unknown>>(select, [id]);
    await tx.execute(`UPDATE ${table} SET ${q("projectId")} = ${p(1)}, title = ${p(2)} WHERE id = ${p(3)}`, [
      to,
      title,
      id,
    ]);
    const [row] = await tx.query<Record<string, unknown>>(select, [id]);
    return { result: row, changes: [{ kind: "updated", row: row!, before: before! }] };
  });
}

/** A tenant's stream of `/tasks/changes` (before() narrows it to the tenant's project), after `lastEventId` when given. */
async function tenantStream(withKey: (key: string) => any, tenant: number, lastEventId?: string) {
  const answer = await withKey(`t${tenant}`).get("/tasks/changes", {
    ...(lastEventId === undefined ? {} : { header: { "Last-Event-ID": lastEventId } }),
  });
  if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
  return answer.data[Symbol.asyncIterator]() as AsyncIterator<LiveEvent>;
}

describe.each(engines)("a listener of a live collection on $name", (engine) => {
  it("is told of a row that leaves its tenant with the row as it could see it, never the other tenant's content, live and on replay", async () => {
    const { driver, table, writer, withKey, feed } = await freshApp(engine);
    const events = await tenantStream(withKey, 1);
    const id = await create(writer, 1, "A's note");
    await moveTask(driver, table, feed, id, 2, "B's secret plan");
    const live = await take(events, 2);
    await events.return?.();
    const left = { id, projectId: 1, title: "A's note", done: false, version: 1 };
    expect(live.map((event) => [event.event, event.data.object])).toEqual([
      ["created", left],
      ["deleted", left],
    ]);
    expect(JSON.stringify(live)).not.toContain("secret");

    // A reconnect from before the move replays it the same way.
    const replay = await tenantStream(withKey, 1, live[0]!.id);
    const [replayed] = await take(replay, 1);
    await replay.return?.();
    expect(replayed).toMatchObject({ event: "deleted", id: live[1]!.id, data: { object: left } });
    expect(JSON.stringify(replayed)).not.toContain("secret");

    // The tenant the row joined sees it whole, as created.
    const theirs = await tenantStream(withKey, 2, live[0]!.id);
    const [joined] = await take(theirs, 1);
    await theirs.return?.();
    expect(joined).toMatchObject({
      event: "created",
      data: { object: { id, projectId: 2, title: "B's secret plan" } },
    });
  });
});

/** The events left in a stream until it ends; fails if it is still open `withinMs` later. */
async function untilEnd(events: AsyncIterator<LiveEvent>, withinMs: number): Promise<LiveEvent[]> {
  const received: LiveEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = new Promise<"open">((resolve) => {
    timer = setTimeout(() => resolve("open"), withinMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([events.next(), open]);
      if (next === "open") {
        // Not awaited: the client's return() waits for the read the race left running.
        void events.return?.();
        throw new Error(`the stream was still open ${withinMs} ms later`);
      }
      if (next.done) return received;
      received.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** `count` task changes of project `projectId` recorded by the app's own write, in one transaction. */
async function recordChanges(driver: SqlDriver, table: string, feed: ChangeFeed, projectId: number, count: number) {
  const changes: ChangeToRecord[] = Array.from({ length: count }, (_, n) => ({
    kind: "created",
    row: { id: 100_000 + n, projectId, title: `recorded ${n}`, done: false, version: 1 },
    before: null,
  }));
  await recordedWrite(sqlLiveStorage(feed, driver, table), async () => ({ result: null, changes }));
}

/** A stream of `/projects/{projectId}/tasks/changes` opened by fetch, answered or refused. */
async function openStream(origin: string, key: string, path = "/projects/1/tasks/changes", lastEventId?: string) {
  const controller = new AbortController();
  const headers: Record<string, string> = {
    "x-key": key,
    ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
  };
  const response = await fetch(`${origin}${path}`, { headers, signal: controller.signal });
  return { response, close: () => controller.abort() };
}

/** Opens streams until one is answered 200 (a stream that ended frees its place once the server sees it go). */
async function openOnceFreed(origin: string, key: string, path?: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stream = await openStream(origin, key, path);
    if (stream.response.status === 200 || Date.now() > deadline) return stream;
    await stream.response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The engine's driver with its reads of the change log counted: how many run at once, at most. On SQLite
 * (synchronous) each first waits 20 ms, so reads overlap as they do on a networked engine.
 */
function countedReads(engine: { name: string }) {
  const counted = { running: 0, most: 0, done: 0, any: 0 };
  const wrap = (driver: SqlDriver): SqlDriver => ({
    ...driver,
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      if (sql.includes(CHANGES_TABLE)) counted.any++;
      if (!sql.includes(CHANGES_TABLE) || !sql.includes("ORDER BY")) return driver.query<T>(sql, params);
      counted.running++;
      counted.most = Math.max(counted.most, counted.running);
      try {
        if (engine.name.startsWith("SQLite")) await new Promise((resolve) => setTimeout(resolve, 20));
        return await driver.query<T>(sql, params);
      } finally {
        counted.running--;
        counted.done++;
      }
    },
  });
  return { counted, wrap };
}

describe.each(engines)("a live collection on $name under a listener flood", (engine) => {
  it("refuses with a 400, before its stream opens, a listener whose connection the runtime names no address for", async () => {
    const { router } = await freshApp(engine, { maxListeners: { perCaller: 1 } });
    // Bun's requestIP answers null for a request whose client is gone: no caller to count the listener against.
    const gone = { requestIP: () => null };
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        router.fetch(new Request("http://localhost/projects/1/tasks/changes", { headers: { "x-key": "r" } }), gone),
      ),
    );
    expect(answers.map((answer: Response) => answer.status)).toEqual([400, 400, 400]);
    expect(await answers[0]!.json()).toMatchObject({
      errors: [{ message: expect.stringMatching(/^The connection has no client address/) }],
    });
  });

  it("counts listeners whose address the runtime does not know in the process's bound only, never as one caller", async () => {
    const { router } = await freshApp(engine, { maxListeners: { perCaller: 1, perProcess: 3 } });
    // No socket and no requestIP: the address is unknown, which is not one shared caller any client could fill.
    const unknown = () =>
      router.fetch(new Request("http://localhost/projects/1/tasks/changes", { headers: { "x-key": "r" } }), {});
    const open: Response[] = [await unknown(), await unknown(), await unknown()];
    expect(open.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const past = await unknown();
    expect(past.status).toBe(429);
    await past.body?.cancel();
    for (const answer of open) await answer.body?.cancel();
  });

  it("ends a stream within its lifetime with the id to go on from, and a revoked key's reconnect gets 401", async () => {
    const revokedKeys = new Set<string>();
    const { writer, withKey, origin } = await freshApp(engine, { lifetimeMs: 500 }, { revokedKeys });
    const events = await tenantStream(withKey, 1);
    const valid = await tenantStream(withKey, 2);
    await create(writer, 1, "before the revocation");
    revokedKeys.add("t1");
    const received = await untilEnd(events, 10_000);
    // Whether the change came before the end or not, the last event says where to go on from.
    expect(received.at(-1)).toMatchObject({
      event: "reconnect",
      id: expect.stringMatching(/^\d+$/),
      data: { message: "This stream reached its lifetime: reconnect with Last-Event-ID" },
    });
    expect(received.slice(0, -1).map((event) => event.event)).toEqual(received.length === 2 ? ["created"] : []);
    const again = await openStream(origin, "t1", "/tasks/changes", received.at(-1)!.id);
    expect(again.response.status).toBe(401);
    await again.response.body?.cancel();
    // A key still valid reconnects from its stream's last id and misses nothing.
    const ended = (await untilEnd(valid, 10_000)).at(-1);
    expect(ended?.event).toBe("reconnect");
    await create(writer, 2, "after the reconnect");
    const resumed = await tenantStream(withKey, 2, ended!.id);
    const [next] = await take(resumed, 1);
    await resumed.return?.();
    expect(next).toMatchObject({ event: "created", data: { object: { projectId: 2, title: "after the reconnect" } } });
  });

  it("refuses a caller's listener past its bound with 429, and takes one again once a stream of the caller ends", async () => {
    const { origin } = await freshApp(engine, { maxListeners: { perCaller: 2 } });
    const first = await openStream(origin, "r");
    const second = await openStream(origin, "r");
    expect([first.response.status, second.response.status]).toEqual([200, 200]);
    const third = await openStream(origin, "r");
    expect(third.response.status).toBe(429);
    expect(await third.response.json()).toMatchObject({ success: false, errors: [{ code: expect.any(Number) }] });
    first.close();
    const fourth = await openOnceFreed(origin, "r");
    expect(fourth.response.status).toBe(200);
    second.close();
    fourth.close();
  });

  it("refuses any listener past the process's bound with 429, whoever the caller is", async () => {
    const { origin } = await freshApp(engine, { maxListeners: { perCaller: 2, perProcess: 3 } });
    const path = "/tasks/changes";
    const open = [await openStream(origin, "t1", path), await openStream(origin, "t1", path)];
    expect((await openStream(origin, "t1", path)).response.status).toBe(429);
    open.push(await openStream(origin, "t2", path));
    expect(open.map((stream) => stream.response.status)).toEqual([200, 200, 200]);
    const refused = await openStream(origin, "t3", path);
    expect(refused.response.status).toBe(429);
    open.shift()!.close();
    const freed = await openOnceFreed(origin, "t3", path);
    expect(freed.response.status).toBe(200);
    for (const stream of [...open, freed]) stream.close();
  });

  it("documents the 429 its changes route can answer", async () => {
    const { router } = await freshApp(engine);
    const doc = router.getGeneratedSchema("3.1") as any;
    expect(Object.keys(doc.paths["/projects/{projectId}/tasks/changes"].get.responses)).toContain("429");
  });

  it("runs a few catch-up reads at once however many streams replay, and answers an ordinary POST meanwhile", async () => {
    const { counted, wrap } = countedReads(engine);
    const { driver, table, feed, writer, origin } = await freshApp(
      engine,
      { maxListeners: { perCaller: 50 }, replay: { concurrency: 2, maxChanges: 5000 } },
      { wrap },
    );
    // 1,000 changes: five pages of 200 for each replay.
    await recordChanges(driver, table, feed, 1, 1000);
    const streams = await Promise.all(Array.from({ length: 20 }, () => openStream(origin, "r", undefined, "0")));
    expect(streams.map((stream) => stream.response.status)).toEqual(streams.map(() => 200));

    await create(writer, 1, "while the replays run");
    // The POST was answered while the streams' replays still had reads to make (20 × 5 pages).
    expect(counted.done).toBeLessThan(100);
    for (const stream of streams) {
      const text = await readUntil(stream.response, "while the replays run");
      stream.close();
      expect(text.match(/^event: created$/gm)).toHaveLength(1001);
    }
    // Two catch-up reads at most, beside the one read the collection's reader makes for the POST's change.
    expect(counted.most).toBeLessThanOrEqual(3);
  });

  it("opens a stream without Last-Event-ID with no read of the log of its own, so no replay's turn holds it back", async () => {
    const { counted, wrap } = countedReads(engine);
    const { origin, writer } = await freshApp(engine, {}, { wrap });
    // The first listener of a collection starts its reader, which reads where the log stands.
    const first = await openStream(origin, "r");
    const before = counted.any;
    const more = await Promise.all(Array.from({ length: 10 }, () => openStream(origin, "r")));
    expect(more.map((stream) => stream.response.status)).toEqual(more.map(() => 200));
    expect(counted.any).toBe(before);
    // Each still hears what is written after it opened.
    await create(writer, 1, "heard by all");
    for (const stream of [first, ...more]) {
      expect(await readUntil(stream.response, "heard by all")).toContain("event: created");
      stream.close();
    }
  });

  it("answers reset to a Last-Event-ID further back than the feed replays, and replays one within reach", async () => {
    const { driver, table, feed, reader } = await freshApp(engine, { replay: { maxChanges: 50 } });
    await recordChanges(driver, table, feed, 1, 100);
    const far = await listen(reader, 1, { lastEventId: "0" });
    const [reset] = await take(far, 1);
    await far.return?.();
    expect(reset?.event).toBe("reset");
    const near = await listen(reader, 1, { lastEventId: "60" });
    const [replayed] = await take(near, 1);
    await near.return?.();
    expect(replayed).toMatchObject({ event: "created", id: "61" });
    // The bound is exact: 50 changes back replay, 51 are too many.
    const first = async (lastEventId: string) => {
      const events = await listen(reader, 1, { lastEventId });
      const [event] = await take(events, 1);
      await events.return?.();
      return event;
    };
    expect(await first("50")).toMatchObject({ event: "created", id: "51" });
    expect((await first("49"))?.event).toBe("reset");
  });

  it("answers reset to a Last-Event-ID past the log's newest (forged, or another deployment's), then sends only what comes next", async () => {
    const { driver, table, feed, reader, writer } = await freshApp(engine);
    await recordChanges(driver, table, feed, 1, 3);
    const forged = await listen(reader, 1, { lastEventId: "4" });
    const atNewest = await listen(reader, 1, { lastEventId: "3" });
    await create(writer, 1, "the next change");
    const [reset, next] = await take(forged, 2);
    await forged.return?.();
    expect(reset?.event).toBe("reset");
    expect(next).toMatchObject({ event: "created", id: "4", data: { object: { title: "the next change" } } });
    // The id of the newest change is no reason to list again: the stream goes on from it.
    const [resumed] = await take(atNewest, 1);
    await atNewest.return?.();
    expect(resumed).toMatchObject({ event: "created", id: "4" });
  });

  it("sends a live listener a burst longer than a page of the log whole and in order", async () => {
    const { driver, table, feed, reader } = await freshApp(engine);
    const events = await listen(reader, 1);
    // 450 changes in one commit: the collection's reader reads them in pages of 200.
    await recordChanges(driver, table, feed, 1, 450);
    const heard = await take(events, 450);
    await events.return?.();
    expect(heard.map((event) => Number(event.id))).toEqual(Array.from({ length: 450 }, (_, n) => n + 1));
  });
});

/** A stream's text until it holds `marker`. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}
