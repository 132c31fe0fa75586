import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import type { Table } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzleD1 } from "drizzle-orm/d1";
import * as mysqlCore from "drizzle-orm/mysql-core";
import * as my from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import * as pgCore from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import * as sqliteCore from "drizzle-orm/sqlite-core";
import { Hono } from "hono";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  apiKeyAuth,
  betterSqlite3Driver,
  type ChangeFeed,
  type ChangeFeedOptions,
  changeFeed,
  fromHono,
  mysql2Driver,
  pgDriver,
  pgliteDriver,
  recordedWrite,
  type SqlDriver,
} from "../../src";
import { createClient } from "../../src/client";
import {
  DrizzleChangesEndpoint,
  DrizzleCreateEndpoint,
  type DrizzleDatabase,
  DrizzleDeleteEndpoint,
  DrizzleUpdateEndpoint,
  drizzleLiveStorage,
} from "../../src/drizzle";
import { mariadbDialect } from "../../src/sql";
import { openD1Binding } from "../endpoints/d1";
import { recordingLogger } from "../endpoints/recording-logger";
import { captureConsoleErrors, jsonBody, listenOnLoopback } from "../helpers";
import { createTable, Task, tasksApp } from "../live/tasks-app";

// A live collection over Drizzle tables, over real HTTP: writes through the Drizzle endpoints record
// their changes in the same change log as the SQL endpoints (one log per database), and a Drizzle
// changes endpoint streams them, on SQLite, PostgreSQL (where a second pool stands in for a second
// process, woken by NOTIFY) and MariaDB.

const servers: Array<{ close(): Promise<void> }> = [];
const closers: Array<() => Promise<void> | void> = [];
/** The tables made, dropped with their changes before the databases close (PostgreSQL and MariaDB outlive the run). */
const made: Array<{ driver: SqlDriver; tableName: string }> = [];
afterAll(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const { driver, tableName } of made.splice(0)) {
    const p = driver.dialect.placeholder;
    await driver.execute(`DROP TABLE IF EXISTS ${tableName}`, []);
    for (const log of ["specroute_changes", "specroute_change_heads"]) {
      await driver.execute(`DELETE FROM ${log} WHERE ${driver.dialect.quote("collection")} = ${p(1)}`, [tableName]);
    }
  }
  for (const close of closers.splice(0)) await close();
});

/** A table of its own per app, so apps on the shared databases never meet. */
let tables = 0;

interface Engine {
  name: string;
  /** The SQL driver (for the tables and the SQL endpoints), Drizzle over the same database, and for PostgreSQL over a second pool. */
  open(): Promise<{ driver: SqlDriver; db: DrizzleDatabase; second?: DrizzleDatabase }>;
  /** The tasks table of tasks-app.ts, declared with this engine's Drizzle columns. */
  table(name: string): Table;
}

const sqliteTasks = (name: string) =>
  sqliteCore.sqliteTable(name, {
    id: sqliteCore.integer().primaryKey({ autoIncrement: true }),
    projectId: sqliteCore.integer().notNull(),
    title: sqliteCore.text().notNull(),
    done: sqliteCore.integer({ mode: "boolean" }).notNull().default(false),
    version: sqliteCore.integer().notNull().default(1),
  });
const pgTasks = (name: string) =>
  pgCore.pgTable(name, {
    id: pgCore.serial().primaryKey(),
    projectId: pgCore.integer().notNull(),
    title: pgCore.text().notNull(),
    done: pgCore.boolean().notNull().default(false),
    version: pgCore.integer().notNull().default(1),
  });
const mysqlTasks = (name: string) =>
  mysqlCore.mysqlTable(name, {
    id: mysqlCore.int().primaryKey().autoincrement(),
    projectId: mysqlCore.int().notNull(),
    title: mysqlCore.text().notNull(),
    done: mysqlCore.boolean().notNull().default(false),
    version: mysqlCore.int().notNull().default(1),
  });

const engines: Engine[] = [
  {
    name: "SQLite (better-sqlite3)",
    table: sqliteTasks,
    async open() {
      const client = new Database(":memory:");
      closers.push(() => {
        client.close();
      });
      return { driver: betterSqlite3Driver(client), db: drizzleSqlite(client) };
    },
  },
  {
    name: "PGlite",
    table: pgTasks,
    async open() {
      const client = new PGlite();
      closers.push(() => client.close());
      return { driver: pgliteDriver(client), db: drizzlePglite(client) };
    },
  },
];
const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;
if (pgUrl) {
  // One pair of pools for the whole file: PostgreSQL's connections are shared with every suite running at once.
  let opened: { driver: SqlDriver; db: DrizzleDatabase; second: DrizzleDatabase } | undefined;
  engines.push({
    name: "PostgreSQL (node-postgres)",
    table: pgTasks,
    async open() {
      if (!opened) {
        const pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
        const secondPool = new pg.Pool({ connectionString: pgUrl, max: 2 });
        opened = { driver: pgDriver(pool), db: drizzlePg(pool), second: drizzlePg(secondPool) };
        const { driver } = opened;
        // After the servers: the listeners are gone, so no LISTEN connection is still held.
        closers.push(
          () => driver.close!(),
          () => secondPool.end(),
        );
      }
      return opened;
    },
  });
}
if (mysqlUrl) {
  let opened: { driver: SqlDriver; db: DrizzleDatabase } | undefined;
  engines.push({
    name: "MariaDB (mysql2)",
    table: mysqlTasks,
    async open() {
      if (!opened) {
        const pool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 3 });
        opened = { driver: mysql2Driver(pool, { dialect: mariadbDialect }), db: my.drizzle(pool) };
        closers.push(() => pool.end());
      }
      return opened;
    },
  });
}

const NewTask = Task.pick({ title: true, done: true }).partial({ done: true });
const writeKey = apiKeyAuth({ in: "header", name: "X-Key", verify: (key) => (key === "w" ? { role: "w" } : null) });
const readKey = apiKeyAuth({
  in: "header",
  name: "X-Key",
  verify: (key) => (key === "w" || key === "r" ? { role: key } : null),
});

/** The tasks Meta of tasks-app.ts over a Drizzle table: a task belongs to a project, live on `feed`. */
function metaOf(table: Table, tableName: string, feed: ChangeFeed) {
  const model = { tableName, schema: Task, primaryKeys: ["projectId", "id"], versionField: "version", table };
  return { model, fields: NewTask, pathParameters: ["projectId", "id"], changes: feed };
}

// The endpoint classes every app subclasses with its own table and feed; typed as these, whose types the client reads.
const shapeMeta = metaOf(sqliteTasks("tasks"), "tasks", changeFeed());
class CreateTask extends DrizzleCreateEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
class UpdateTask extends DrizzleUpdateEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
class DeleteTask extends DrizzleDeleteEndpoint {
  _meta = shapeMeta;
  schema = { auth: writeKey };
}
class TaskChanges extends DrizzleChangesEndpoint {
  _meta = shapeMeta;
  schema = { auth: readKey };
  filterFields = ["done"];
}

/** The tasks API of tasks-app.ts over the Drizzle table `table` on `db`, served over HTTP. */
async function serve(db: DrizzleDatabase, table: Table, tableName: string, feedOptions: ChangeFeedOptions = {}) {
  const feed = changeFeed(feedOptions);
  const meta = metaOf(table, tableName, feed);
  const app = new Hono();
  const router = fromHono(app, { db })
    .post(
      "/projects/:projectId/tasks",
      class extends CreateTask {
        override _meta = meta;
      } as typeof CreateTask,
    )
    .patch(
      "/projects/:projectId/tasks/:id",
      class extends UpdateTask {
        override _meta = meta;
      } as typeof UpdateTask,
    )
    .delete(
      "/projects/:projectId/tasks/:id",
      class extends DeleteTask {
        override _meta = meta;
      } as typeof DeleteTask,
    )
    .get(
      "/projects/:projectId/tasks/changes",
      class extends TaskChanges {
        override _meta = meta;
      } as typeof TaskChanges,
    );
  const server = await listenOnLoopback((request, env) => app.fetch(request, env));
  servers.push(server);
  const writer = createClient<typeof router>(server.origin, { headers: { "x-key": "w" } });
  const reader = createClient<typeof router>(server.origin, { headers: { "x-key": "r" } });
  return { origin: server.origin, writer, reader, feed };
}

type Client = Awaited<ReturnType<typeof serve>>["writer"];

async function create(writer: Client, projectId: number, title: string, done = false): Promise<number> {
  const answer = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title, done } });
  if (!answer.ok) throw new Error(`create answered ${answer.status}`);
  return answer.data.result.id;
}

async function update(writer: Client, projectId: number, id: number, json: { title?: string; done?: boolean }) {
  const answer = await writer.patch("/projects/:projectId/tasks/:id", { param: { projectId, id }, json });
  if (!answer.ok) throw new Error(`update answered ${answer.status}`);
}

/** The next `count` events of a stream (heartbeats are comments, which the client skips). */
async function take<T>(events: AsyncIterator<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  while (taken.length < count) {
    const next = await events.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

/** One listener of project `projectId`, with a `Last-Event-ID` and `done` as the filter. */
async function listen(reader: Client, projectId: number, options: { done?: boolean; lastEventId?: string } = {}) {
  const answer = await reader.get("/projects/:projectId/tasks/changes", {
    param: { projectId },
    ...(options.done === undefined ? {} : { query: { done: options.done } }),
    ...(options.lastEventId === undefined ? {} : { header: { "Last-Event-ID": options.lastEventId } }),
  });
  if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
  return answer.data[Symbol.asyncIterator]();
}

const titles = (events: Array<{ data: unknown }>) =>
  events.map((event) => (event.data as { object: { title: string } }).object.title);

/** A table of its own on `engine`, created by the SQL driver, and the Drizzle tasks API over it. */
async function freshApp(engine: Engine, feedOptions?: ChangeFeedOptions) {
  const opened = await engine.open();
  const tableName = `drz_live_${process.pid}_${++tables}`;
  await createTable(opened.driver, tableName);
  made.push({ driver: opened.driver, tableName });
  const table = engine.table(tableName);
  return { ...opened, tableName, table, ...(await serve(opened.db, table, tableName, feedOptions)) };
}

describe.each(engines)("a live collection over a Drizzle table on $name", (engine) => {
  it("streams each write through the Drizzle endpoints to a listener, in order, as the Read endpoint serializes it", async () => {
    const { writer, reader } = await freshApp(engine);
    const events = await listen(reader, 1);
    const id = await create(writer, 1, "Write the docs");
    await create(writer, 2, "Another project's");
    await update(writer, 1, id, { title: "Write the live docs" });
    const deleted = await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId: 1, id } });
    expect(deleted.status).toBe(200);
    const heard = await take(events, 3);
    await events.return?.();
    expect(heard.map((event) => event.event)).toEqual(["created", "updated", "deleted"]);
    const ids = heard.map((event) => Number(event.id));
    expect(ids[1]).toBe(ids[0]! + 2);
    expect(heard[0]).toMatchObject({
      data: { object: { id, projectId: 1, title: "Write the docs", done: false, version: 1 }, etag: '"v1"' },
    });
    expect(heard[1]).toMatchObject({
      data: { object: { id, projectId: 1, title: "Write the live docs", done: false, version: 2 }, etag: '"v2"' },
    });
    expect(heard[2]).toMatchObject({ data: { object: { id, title: "Write the live docs" } } });
  });

  it("shows a listener only what its filter lets through: an update out of it is a deletion, back into it a creation", async () => {
    const { writer, reader } = await freshApp(engine);
    const open = await listen(reader, 1, { done: false });
    const id = await create(writer, 1, "Open task");
    await create(writer, 1, "Done already", true);
    await update(writer, 1, id, { done: true });
    await update(writer, 1, id, { title: "Still done" });
    await update(writer, 1, id, { done: false });
    const heard = await take(open, 3);
    await open.return?.();
    expect(heard.map((event) => [event.event, event.data])).toEqual([
      ["created", expect.objectContaining({ object: expect.objectContaining({ id, done: false }) })],
      // Out of the filter: the object as the listener could see it, before the update.
      [
        "deleted",
        expect.objectContaining({ object: expect.objectContaining({ id, title: "Open task", done: false }) }),
      ],
      [
        "created",
        expect.objectContaining({ object: expect.objectContaining({ id, title: "Still done", done: false }) }),
      ],
    ]);
  });

  it("replays what a reconnecting listener missed after its Last-Event-ID, then goes on live", async () => {
    const { writer, reader } = await freshApp(engine);
    const first = await listen(reader, 1);
    await create(writer, 1, "one");
    const [seen] = await take(first, 1);
    await first.return?.();
    await create(writer, 1, "two");
    await create(writer, 1, "three");
    const again = await listen(reader, 1, { lastEventId: seen!.id! });
    await create(writer, 1, "four");
    const heard = await take(again, 3);
    await again.return?.();
    expect(titles(heard)).toEqual(["two", "three", "four"]);
  });

  it("numbers concurrent writes one after another, each heard once", async () => {
    const { writer, reader } = await freshApp(engine);
    const events = await listen(reader, 5);
    const names = Array.from({ length: 12 }, (_, n) => `parallel ${n}`);
    await Promise.all(names.map((name) => create(writer, 5, name)));
    const heard = await take(events, names.length);
    await events.return?.();
    expect(titles(heard).sort()).toEqual([...names].sort());
    const seqs = heard.map((event) => Number(event.id));
    expect(seqs).toEqual(seqs.map((_, index) => seqs[0]! + index));
  });

  it("records a bulk create as one change per row, and nothing of a write that rolls back", async () => {
    const { driver, db, table, tableName, writer, reader, feed } = await freshApp(engine);
    const events = await listen(reader, 1);
    // A write that fails is rolled back whole, in the Drizzle transaction it ran in.
    await expect(
      recordedWrite(drizzleLiveStorage(feed, db, tableName), async ({ db: tx }) => {
        await (tx as any).insert(table).values({ projectId: 1, title: "rolled back" });
        throw new Error("refused after the insert");
      }),
    ).rejects.toThrow("refused after the insert");
    expect(await driver.query(`SELECT title FROM ${tableName}`, [])).toEqual([]);
    class CreateTasks extends DrizzleCreateEndpoint {
      _meta = metaOf(table, tableName, feed);
      bulk = true;
    }
    const bulkApp = new Hono();
    fromHono(bulkApp, { db }).post("/projects/:projectId/tasks", CreateTasks);
    const bulk = await bulkApp.request("/projects/1/tasks", jsonBody([{ title: "a" }, { title: "b" }]));
    expect(bulk.status).toBe(201);
    await create(writer, 1, "after");
    const heard = await take(events, 3);
    await events.return?.();
    expect(titles(heard)).toEqual(["a", "b", "after"]);
  });

  it("shares one log with the SQL endpoints of the same table: a listener hears both, in commit order", async () => {
    const { driver, db, table, tableName, reader } = await freshApp(engine, { pollMs: 20 });
    const sql = tasksApp(driver, tableName);
    const sqlServer = await listenOnLoopback((request, env) => sql.app.fetch(request, env));
    servers.push(sqlServer);
    const sqlWriter = createClient<typeof sql.router>(sqlServer.origin, { headers: { "x-key": "w" } });
    const drizzleWriter = (await serve(db, table, tableName)).writer;
    const events = await listen(reader, 4);
    const first = await sqlWriter.post("/projects/:projectId/tasks", {
      param: { projectId: 4 },
      json: { title: "sql" },
    });
    if (!first.ok) throw new Error(`create answered ${first.status}`);
    const id = await create(drizzleWriter, 4, "drizzle");
    await sqlWriter.patch("/projects/:projectId/tasks/:id", {
      param: { projectId: 4, id },
      json: { title: "sql again" },
    });
    const heard = await take(events, 3);
    await events.return?.();
    expect(heard.map((event) => [event.event, (event.data as { object: { title: string } }).object.title])).toEqual([
      ["created", "sql"],
      ["created", "drizzle"],
      ["updated", "sql again"],
    ]);
    const seqs = heard.map((event) => Number(event.id));
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
  });
});

describe.skipIf(!pgUrl)(
  "a live collection over a Drizzle table on PostgreSQL, written by one process and heard by another",
  () => {
    it("wakes the listeners of a second pool by NOTIFY when the first one's write commits", async () => {
      const engine = engines.find((each) => each.name.startsWith("PostgreSQL"))!;
      // Polling would take a minute: only NOTIFY wakes the second pool's listener in time.
      const { db, second, table, tableName, writer } = await freshApp(engine, { pollMs: 60_000 });
      expect(db).not.toBe(second);
      const there = await serve(second!, table, tableName, { pollMs: 60_000 });
      const events = await listen(there.reader, 7);
      for (let n = 0; n < 10; n++) await create(writer, 7, `task ${n}`);
      const heard = await take(events, 10);
      await events.return?.();
      expect(titles(heard)).toEqual(Array.from({ length: 10 }, (_, n) => `task ${n}`));
    });
  },
);

describe("a synchronous SQLite connection that live writes share with other endpoints", () => {
  it("keeps a non-live endpoint's write out of a live write's open transaction, so a rollback takes only its own", async () => {
    const { driver, db, table, tableName, feed } = await freshApp(engines[0]!);
    const { changes: _, ...plainMeta } = metaOf(table, tableName, feed);
    class CreatePlain extends DrizzleCreateEndpoint {
      _meta = plainMeta;
    }
    const app = new Hono();
    fromHono(app, { db }).post("/projects/:projectId/tasks", CreatePlain);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const live = recordedWrite(drizzleLiveStorage(feed, db, tableName), async ({ db: tx }) => {
      await (tx as any).insert(table).values({ projectId: 1, title: "rolled back" });
      await held;
      throw new Error("refused after the insert");
    });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    await pause();
    const plain = app.request("/projects/1/tasks", jsonBody({ title: "kept" }));
    await pause();
    release();
    await expect(live).rejects.toThrow("refused after the insert");
    expect((await plain).status).toBe(201);
    expect(await driver.query(`SELECT title FROM ${tableName}`, [])).toEqual([{ title: "kept" }]);
  });
});

describe("a live write over a Drizzle table with the endpoint's logger", () => {
  it("sends the change log's statements to the logger, as the table's own, in the write's transaction", async () => {
    const { db, table, tableName, feed } = await freshApp(engines[0]!);
    const logger = recordingLogger();
    class CreateLogged extends DrizzleCreateEndpoint {
      _meta = metaOf(table, tableName, feed);
      logger = logger;
    }
    const app = new Hono();
    fromHono(app, { db }).post("/projects/:projectId/tasks", CreateLogged);
    expect((await app.request("/projects/1/tasks", jsonBody({ title: "logged" }))).status).toBe(201);
    const statements = (logger.lines.debug ?? []).map(([line]) => String(line));
    expect(statements.some((line) => /^\[CreateLogged\] SQL: insert into/.test(line))).toBe(true);
    expect(statements.some((line) => /^\[CreateLogged\] SQL: INSERT INTO "specroute_changes"/.test(line))).toBe(true);
    expect(logger.lines.log).toEqual([[`Successfully created record in ${tableName}`]]);
  });
});

describe("a live collection over a Drizzle table on D1", () => {
  const logged = captureConsoleErrors();

  it("answers a write with an error that says only the SQL endpoints are live on D1 yet (workerd via Miniflare)", async () => {
    const d1 = await openD1Binding();
    try {
      await d1.binding.exec(
        "CREATE TABLE d1_tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, projectId INTEGER NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1)",
      );
      const meta = metaOf(sqliteTasks("d1_tasks"), "d1_tasks", changeFeed());
      class CreateD1Task extends DrizzleCreateEndpoint {
        _meta = meta;
      }
      const app = new Hono();
      fromHono(app, { db: drizzleD1(d1.binding) }).post("/projects/:projectId/tasks", CreateD1Task);
      const answer = await app.request("/projects/1/tasks", jsonBody({ title: "one" }));
      expect(answer.status).toBe(500);
      const messages = logged.map((call) => (call.find((arg) => arg instanceof Error) as Error | undefined)?.message);
      expect(messages).toContainEqual(expect.stringContaining("on D1 only the SQL endpoints"));
    } finally {
      await d1.close();
    }
  });
});
