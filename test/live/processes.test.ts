import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgDriver, type RecordedChange, SqlChangeLog } from "../../src";
import { createClient } from "../../src/client";
import { createTable, type tasksApp } from "./tasks-app";

// The live collection across processes on PostgreSQL, over real HTTP: 4 server processes, 20 listeners
// spread over them, 4 writers doing 1,000 creates, updates and deletes across two projects. Each
// listener must receive exactly the changes its filter lets through, in the log's (commit) order, none
// lost and none twice, one of them after being cut off mid-run and reconnecting with Last-Event-ID.

const pgUrl = process.env.SPECROUTE_PG_URL;
const root = join(__dirname, "..", "..");
const table = `live_processes_${process.pid}`;
const PROCESSES = 4;
const LISTENERS = 20;
const WRITERS = 4;
const WRITES = 1000;

type Client = ReturnType<typeof createClient<ReturnType<typeof tasksApp>["router"]>>;
type Event = { event: string; id?: string; data: any };

const children: ChildProcess[] = [];
let origins: string[] = [];
let pool: pg.Pool;

/** Starts one server process and resolves with its origin once it listens. */
function startServer(): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/live/live-server.ts"], {
    cwd: root,
    env: { ...process.env, LIVE_TABLE: table },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a server did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const origin = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (origin) {
        clearTimeout(timer);
        resolve(origin);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(new Error(`a server exited with ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  if (!pgUrl) return;
  pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
  await createTable(pgDriver(pool), table);
  await pool.query("DELETE FROM specroute_changes WHERE collection = $1", [table]).catch(() => {});
  await pool.query("DELETE FROM specroute_change_heads WHERE collection = $1", [table]).catch(() => {});
  origins = await Promise.all(Array.from({ length: PROCESSES }, startServer));
}, 90_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await pool?.end();
});

/** A listener: the events it received, kept until `stop()`; `cut()` drops its connection and reconnects after the last id. */
function listener(origin: string, projectId: number, done: boolean | undefined) {
  const client: Client = createClient(origin, { headers: { "x-key": "r" } });
  const received: Event[] = [];
  let controller = new AbortController();
  let stopped = false;
  let connections = 0;
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  const run = async (): Promise<void> => {
    while (!stopped) {
      const last = received.filter((event) => event.id !== undefined).at(-1)?.id;
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
  const meets = (row: Record<string, unknown> | null) =>
    row !== null && row.projectId === projectId && (done === undefined || row.done === done);
  const expected: Array<[string, string]> = [];
  for (const change of log) {
    const now = meets(change.row);
    const before = change.kind === "updated" ? meets(change.before) : now;
    const kind = now && before ? change.kind : now ? "created" : before ? "deleted" : undefined;
    if (kind) expected.push([kind, String(change.seq)]);
  }
  return expected;
}

describe.skipIf(!pgUrl)("a live collection over 4 processes on PostgreSQL", () => {
  it("delivers every change to every listener whose filter it meets, in commit order, none lost or twice, across a reconnect", async () => {
    const listeners = Array.from({ length: LISTENERS }, (_, n) =>
      listener(origins[n % PROCESSES]!, 1 + (n % 2), n % 5 === 0 ? false : undefined),
    );
    await Promise.all(listeners.map((one) => one.started));

    // Four writers, each on its own process, each creating, renaming, completing and deleting its own tasks.
    const writes = Array.from({ length: WRITERS }, async (_, w) => {
      const writer: Client = createClient(origins[w % PROCESSES]!, { headers: { "x-key": "w" } });
      const mine: Array<{ id: number; projectId: number }> = [];
      for (let n = 0; n < WRITES / WRITERS; n++) {
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
        if (w === 0 && n === WRITES / WRITERS / 2) listeners[3]!.cut();
      }
    });
    await Promise.all(writes);

    const log = await new SqlChangeLog().readAfter(pgDriver(pool), table, 0, WRITES * 2);
    expect(log).toHaveLength(WRITES);
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
  }, 120_000);
});
