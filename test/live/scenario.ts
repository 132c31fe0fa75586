// The reconnect scenario of a live collection over real HTTP, run against servers on PostgreSQL (4
// processes), SQLite (one process) and D1 (workerd): listeners spread over the servers, writers doing
// creates, updates and deletes across two projects. Each listener must receive exactly the changes its
// filter lets through, in the log's (commit) order, none lost and none twice, one of them after being
// cut off mid-run and reconnecting with Last-Event-ID.
import { expect } from "vitest";
import type { RecordedChange } from "../../src";
import { createClient } from "../../src/client";
import type { tasksApp } from "./tasks-app";

type Client = ReturnType<typeof createClient<ReturnType<typeof tasksApp>["router"]>>;
type Event = { event: string; id?: string; data: any };

export interface Scenario {
  /** The servers; listeners and writers are spread over them. */
  origins: string[];
  listeners: number;
  writers: number;
  /** Writes in all, shared by the writers. */
  writes: number;
  /** The collection's whole log once the writes are done, oldest first. */
  readLog(): Promise<RecordedChange[]>;
}

/** A listener: the events it received, kept until `stop()`; `cut()` drops its connection and reconnects from the stream's place. */
function listener(origin: string, projectId: number, done: boolean | undefined) {
  const client: Client = createClient(origin, { headers: { "x-key": "r" } });
  const received: Event[] = [];
  let controller = new AbortController();
  let stopped = false;
  let connections = 0;
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  // The stream's place: sent before its first event, so a cut before any change it may see loses none.
  let last: string | undefined;
  const run = async (): Promise<void> => {
    while (!stopped) {
      const answer = await client.get(
        "/projects/:projectId/tasks/changes",
        {
          param: { projectId },
          ...(done === undefined ? {} : { query: { done } }),
          ...(last === undefined ? {} : { header: { "Last-Event-ID": last } }),
        },
        { signal: controller.signal },
      );
      if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
      connections++;
      ready();
      try {
        for await (const event of answer.data) received.push(event as Event);
      } catch (error) {
        // A cut connection ends the loop; the listener reconnects unless it was stopped.
        if (!controller.signal.aborted) throw error;
      }
      last = answer.data.lastEventId;
      controller = new AbortController();
    }
  };
  const running = run();
  return {
    projectId,
    done,
    received,
    started,
    running,
    connections: () => connections,
    cut: () => controller.abort(),
    stop: () => {
      stopped = true;
      controller.abort();
    },
  };
}

/** What a listener of `projectId` (and `done`, when given) must be sent of each change, in the log's order. */
function expectedFor(log: RecordedChange[], projectId: number, done: boolean | undefined): Array<[string, string]> {
  // The log keeps a row as stored: on SQLite and D1, a boolean is 0 or 1.
  const meets = (row: Record<string, unknown> | null) =>
    row !== null && row.projectId === projectId && (done === undefined || Boolean(row.done) === done);
  const expected: Array<[string, string]> = [];
  for (const change of log) {
    const now = meets(change.row);
    const before = change.kind === "updated" ? meets(change.before) : now;
    const kind = now && before ? change.kind : now ? "created" : before ? "deleted" : undefined;
    if (kind) expected.push([kind, String(change.seq)]);
  }
  return expected;
}

/** Runs the scenario and asserts what every listener received. */
export async function deliversEveryChange(scenario: Scenario) {
  const { origins, writers, writes, readLog } = scenario;
  const listeners = Array.from({ length: scenario.listeners }, (_, n) =>
    listener(origins[n % origins.length]!, 1 + (n % 2), n % 5 === 0 ? false : undefined),
  );
  await Promise.all(listeners.map((one) => one.started));

  // Four writers, each on its own process, each creating, renaming, completing and deleting its own tasks.
  const writing = Array.from({ length: writers }, async (_, w) => {
    const writer: Client = createClient(origins[w % origins.length]!, { headers: { "x-key": "w" } });
    const mine: Array<{ id: number; projectId: number }> = [];
    for (let n = 0; n < writes / writers; n++) {
      const step = n % 4;
      if (step === 0 || mine.length === 0) {
        const projectId = 1 + ((n + w) % 2);
        const answer = await writer.post("/projects/:projectId/tasks", {
          param: { projectId },
          json: { title: `w${w} n${n}`, done: n % 3 === 0 },
        });
        if (!answer.ok) throw new Error(`create answered ${answer.status}`);
        mine.push({ id: answer.data.result.id, projectId });
      } else if (step === 3 && mine.length > 1) {
        const { id, projectId } = mine.shift()!;
        const answer = await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId, id } });
        if (!answer.ok) throw new Error(`delete answered ${answer.status}`);
      } else {
        const { id, projectId } = mine[n % mine.length]!;
        const json = step === 1 ? { done: n % 2 === 0 } : { title: `w${w} n${n} renamed` };
        const answer = await writer.patch("/projects/:projectId/tasks/:id", { param: { projectId, id }, json });
        if (!answer.ok) throw new Error(`update answered ${answer.status}`);
      }
      // One listener loses its connection mid-run and comes back with Last-Event-ID.
      if (w === 0 && n === writes / writers / 2) listeners[3]!.cut();
    }
  });
  await Promise.all(writing);

  const log = await readLog();
  expect(log).toHaveLength(writes);
  const expected = listeners.map((one) => expectedFor(log, one.projectId, one.done));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && listeners.some((one, n) => one.received.length < expected[n]!.length)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const one of listeners) one.stop();
  await Promise.allSettled(listeners.map((one) => one.running));
  expect(listeners[3]!.connections()).toBe(2);
  for (const [n, one] of listeners.entries()) {
    expect(one.received.map((event) => [event.event, event.id])).toEqual(expected[n]);
  }
}
