import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshPostgresSchema,
  type LoadRequest,
  type PostgresSchema,
  sendConcurrently,
  startTasksServer,
  type TasksServer,
} from "./processes";

// The tasks example started as `npm start` starts it, as real processes, loaded over real HTTP.

const pgUrl = process.env.SPECROUTE_PG_URL;
const API_KEY = "processes-key";
const WORKERS = 4;
// Keep-alive connections the load uses; the cluster's primary hands them to the workers in turn.
const CONNECTIONS = 64;
// Each worker's pool: 4 × 8 connections to PostgreSQL at most, beside other suites on the same server.
const POOL_SIZE = 8;

describe("the tasks example as one process on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "specroute-processes-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses several workers on SQLite, naming DATABASE_URL", async () => {
    await expect(startTasksServer({ workers: 2, env: { DB_FILE: join(dir, "refused.db"), API_KEY } })).rejects.toThrow(
      /exited with 1 before it listened:\n--workers 2 needs PostgreSQL: set DATABASE_URL=postgres:\/\//,
    );
  });

  it("serves writes, and on SIGTERM finishes, exits 0 and leaves them on disk", async () => {
    const file = join(dir, "tasks.db");
    const server = await startTasksServer({ workers: 1, env: { DB_FILE: file, API_KEY } });
    try {
      const [created] = await sendConcurrently(
        server.origin,
        [{ method: "POST", path: "/projects", headers: { "x-api-key": API_KEY }, body: { name: "On disk" } }],
        { connections: 1 },
      );
      expect(created).toMatchObject({ status: 201, body: { result: { id: 1, name: "On disk" } } });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.output()).toMatch(/SQLite .*tasks\.db/);
    const sqlite = new Database(file, { readonly: true });
    expect(sqlite.prepare("SELECT name FROM projects").all()).toEqual([{ name: "On disk" }]);
    sqlite.close();
  });
});

if (!pgUrl)
  console.info(`[specroute processes] ${WORKERS} processes on PostgreSQL: skipped (SPECROUTE_PG_URL is not set)`);

describe.skipIf(!pgUrl)(`the tasks example as ${WORKERS} processes on PostgreSQL`, () => {
  let schema: PostgresSchema;
  let server: TasksServer;

  beforeAll(async () => {
    schema = await freshPostgresSchema(pgUrl!, "wt_scale");
    server = await startTasksServer({
      workers: WORKERS,
      env: { DATABASE_URL: schema.url, DATABASE_POOL_SIZE: String(POOL_SIZE), API_KEY },
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop().catch(() => {});
    await schema?.drop();
  });

  /** A project of the scenario's own, with `count` tasks numbered 1..count, titled "seed", priority 3, status todo. */
  async function seedProject(name: string, count: number): Promise<number> {
    const [project] = (await schema.pool.query("INSERT INTO projects (name) VALUES ($1) RETURNING id", [name])).rows;
    await schema.pool.query(
      `INSERT INTO tasks ("projectId", id, title) SELECT $1, n, 'seed' FROM generate_series(1, $2::int) AS n`,
      [project.id, count],
    );
    return project.id;
  }

  /** The workers holding connections to PostgreSQL now, by the process id in their application_name. */
  async function workersConnected(): Promise<number[]> {
    const { rows } = await schema.pool.query<{ application_name: string }>(
      "SELECT DISTINCT application_name FROM pg_stat_activity WHERE application_name LIKE 'tasks-example %'",
    );
    const pids = rows.map((row) => Number(row.application_name.split(" ")[1]));
    return pids.filter((pid) => server.workerPids.includes(pid)).sort();
  }

  it("starts one worker per --workers, all on one port", () => {
    expect(new Set(server.workerPids).size).toBe(WORKERS);
    expect(server.workerPids).not.toContain(server.pid);
  });

  it("keeps every one of 1000 concurrent PATCHes without If-Match: 250 rows × 4 columns, each written once", {
    timeout: 60_000,
  }, async () => {
    const ROWS = 250;
    const projectId = await seedProject("lost updates", ROWS);
    const expected = Array.from({ length: ROWS }, (_, index) => {
      const id = index + 1;
      return {
        id,
        title: `title ${id}`,
        status: id % 2 ? "doing" : "done",
        priority: id % 2 ? 1 : 5,
        due: new Date(Date.UTC(2027, 0, id)).toISOString().slice(0, 10),
      };
    });
    // The four PATCHes of a row are sent one after the other, so they are in flight together, on
    // different connections and so different processes: a read-modify-write of the row would lose columns.
    const requests: LoadRequest[] = expected.flatMap(({ id, ...fields }) =>
      Object.entries(fields).map(([field, value]) => ({
        method: "PATCH",
        path: `/projects/${projectId}/tasks/${id}`,
        headers: { "x-api-key": API_KEY },
        body: { [field]: value },
      })),
    );
    expect(requests).toHaveLength(1000);

    const started = performance.now();
    const responses = await sendConcurrently(server.origin, requests, { connections: CONNECTIONS });
    const elapsed = performance.now() - started;

    const failed = responses.filter((response) => response.status !== 200);
    expect(failed.slice(0, 3)).toEqual([]);
    responses.forEach((response, index) => {
      const [[field, value]] = Object.entries(requests[index]!.body as object);
      expect(response.body.result[field], requests[index]!.path).toEqual(value);
    });
    const { rows } = await schema.pool.query(
      `SELECT id, title, status, priority, due FROM tasks WHERE "projectId" = $1 ORDER BY id`,
      [projectId],
    );
    expect(rows).toEqual(expected);

    const connected = await workersConnected();
    expect(connected).toEqual([...server.workerPids].sort());
    console.info(
      `[specroute processes] ${requests.length} PATCHes over ${CONNECTIONS} connections: all 200, none lost; ` +
        `${connected.length} of ${WORKERS} worker processes held PostgreSQL connections; ${Math.round(elapsed)} ms`,
    );
    expect(server.output()).not.toMatch(/exited/);
  });

  it("lets exactly one of 1000 concurrent PATCHes holding the same ETag win: one 200, 999 × 412", {
    timeout: 60_000,
  }, async () => {
    const projectId = await seedProject("one winner", 1);
    const path = `/projects/${projectId}/tasks/1`;
    const [read] = await sendConcurrently(server.origin, [{ method: "GET", path }], { connections: 1 });
    const etag = read!.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);

    const requests: LoadRequest[] = Array.from({ length: 1000 }, (_, index) => ({
      method: "PATCH",
      path,
      headers: { "x-api-key": API_KEY, "if-match": etag! },
      body: { title: `writer ${index}` },
    }));
    const started = performance.now();
    const responses = await sendConcurrently(server.origin, requests, { connections: CONNECTIONS });
    const elapsed = performance.now() - started;

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(999);
    const winner = statuses.indexOf(200);
    expect(responses[winner]!.body.result.title).toBe(`writer ${winner}`);
    expect(responses[winner]!.headers.etag).not.toBe(etag);
    const { rows } = await schema.pool.query(`SELECT title FROM tasks WHERE "projectId" = $1 AND id = 1`, [projectId]);
    expect(rows).toEqual([{ title: `writer ${winner}` }]);
    console.info(
      `[specroute processes] ${requests.length} conditional PATCHes of one row with one ETag over ${CONNECTIONS} connections: ` +
        `1 × 200, ${statuses.filter((status) => status === 412).length} × 412; ${Math.round(elapsed)} ms`,
    );
  });

  it("walks a cursor listing while other processes insert: no task that existed throughout is repeated or skipped", {
    timeout: 60_000,
  }, async () => {
    const SEEDED = 300;
    const INSERTS = 300;
    const projectId = await seedProject("cursor walk", SEEDED);
    // Ties on priority (five values over 300 tasks), so the order leans on the key tiebreaker.
    await schema.pool.query(`UPDATE tasks SET priority = 1 + (id % 5) WHERE "projectId" = $1`, [projectId]);
    const inserts: LoadRequest[] = Array.from({ length: INSERTS }, (_, index) => ({
      method: "POST",
      path: `/projects/${projectId}/tasks`,
      headers: { "x-api-key": API_KEY },
      body: { title: `inserted ${index}`, priority: 1 + (index % 5) },
    }));
    // Few connections: tasks are numbered MAX(id)+1 per project, and each creator retries a taken number.
    const inserting = sendConcurrently(server.origin, inserts, { connections: 4 });
    let insertsDone = 0;
    void inserting.then(() => {
      insertsDone = INSERTS;
    });

    const seen: number[] = [];
    let pages = 0;
    let insertsDoneAtEnd = -1;
    let path: string | null = `/projects/${projectId}/tasks?order_by=priority&per_page=10`;
    // 600 tasks at most, 10 a page: the bound is far above the walk's length.
    for (; path !== null && pages < 200; pages++) {
      const [page] = await sendConcurrently(server.origin, [{ method: "GET", path }], { connections: 1 });
      expect(page!.status, path).toBe(200);
      seen.push(...page!.body.result.map((task: { id: number }) => task.id));
      const next: string | null = page!.body.result_info.next_cursor;
      path = next === null ? null : `/projects/${projectId}/tasks?order_by=priority&per_page=10&cursor=${next}`;
      insertsDoneAtEnd = insertsDone;
    }
    const created = await inserting;
    expect(created.map((response) => response.status)).toEqual(inserts.map(() => 201));

    expect(path).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    for (let id = 1; id <= SEEDED; id++) expect(seen, `task ${id}`).toContain(id);
    console.info(
      `[specroute processes] cursor walk of ${pages} pages during ${INSERTS} concurrent inserts: ` +
        `${seen.length} tasks seen (${seen.length - SEEDED} inserted ones), none twice, none of the ${SEEDED} seeded missing` +
        (insertsDoneAtEnd === INSERTS ? " (the inserts had finished before the walk did)" : ""),
    );
  });

  it("replaces a worker that dies while serving, and keeps answering", async () => {
    const [victim] = server.workerPids;
    process.kill(victim!, "SIGKILL");
    const replaced = () => !server.workerPids.includes(victim!) && server.workerPids.length === WORKERS;
    for (let attempt = 1; attempt <= 300 && !replaced(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(server.output()).toContain(`worker ${victim} exited (SIGKILL): starting another`);
    expect(server.workerPids).toHaveLength(WORKERS);
    expect(server.workerPids).not.toContain(victim);
    const reads = Array.from({ length: CONNECTIONS }, () => ({ method: "GET", path: "/projects" }));
    const answers = await sendConcurrently(server.origin, reads, { connections: CONNECTIONS });
    expect(answers.map((answer) => answer.status)).toEqual(reads.map(() => 200));
  });

  it("stops, exit status 1, when its workers cannot listen, instead of restarting them in a loop", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const failure = await startTasksServer({
        workers: 2,
        env: { DATABASE_URL: schema.url, PORT: String(port), API_KEY },
      }).then(
        (started) => started.stop().then(() => new Error("it started")),
        (error: Error) => error,
      );
      expect(failure.message).toMatch(/^the server exited with 1 before it listened/);
      expect(failure.message).toMatch(/worker \d+ exited \(code \d+\) before it listened: stopping/);
    } finally {
      taken.close();
    }
  });

  // Keep this one last: it stops the server.
  it("stops on SIGTERM: every worker leaves, its pool closed, and the primary exits 0", async () => {
    // A read on every connection first, so each worker holds a connection its stop must close.
    const projectId = await seedProject("stop", 1);
    const reads = Array.from({ length: CONNECTIONS }, () => ({
      method: "GET",
      path: `/projects/${projectId}/tasks/1`,
    }));
    const answers = await sendConcurrently(server.origin, reads, { connections: CONNECTIONS });
    expect(answers.map((answer) => answer.status)).toEqual(reads.map(() => 200));
    expect(await workersConnected()).toEqual([...server.workerPids].sort());

    expect(await server.stop()).toBe(0);
    expect(server.output()).toContain(`SIGTERM: stopping ${WORKERS} workers`);
    // A closed connection leaves pg_stat_activity once its backend has finished; give it a moment.
    for (let attempt = 1; attempt <= 50 && (await workersConnected()).length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await workersConnected()).toEqual([]);
    for (const pid of server.workerPids) expect(isRunning(pid), `worker ${pid}`).toBe(false);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
