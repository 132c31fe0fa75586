import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TasksApi } from "../../examples/tasks/app";
import { pgDriver, type RecordedChange, SqlChangeLog } from "../../src";
import { createClient } from "../../src/client";
import {
  freshPostgresSchema,
  type LoadRequest,
  type PostgresSchema,
  sendConcurrently,
  startTasksServer,
  type TasksServer,
} from "./processes";

// The example's live task changes (GET /projects/{projectId}/tasks/changes) over real HTTP, as `npm start`
// serves them: on SQLite in one process, and on PostgreSQL as 4 worker processes, where a write served by
// any process reaches every listener, whichever process it is connected to.

const pgUrl = process.env.SPECROUTE_PG_URL;
const API_KEY = "events-key";

type Api = ReturnType<typeof createClient<TasksApi>>;
type Task = { projectId: number; id: number; title: string; status: string };
type Event = { event: string; id?: string; data: { object?: Task; message?: string } };

/**
 * A listener of one project's task changes: what it received, in order. `cut()` drops its connection;
 * `resume()` connects again sending the last id it received as Last-Event-ID.
 */
function listener(origin: string, projectId: number) {
  const client: Api = createClient<TasksApi>(origin);
  const received: Event[] = [];
  let controller = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let connections = 0;

  const connect = async (): Promise<void> => {
    controller = new AbortController();
    const last = received.at(-1)?.id;
    const answer = await client.get(
      "/projects/:projectId/tasks/changes",
      { param: { projectId }, ...(last === undefined ? {} : { header: { "Last-Event-ID": last } }) },
      { signal: controller.signal },
    );
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    expect(answer.response.headers.get("content-type")).toBe("text/event-stream");
    connections++;
    const signal = controller.signal;
    running = (async () => {
      try {
        for await (const event of answer.data) received.push(event as Event);
      } catch (error) {
        // A cut connection ends the loop; anything else is the test's failure.
        if (!signal.aborted) throw error;
      }
    })();
  };

  return {
    projectId,
    received,
    connect,
    connections: () => connections,
    /** Drops the connection and resolves once the stream has ended. */
    async cut() {
      controller.abort();
      await running;
    },
    resume: connect,
    /** Resolves once `count` events have arrived, or after `timeoutMs` (the assertions then say what is missing). */
    async until(count: number, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

/** What a listener of `projectId` must receive of the log, in its order: kind and id. */
function expectedFor(log: RecordedChange[], projectId: number): Array<[string, string]> {
  return log.filter((change) => change.row.projectId === projectId).map((change) => [change.kind, String(change.seq)]);
}

describe("the example's task changes on SQLite, one process", () => {
  let dir: string;
  let server: TasksServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "specroute-events-"));
    server = await startTasksServer({ workers: 1, env: { DB_FILE: join(dir, "tasks.db"), API_KEY } });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("tells a listener of project A each of A's tasks created, changed and deleted, and nothing of project B's", async () => {
    const writer = createClient<TasksApi>(server.origin, { headers: { "x-api-key": API_KEY } });
    const project = async (name: string) => {
      const answer = await writer.post("/projects", { json: { name } });
      if (!answer.ok) throw new Error(`no project: ${answer.status}`);
      return answer.data.result.id;
    };
    const a = await project("Streamed");
    const b = await project("Elsewhere");
    const ofA = listener(server.origin, a);
    const ofB = listener(server.origin, b);
    await Promise.all([ofA.connect(), ofB.connect()]);

    const create = async (projectId: number, title: string) => {
      const answer = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title } });
      if (!answer.ok) throw new Error(`no task: ${answer.status}`);
      return answer.data.result.id;
    };
    const other = await create(b, "Not heard by A");
    const heard = await create(a, "Heard");
    expect(
      (
        await writer.patch("/projects/:projectId/tasks/:id", {
          param: { projectId: b, id: other },
          json: { status: "doing" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await writer.patch("/projects/:projectId/tasks/:id", {
          param: { projectId: a, id: heard },
          json: { status: "done" },
        })
      ).status,
    ).toBe(200);
    expect((await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId: a, id: heard } })).status).toBe(
      200,
    );
    expect((await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId: b, id: other } })).status).toBe(
      200,
    );
    // A last change of A's after B's last: had B's leaked to A's listener, they would come before it.
    const last = await create(a, "Last");

    await Promise.all([ofA.until(4), ofB.until(3)]);
    await Promise.all([ofA.cut(), ofB.cut()]);
    const summary = (events: Event[]) =>
      events.map(({ event, data }) => [
        event,
        data.object?.projectId,
        data.object?.id,
        data.object?.title,
        data.object?.status,
      ]);
    expect(summary(ofA.received)).toEqual([
      ["created", a, heard, "Heard", "todo"],
      ["updated", a, heard, "Heard", "done"],
      ["deleted", a, heard, "Heard", "done"],
      ["created", a, last, "Last", "todo"],
    ]);
    expect(summary(ofB.received)).toEqual([
      ["created", b, other, "Not heard by A", "todo"],
      ["updated", b, other, "Not heard by A", "doing"],
      ["deleted", b, other, "Not heard by A", "doing"],
    ]);
    // Ids are places in the tasks' one log, so A's skip the numbers B's changes took.
    expect(ofA.received.map((event) => event.id)).toEqual(["2", "4", "5", "7"]);
  });

  it("replays what a listener missed when it reconnects with Last-Event-ID, then goes on live", async () => {
    const writer = createClient<TasksApi>(server.origin, { headers: { "x-api-key": API_KEY } });
    const created = await writer.post("/projects", { json: { name: "Reconnected" } });
    if (!created.ok) throw new Error(`no project: ${created.status}`);
    const projectId = created.data.result.id;
    const one = listener(server.origin, projectId);
    await one.connect();
    const task = async (title: string) => {
      const answer = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title } });
      expect(answer.status).toBe(201);
    };
    await task("before the cut");
    await one.until(1);
    await one.cut();
    await task("missed 1");
    await task("missed 2");
    await one.resume();
    await task("after the reconnect");
    await one.until(4);
    await one.cut();
    expect(one.received.map((event) => [event.event, event.data.object?.title])).toEqual([
      ["created", "before the cut"],
      ["created", "missed 1"],
      ["created", "missed 2"],
      ["created", "after the reconnect"],
    ]);
    expect(one.connections()).toBe(2);
  });

  it("answers 404 for a project that does not exist, before any stream", async () => {
    const response = await fetch(`${server.origin}/projects/999/tasks/changes`);
    expect(response.status).toBe(404);
    expect((await response.json()).errors[0].message).toBe("No such project");
  });
});

if (!pgUrl)
  console.info(
    "[specroute events] the task changes over 4 processes on PostgreSQL: skipped (SPECROUTE_PG_URL is not set)",
  );

describe.skipIf(!pgUrl)("the example's task changes on PostgreSQL, --workers 4", () => {
  const WORKERS = 4;
  const LISTENERS = 8;
  const WRITERS = 4;
  const ROUNDS = 20;
  let schema: PostgresSchema;
  let server: TasksServer;

  beforeAll(async () => {
    schema = await freshPostgresSchema(pgUrl!, "wt_live_example");
    // A pool of 3 per worker: one holds the LISTEN, two serve requests; 4 × 3 connections in all.
    server = await startTasksServer({
      workers: WORKERS,
      env: { DATABASE_URL: schema.url, DATABASE_POOL_SIZE: "3", API_KEY },
    });
  }, 90_000);

  afterAll(async () => {
    await server?.stop().catch(() => {});
    await schema?.drop();
  });

  /** One request on a connection of its own: the cluster's primary hands each new connection to the next worker. */
  async function send(request: LoadRequest) {
    const [answer] = await sendConcurrently(server.origin, [{ ...request, headers: { "x-api-key": API_KEY } }], {
      connections: 1,
    });
    return answer!;
  }

  /** The workers holding a LISTEN connection now, by the process id in their application_name. */
  async function workersListening(): Promise<number[]> {
    const { rows } = await schema.pool.query<{ application_name: string }>(
      `SELECT DISTINCT application_name FROM pg_stat_activity
       WHERE application_name LIKE 'tasks-example %' AND query LIKE 'LISTEN %'`,
    );
    const pids = rows.map((row) => Number(row.application_name.split(" ")[1]));
    return pids.filter((pid) => server.workerPids.includes(pid)).sort();
  }

  it("delivers every write, from every process, to each of 8 listeners spread over the processes: none lost, none twice, in order, across a reconnect", async () => {
    const [a, b] = await Promise.all(
      ["Live A", "Live B"].map(async (name) => {
        const answer = await send({ method: "POST", path: "/projects", body: { name } });
        expect(answer.status).toBe(201);
        return answer.body.result.id as number;
      }),
    );
    // One listener of B, the others of A; each on a connection of its own, so spread over the workers.
    const listeners = Array.from({ length: LISTENERS }, (_, n) =>
      listener(server.origin, n === LISTENERS - 1 ? b! : a!),
    );
    for (const one of listeners) await one.connect();
    expect(await workersListening()).toEqual([...server.workerPids].sort());

    // Each writer creates a task, renames it, marks it done, and deletes every other one; every 5th task is B's.
    let answered = 0;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let round = 0; round < ROUNDS; round++) {
        const projectId = round % 5 === 4 ? b! : a!;
        const created = await send({
          method: "POST",
          path: `/projects/${projectId}/tasks`,
          body: { title: `w${w} r${round}` },
        });
        expect(created.status).toBe(201);
        const path = `/projects/${projectId}/tasks/${created.body.result.id}`;
        expect((await send({ method: "PATCH", path, body: { title: `w${w} r${round} renamed` } })).status).toBe(200);
        expect((await send({ method: "PATCH", path, body: { status: "done" } })).status).toBe(200);
        answered += 3;
        if (round % 2 === 0) {
          expect((await send({ method: "DELETE", path })).status).toBe(200);
          answered++;
        }
        // One listener of A loses its connection a third of the way through and is away for a while.
        if (w === 0 && round === Math.floor(ROUNDS / 3)) await listeners[2]!.cut();
        if (w === 0 && round === Math.floor((2 * ROUNDS) / 3)) await listeners[2]!.resume();
      }
    });
    await Promise.all(writers);

    // The log holds one change per write that answered 2xx: none lost before any listener.
    const log = await new SqlChangeLog().readAfter(pgDriver(schema.pool), "tasks", 0, 10_000);
    expect(log).toHaveLength(answered);
    const expected = listeners.map((one) => expectedFor(log, one.projectId));
    await Promise.all(listeners.map((one, n) => one.until(expected[n]!.length)));
    // A moment more, so a duplicate sent after the last expected event would be caught.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const one of listeners) await one.cut();

    for (const [n, one] of listeners.entries()) {
      expect(
        one.received.map((event) => [event.event, event.id]),
        `listener ${n}`,
      ).toEqual(expected[n]);
    }
    expect(listeners[2]!.connections()).toBe(2);
    console.info(
      `[specroute events] ${answered} writes through ${WORKERS} worker processes, ${LISTENERS} listeners on all of them: ` +
        `${listeners.reduce((sum, one) => sum + one.received.length, 0)} events delivered, none lost or twice, one listener back after a cut`,
    );
  }, 120_000);
});
