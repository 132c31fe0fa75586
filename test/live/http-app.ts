// The tasks API of tasks-app.ts served over real HTTP on each database engine the environment has (SQLite
// always; MariaDB and PostgreSQL when SPECROUTE_MYSQL_URL and SPECROUTE_PG_URL are set), with clients and
// the steps the live-collection tests take: create, update, listen, take events. Each test file calls
// `closeLiveApps()` once, after all.
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { betterSqlite3Driver, type ChangeFeedOptions, mysql2Driver, pgDriver, type SqlDriver } from "../../src";
import { createClient } from "../../src/client";
import { mariadbDialect } from "../../src/sql";
import { listenOnLoopback } from "../helpers";
import { createTable, type TasksAppOptions, type TasksRouter, tasksApp } from "./tasks-app";

/** A table of its own per app, so apps on a shared database never meet. */
let tables = 0;

const servers: Array<{ close(): Promise<void> }> = [];
const closers: Array<() => Promise<void> | void> = [];

/** Stops every server this module started and closes every database it opened. */
export async function closeLiveApps(): Promise<void> {
  for (const server of servers.splice(0)) await server.close();
  for (const close of closers.splice(0)) await close();
}

/** The tasks API of `table` on `driver`, served on 127.0.0.1, with a writer ("w") and a reader ("r") client. */
export async function serveTasks(
  driver: SqlDriver,
  table: string,
  feedOptions?: ChangeFeedOptions,
  appOptions?: TasksAppOptions,
) {
  const { app, feed, router } = tasksApp(driver, table, feedOptions, appOptions);
  const server = await listenOnLoopback((request, env) => app.fetch(request, env));
  servers.push(server);
  const writer = createClient<TasksRouter>(server.origin, { headers: { "x-key": "w" } });
  const reader = createClient<TasksRouter>(server.origin, { headers: { "x-key": "r" } });
  /** A client with the key `key` (a tenant's is "t<n>"). */
  const withKey = (key: string) => createClient<TasksRouter>(server.origin, { headers: { "x-key": key } });
  return { origin: server.origin, writer, reader, withKey, feed, router };
}

export type Client = Awaited<ReturnType<typeof serveTasks>>["writer"];
/** An event of a changes stream, as the typed client reads it. */
export type LiveEvent = { event: string; id?: string; data: any };

export async function create(writer: Client, projectId: number, title: string, done = false): Promise<number> {
  const answer = await writer.post("/projects/:projectId/tasks", { param: { projectId }, json: { title, done } });
  if (!answer.ok) throw new Error(`create answered ${answer.status}`);
  return answer.data.result.id;
}

export async function update(writer: Client, projectId: number, id: number, json: { title?: string; done?: boolean }) {
  const answer = await writer.patch("/projects/:projectId/tasks/:id", { param: { projectId, id }, json });
  if (!answer.ok) throw new Error(`update answered ${answer.status}`);
}

/** The next `count` events of a stream (heartbeats are comments, which the client skips); fewer when it ends. */
export async function take<T>(events: AsyncIterator<T>, count: number): Promise<T[]> {
  const taken: T[] = [];
  while (taken.length < count) {
    const next = await events.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

/** One listener of project `projectId`, with a `Last-Event-ID` and `done` as the filter when given. */
export async function listen(
  reader: Client,
  projectId: number,
  options: { done?: boolean; lastEventId?: string } = {},
): Promise<AsyncIterator<LiveEvent>> {
  const answer = await reader.get("/projects/:projectId/tasks/changes", {
    param: { projectId },
    ...(options.done === undefined ? {} : { query: { done: options.done } }),
    ...(options.lastEventId === undefined ? {} : { header: { "Last-Event-ID": options.lastEventId } }),
  });
  if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
  return answer.data[Symbol.asyncIterator]() as AsyncIterator<LiveEvent>;
}

/** The events of a changes stream, read as Server-Sent Events until `until` says the last one came. */
export async function readStream(response: Response, until: (event: LiveEvent) => boolean): Promise<LiveEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: LiveEvent[] = [];
  let buffer = "";
  while (events.length === 0 || !until(events.at(-1)!)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const fields = Object.fromEntries(
        buffer
          .slice(0, end)
          .split("\n")
          .filter((line) => !line.startsWith(":"))
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
      );
      buffer = buffer.slice(end + 2);
      if (fields.event) events.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data) });
      end = buffer.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return events;
}

export interface Engine {
  name: string;
  /** The engine's driver (a second pool on PostgreSQL, standing in for a second process). */
  open(): Promise<{ driver: SqlDriver; second?: SqlDriver }>;
}

export const pgUrl = process.env.SPECROUTE_PG_URL;
export const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

export const engines: Engine[] = [
  {
    name: "SQLite (better-sqlite3)",
    async open() {
      const db = new Database(":memory:");
      closers.push(() => {
        db.close();
      });
      return { driver: betterSqlite3Driver(db) };
    },
  },
];
if (mysqlUrl) {
  let pool: SqlDriver | undefined;
  engines.push({
    name: "MariaDB/MySQL",
    async open() {
      if (!pool) {
        const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 }), {
          dialect: mariadbDialect,
        });
        closers.push(() => driver.close!());
        pool = driver;
      }
      return { driver: pool };
    },
  });
}
if (pgUrl) {
  // One pair of pools per test file: PostgreSQL's connections are shared with every suite running at once.
  let pools: { driver: SqlDriver; second: SqlDriver } | undefined;
  engines.push({
    name: "PostgreSQL",
    async open() {
      if (!pools) {
        pools = {
          driver: pgDriver(new pg.Pool({ connectionString: pgUrl, max: 4 })),
          second: pgDriver(new pg.Pool({ connectionString: pgUrl, max: 4 })),
        };
        const { driver, second } = pools;
        // close(), not the pool's end(): it gives back the connection a listen holds first.
        closers.push(
          () => driver.close!(),
          () => second.close!(),
        );
      }
      return pools;
    },
  });
}

/**
 * A token of this module's evaluation: a test file run again in one process (Stryker's runs of each
 * mutant, in worker threads that share the pid) counts its tables from 1 again, and on PostgreSQL or
 * MariaDB the change log would still hold the last run's changes under the same collection name.
 */
const evaluation = randomUUID().slice(0, 8);

/** A fresh table's name, unique in this run and in any other run of this file. */
export function freshTable(): string {
  return `live_tasks_${process.pid}_${evaluation}_${++tables}`;
}

/**
 * The tasks API over a table of its own on `engine`, served over HTTP; `driver` and `table` for statements
 * of the test's own. `wrap` puts something between the app and the engine's driver (a counter).
 */
export async function freshApp(
  engine: Engine,
  feedOptions?: ChangeFeedOptions,
  appOptions?: TasksAppOptions & { wrap?: (driver: SqlDriver) => SqlDriver },
) {
  const { driver } = await engine.open();
  const table = freshTable();
  await createTable(driver, table);
  const served = appOptions?.wrap ? appOptions.wrap(driver) : driver;
  return { driver, table, ...(await serveTasks(served, table, feedOptions, appOptions)) };
}
