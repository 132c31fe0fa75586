import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, it } from "vitest";
import { betterSqlite3Driver, SqlChangeLog } from "../../src";
import { listenOnLoopback } from "../helpers";
import { deliversEveryChange } from "./scenario";
import { createTable, tasksApp } from "./tasks-app";

// The reconnect scenario of scenario.ts in one process on SQLite: the polling broker's `committed`
// wakes this process's listeners at once, and the log replays what the cut listener missed.

const driver = betterSqlite3Driver(new Database(":memory:"));
let server: Awaited<ReturnType<typeof listenOnLoopback>>;

beforeAll(async () => {
  await createTable(driver, "tasks");
  const { app } = tasksApp(driver, "tasks");
  server = await listenOnLoopback((request, env) => app.fetch(request, env));
});
afterAll(async () => {
  await server?.close();
  await driver.close?.();
});

describe("a live collection in one process on SQLite", () => {
  it("delivers every change to every listener whose filter it meets, in commit order, none lost or twice, across a reconnect", async () => {
    await deliversEveryChange({
      origins: [server.origin],
      listeners: 10,
      writers: 4,
      writes: 400,
      readLog: () => new SqlChangeLog().readAfter(driver, "tasks", 0, 1000),
    });
  }, 120_000);
});
