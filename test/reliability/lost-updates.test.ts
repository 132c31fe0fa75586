import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  mysql2Driver,
  pgDriver,
  pgliteDriver,
  SqlCreateEndpoint,
  type SqlDriver,
  SqlUpdateEndpoint,
} from "../../src";
import { harnesses, jsonBody } from "../helpers";
import type { Connection, Family } from "../sql/fixtures";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

// One PATCH per field, all in flight at once. `npm test` runs 250 (every request reads and writes the
// whole row, so the cost grows with its width); SPECROUTE_LOST_UPDATE_FIELDS=1000 runs the full size.
const FIELDS = Number(process.env.SPECROUTE_LOST_UPDATE_FIELDS ?? 250);
const names = Array.from({ length: FIELDS }, (_, i) => `f${i}`);

/** A run of the suite on one engine; table names carry a suffix so parallel runs on a shared server never meet. */
function runLostUpdateSuite(engine: string, family: Family, connect: () => Promise<Connection>) {
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const wideTable = `lu_wide_${suffix}`;
  const accountTable = `lu_accounts_${suffix}`;
  const q = (name: string) => (family === "mysql" ? `\`${name}\`` : `"${name}"`);
  const Wide = z.object({
    id: z.number().int(),
    ...Object.fromEntries(names.map((name) => [name, z.number().int().default(0)])),
  });
  const Account = z.object({ id: z.number().int(), handle: z.string().min(1).max(40) });
  const wideMeta = { model: { tableName: wideTable, schema: Wide, primaryKeys: ["id"] } };
  const accountMeta = { model: { tableName: accountTable, schema: Account, primaryKeys: ["id"] } };
  class PatchWide extends SqlUpdateEndpoint {
    _meta = wideMeta;
  }
  class CreateAccount extends SqlCreateEndpoint {
    _meta = { ...accountMeta, fields: Account.omit({ id: true }) };
  }

  let connection: Connection;
  let driver: SqlDriver;
  const generatedId = {
    sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
    postgres: "SERIAL PRIMARY KEY",
    mysql: "INT AUTO_INCREMENT PRIMARY KEY",
  };
  beforeAll(async () => {
    connection = await connect();
    driver = connection.driver;
    const columns = names.map((name) => `${q(name)} INTEGER NOT NULL DEFAULT 0`).join(", ");
    await driver.execute(`CREATE TABLE ${q(wideTable)} (${q("id")} INTEGER PRIMARY KEY, ${columns})`, []);
    await driver.execute(
      `CREATE TABLE ${q(accountTable)} (${q("id")} ${generatedId[family]}, ${q("handle")} VARCHAR(40) NOT NULL UNIQUE)`,
      [],
    );
  });
  afterAll(async () => {
    for (const table of [wideTable, accountTable]) await driver.execute(`DROP TABLE IF EXISTS ${q(table)}`, []);
    await connection.close();
  });

  for (const harness of harnesses) {
    describe(`${harness.name} × ${engine}: concurrent writes lose nothing`, () => {
      it(`keeps all of ${FIELDS} concurrent PATCHes of distinct fields on one row`, { timeout: 300_000 }, async () => {
        const id = harness.name === "hono" ? 1 : 2;
        await driver.execute(`INSERT INTO ${q(wideTable)} (${q("id")}) VALUES (${id})`, []);
        const { router, request } = harness.make({ db: driver });
        router.patch("/wide/:id", PatchWide);
        const responses = await Promise.all(
          names.map(async (name, i) => {
            const response = await request(`/wide/${id}`, jsonBody({ [name]: i + 1 }, { method: "PATCH" }));
            return { name, i, status: response.status, body: await response.json() };
          }),
        );
        // Each answer shows its own write.
        expect(responses.filter(({ status, body, name, i }) => status !== 200 || body.result[name] !== i + 1)).toEqual(
          [],
        );
        const [row] = await driver.query<Record<string, unknown>>(
          `SELECT * FROM ${q(wideTable)} WHERE ${q("id")} = ${id}`,
          [],
        );
        const lost = names.filter((name, i) => Number(row![name]) !== i + 1);
        expect(lost).toEqual([]);
      });

      it("answers concurrent creates of one unique key with exactly one 201 and 409 for the rest", async () => {
        const { router, request } = harness.make({ db: driver });
        router.post("/accounts", CreateAccount);
        const handles = Array.from({ length: 20 }, (_, i) => `${harness.name}-user-${i}`);
        const attempts = handles.flatMap((handle) => Array.from({ length: 10 }, () => handle));
        const responses = await Promise.all(
          attempts.map(async (handle) => {
            const response = await request("/accounts", jsonBody({ handle }));
            return { handle, status: response.status, body: await response.json() };
          }),
        );
        for (const handle of handles) {
          const mine = responses.filter((response) => response.handle === handle);
          expect(
            mine.filter(({ status }) => status === 201),
            handle,
          ).toHaveLength(1);
          const conflicts = mine.filter(({ status }) => status === 409);
          expect(conflicts, handle).toHaveLength(9);
          for (const { body } of conflicts) expect(body).toMatchObject({ success: false, errors: [{ code: 7006 }] });
        }
        const stored = await driver.query<{ handle: string }>(
          `SELECT ${q("handle")} FROM ${q(accountTable)} WHERE ${q("handle")} LIKE '${harness.name}-%'`,
          [],
        );
        expect(stored.map((row) => row.handle).sort()).toEqual([...handles].sort());
      });
    });
  }
}

runLostUpdateSuite("sqlite", "sqlite", async () => {
  const db = new Database(":memory:");
  return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
});
runLostUpdateSuite("pglite", "postgres", async () => {
  const db = new PGlite();
  return { driver: pgliteDriver(db), close: () => db.close() };
});
describe.skipIf(!pgUrl)(`postgresql (${pgUrl ? "SPECROUTE_PG_URL" : "SPECROUTE_PG_URL unset: skipped"})`, () => {
  runLostUpdateSuite("postgresql", "postgres", async () => {
    const driver = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 8 }));
    return { driver, close: () => driver.close!() };
  });
});
describe.skipIf(!mysqlUrl)(
  `mariadb (${mysqlUrl ? "SPECROUTE_MYSQL_URL" : "SPECROUTE_MYSQL_URL unset: skipped"})`,
  () => {
    runLostUpdateSuite("mariadb", "mysql", async () => {
      const driver = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 8 }));
      return { driver, close: () => driver.close!() };
    });
  },
);
