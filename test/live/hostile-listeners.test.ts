import { afterAll, describe, expect, it } from "vitest";
import { recordedWrite, type SqlDriver, sqlLiveStorage } from "../../src";
import { closeLiveApps, create, engines, freshApp, type LiveEvent, take } from "./http-app";

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
