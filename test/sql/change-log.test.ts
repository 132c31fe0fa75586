import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  betterSqlite3Driver,
  CHANGE_HEADS_TABLE,
  CHANGES_TABLE,
  changeLogTables,
  mariadbDialect,
  mysql2Driver,
  mysqlDialect,
  pgDriver,
  pgliteDriver,
  postgresBroker,
  SqlChangeLog,
  type SqlDriver,
} from "../../src/sql";
import { describeChangeLogSuite, eventually, sleep } from "./change-log.case";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

describeChangeLogSuite({
  name: "better-sqlite3 (memory)",
  family: "sqlite",
  async connect() {
    const db = new Database(":memory:");
    return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
  },
});

describeChangeLogSuite({
  name: "better-sqlite3 (file)",
  family: "sqlite",
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "specroute-changes-"));
    const db = new Database(join(dir, "test.db"));
    db.pragma("journal_mode = WAL");
    return {
      driver: betterSqlite3Driver(db),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describeChangeLogSuite({
  name: "pglite",
  family: "postgres",
  async connect() {
    const db = new PGlite();
    return { driver: pgliteDriver(db), close: () => db.close() };
  },
});

describeChangeLogSuite({
  name: "postgresql (pg)",
  family: "postgres",
  skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
  async connect() {
    // Writers and the reader each on their own connection, so they really run side by side.
    const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 10 }));
    return { driver, close: () => driver.close!() };
  },
});

for (const dialect of [mysqlDialect, mariadbDialect]) {
  describeChangeLogSuite({
    name: `mysql2 (${dialect.name} dialect)`,
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 10 }), { dialect });
      return { driver, close: () => driver.close!() };
    },
  });
}

describe.skipIf(!pgUrl)("PostgreSQL notifications: the pg driver's listen and postgresBroker", () => {
  const id = randomUUID().slice(0, 8);
  // Its own application_name, so a test can find the listening connection among the shared server's.
  const applicationName = `specroute-listen-${id}`;
  const pool = new pg.Pool({ connectionString: pgUrl, max: 4, application_name: applicationName });
  const driver = pgDriver(pool);
  const log = new SqlChangeLog();
  let counter = 0;
  const fresh = (label: string) => `pgn-${id}-${label}-${++counter}`;
  const change = { kind: "created", row: { id: 1 }, before: null } as const;

  beforeAll(() => log.ready(driver));
  afterAll(async () => {
    for (const table of [CHANGES_TABLE, CHANGE_HEADS_TABLE]) {
      await driver.execute(`DELETE FROM "${table}" WHERE "collection" LIKE $1`, [`pgn-${id}-%`]);
    }
    await driver.close!();
  });

  it("wakes a watcher when a recording transaction commits, not while it runs, not when it rolls back", async () => {
    const collection = fresh("commit");
    const broker = postgresBroker(driver);
    let wakes = 0;
    const stop = await broker.watch(collection, () => wakes++);
    await expect(
      driver.transaction!(async (tx) => {
        await log.record(tx, collection, [change]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await driver.transaction!(async (tx) => {
      await log.record(tx, collection, [change]);
      await sleep(150);
      expect(wakes).toBe(0);
    });
    expect(await eventually(() => wakes === 1)).toBe(true);
    await sleep(150);
    expect(wakes).toBe(1);
    await broker.committed(collection);
    expect(wakes).toBe(1);
    await stop();
  });

  it("wakes only the watchers of the collection that changed, and gives the listening connection back when none is left", async () => {
    const [a, b] = [fresh("a"), fresh("b")];
    const broker = postgresBroker(driver);
    const woken: string[] = [];
    const stopA = await broker.watch(a, () => woken.push("a"));
    const stopB = await broker.watch(b, () => woken.push("b"));
    expect(pool.totalCount - pool.idleCount).toBe(1);
    await driver.transaction!((tx) => log.record(tx, b, [change]));
    expect(await eventually(() => woken.length === 1)).toBe(true);
    expect(woken).toEqual(["b"]);
    await stopB();
    await driver.transaction!((tx) => log.record(tx, b, [change]));
    await driver.transaction!((tx) => log.record(tx, a, [change]));
    expect(await eventually(() => woken.length === 2)).toBe(true);
    await sleep(100);
    expect(woken).toEqual(["b", "a"]);
    await stopA();
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it("logs a lost listening connection, wakes every watcher, and listens again by itself while any watches", async () => {
    const [a, b] = [fresh("lost-a"), fresh("lost-b")];
    const broker = postgresBroker(driver);
    const woken: string[] = [];
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const stopA = await broker.watch(a, () => woken.push("a"));
      const stopB = await broker.watch(b, () => woken.push("b"));
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
          [applicationName],
        );
        expect(rows).toEqual([{ ended: true }]);
      } finally {
        await admin.end();
      }
      expect(await eventually(() => woken.length === 2)).toBe(true);
      expect([...woken].sort()).toEqual(["a", "b"]);
      expect(logged).toHaveBeenCalledWith(
        "[specroute] lost the PostgreSQL connection listening for notifications:",
        expect.any(Error),
      );
      // No new watch comes: the broker listens again by itself, a second later, and wakes both once more.
      expect(await eventually(() => woken.length === 4, 5000)).toBe(true);
      expect([...woken.slice(2)].sort()).toEqual(["a", "b"]);
      await driver.transaction!((tx) => log.record(tx, b, [change]));
      expect(await eventually(() => woken.length === 5)).toBe(true);
      expect(woken[4]).toBe("b");
      await stopA();
      await stopB();
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      logged.mockRestore();
    }
  });

  it("listens over a single Client too, until unlistened", async () => {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    const single = pgDriver(client);
    const channel = `specroute_test_${id}`;
    const payloads: string[] = [];
    try {
      const stop = await single.listen!(channel, (payload) => payloads.push(payload));
      await driver.query("SELECT pg_notify($1, $2)", [channel, "one"]);
      expect(await eventually(() => payloads.length === 1)).toBe(true);
      await stop();
      await driver.query("SELECT pg_notify($1, $2)", [channel, "two"]);
      await sleep(150);
      expect(payloads).toEqual(["one"]);
    } finally {
      await single.close!();
    }
  });

  it("refuses a driver that cannot listen", () => {
    const db = new Database(":memory:");
    expect(() => postgresBroker(betterSqlite3Driver(db))).toThrow(TypeError);
    db.close();
  });
});

/** Drivers that race to create the change log's tables in a schema or database of their own, dropped after. */
interface FreshDatabase {
  drivers: SqlDriver[];
  drop(): Promise<void>;
}

const freshDatabases: Array<[string, string | undefined, () => Promise<FreshDatabase>]> = [
  [
    "postgresql (pg), a schema of its own",
    pgUrl,
    async () => {
      const schema = `specroute_ready_${randomUUID().slice(0, 8)}`;
      const admin = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 1 }));
      await admin.execute(`CREATE SCHEMA "${schema}"`, []);
      const drivers = Array.from({ length: 4 }, () =>
        pgDriver(new pg.Pool({ connectionString: pgUrl, max: 2, options: `-c search_path=${schema}` })),
      );
      return {
        drivers,
        async drop() {
          for (const driver of drivers) await driver.close!();
          await admin.execute(`DROP SCHEMA "${schema}" CASCADE`, []);
          await admin.close!();
        },
      };
    },
  ],
  [
    "mysql2 (mariadb dialect), a database of its own",
    mysqlUrl,
    async () => {
      const database = `specroute_ready_${randomUUID().slice(0, 8)}`;
      const admin = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 1 }));
      await admin.execute(`CREATE DATABASE \`${database}\``, []);
      const drivers = Array.from({ length: 4 }, () =>
        mysql2Driver(mysql.createPool({ uri: mysqlUrl, database, connectionLimit: 2 }), { dialect: mariadbDialect }),
      );
      return {
        drivers,
        async drop() {
          for (const driver of drivers) await driver.close!();
          await admin.execute(`DROP DATABASE \`${database}\``, []);
          await admin.close!();
        },
      };
    },
  ],
];

for (const [name, url, open] of freshDatabases) {
  describe.skipIf(!url)(`SqlChangeLog.ready on ${name}`, () => {
    it("creates the tables once, also when several processes race to, and a write then reads back anywhere", async () => {
      const fresh = await open();
      try {
        const [first, ...others] = fresh.drivers;
        // Each driver its own log instance, as separate processes would be.
        await Promise.all(fresh.drivers.map((driver) => new SqlChangeLog().ready(driver)));
        const log = new SqlChangeLog();
        await first.transaction!((tx) => log.record(tx, "race", [{ kind: "created", row: { id: 1 }, before: null }]));
        for (const other of others) expect(await log.bounds(other, "race")).toEqual({ oldest: 1, newest: 1 });
        // The DDL for migrations is the same, and may run again.
        for (const statement of changeLogTables(first.dialect)) await first.execute(statement, []);
        expect(await log.readAfter(first, "race", 0, 10)).toMatchObject([{ seq: 1, row: { id: 1 } }]);
      } finally {
        await fresh.drop();
      }
    });
  });
}

describe("SqlChangeLog.ready on better-sqlite3", () => {
  it("creates the tables on a database that has none, and a failed creation is tried again", async () => {
    const db = new Database(":memory:");
    const driver = betterSqlite3Driver(db);
    const log = new SqlChangeLog();
    const names = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(names()).toEqual([]);
    expect(await log.bounds(driver, "tasks")).toEqual({ oldest: 0, newest: 0 });
    expect(names()).toEqual([{ name: CHANGE_HEADS_TABLE }, { name: CHANGES_TABLE }]);
    db.close();
    const other = new Database(":memory:");
    const real = betterSqlite3Driver(other);
    // The real database, its first two statements refused (the creation and its one retry).
    let refusals = 2;
    const flaky: SqlDriver = {
      ...real,
      execute: (sql, params) => (refusals-- > 0 ? Promise.reject(new Error("busy")) : real.execute(sql, params)),
    };
    await expect(log.ready(flaky)).rejects.toThrow("busy");
    await log.ready(flaky);
    expect(await log.bounds(flaky, "tasks")).toEqual({ oldest: 0, newest: 0 });
    other.close();
  });
});
