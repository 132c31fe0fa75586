import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { Hono } from "hono";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { betterSqlite3Driver, D1ListEndpoint, fromHono, mysql2Driver, pgDriver, pgliteDriver } from "../../src";
import { harnesses } from "../helpers";
import { EntrySchema, runCursorSuite } from "./cursor.case";
import { sqlCursorBackend } from "./cursor-sql-backend";
import { connectD1ThroughWorker, openD1ThroughWorker } from "./d1";

// The cursor suite on every engine, through SqlListEndpoint (keyset SQL) and both adapters.
const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

for (const harness of harnesses) {
  runCursorSuite(
    harness,
    sqlCursorBackend("sqlite", "sqlite", async () => {
      const db = new Database(":memory:");
      return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
    }),
  );
  // Statements run inside workerd, one request each, not through Miniflare's synchronous binding proxy:
  // on a loaded machine the proxy lost a reply and failed every later statement, or a walk outlasted
  // the test timeout (see openD1ThroughWorker).
  runCursorSuite(harness, sqlCursorBackend("d1 (miniflare)", "sqlite", connectD1ThroughWorker));
  runCursorSuite(
    harness,
    sqlCursorBackend("pglite", "postgres", async () => {
      const db = new PGlite();
      return { driver: pgliteDriver(db), close: () => db.close() };
    }),
  );
  describe.skipIf(!pgUrl)(`postgresql (${pgUrl ? "SPECROUTE_PG_URL" : "SPECROUTE_PG_URL unset: skipped"})`, () => {
    runCursorSuite(
      harness,
      sqlCursorBackend("postgresql", "postgres", async () => {
        const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 4 }));
        return { driver, close: () => driver.close!() };
      }),
    );
  });
  describe.skipIf(!mysqlUrl)(
    `mariadb (${mysqlUrl ? "SPECROUTE_MYSQL_URL" : "SPECROUTE_MYSQL_URL unset: skipped"})`,
    () => {
      runCursorSuite(
        harness,
        sqlCursorBackend("mariadb", "mysql", async () => {
          const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 }));
          return { driver, close: () => driver.close!() };
        }),
      );
    },
  );
}

describe("D1ListEndpoint with cursors, its D1 binding read from env (workerd via Miniflare)", () => {
  let d1: Awaited<ReturnType<typeof openD1ThroughWorker>>;
  beforeAll(async () => {
    d1 = await openD1ThroughWorker();
    await d1.binding
      .prepare(
        "CREATE TABLE cursor_d1_entries (shelf INTEGER NOT NULL, id INTEGER NOT NULL, rank INTEGER NOT NULL, label TEXT, title TEXT NOT NULL, PRIMARY KEY (shelf, id))",
      )
      .run();
    await d1.binding
      .prepare(
        "INSERT INTO cursor_d1_entries WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25) SELECT 1 + i % 2, i, i % 3, CASE WHEN i % 4 = 0 THEN NULL ELSE 'x' || (i % 5) END, 't' || i FROM n",
      )
      .run();
  });
  afterAll(() => d1.close());

  it("walks the table by next_cursor, every row once, NULL labels first", async () => {
    class ListEntries extends D1ListEndpoint {
      _meta = { model: { tableName: "cursor_d1_entries", schema: EntrySchema, primaryKeys: ["shelf", "id"] } };
      pagination = "cursor" as const;
      orderByFields = ["label"];
    }
    const app = new Hono();
    fromHono(app).get("/entries", ListEntries);
    const seen: any[] = [];
    let query = "/entries?per_page=4";
    for (let guard = 0; guard < 20; guard++) {
      const response = await app.request(query, undefined, { DB: d1.binding });
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      seen.push(...body.result);
      if (!body.result_info.next_cursor) break;
      query = `/entries?per_page=4&cursor=${body.result_info.next_cursor}`;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen.map((row) => `${row.shelf}/${row.id}`)).size).toBe(25);
    const labels = seen.map((row) => row.label);
    expect(labels.slice(0, 6)).toEqual([null, null, null, null, null, null]);
    expect(labels.slice(6)).toEqual([...labels.slice(6)].sort());
  });
});
