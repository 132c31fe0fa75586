import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { pgDriver, type SqlDriver, SqlTable } from "../../src/sql";

// On real PostgreSQL, with an index on (order column, primary key) and the table analyzed (no planner
// switches), every keyset page query is an index range scan: no sequential scan, no sort, no OFFSET.
const url = process.env.SPECROUTE_PG_URL;
const tableName = `cursor_plan_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
const Score = z.object({ id: z.number().int(), score: z.number().int(), note: z.string().nullable() });

/** A driver that runs nothing but remembers the last statement it was given. */
function recorder(driver: SqlDriver) {
  const last = { sql: "", params: [] as unknown[] };
  const recording: SqlDriver = {
    dialect: driver.dialect,
    async query(sql, params) {
      Object.assign(last, { sql, params });
      return [];
    },
    execute: driver.execute.bind(driver),
  };
  return { driver: recording, last };
}

/** The plan nodes of a statement, depth first. */
function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe.skipIf(!url)(
  `keyset page plans on PostgreSQL (${url ? "SPECROUTE_PG_URL" : "SPECROUTE_PG_URL unset: skipped"})`,
  () => {
    let pool: pg.Pool;
    let driver: SqlDriver;
    const table = new SqlTable({ tableName, schema: Score, primaryKeys: ["id"] });

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: url, max: 2 });
      driver = pgDriver(pool);
      await pool.query(`DROP TABLE IF EXISTS "${tableName}"`);
      await pool.query(`CREATE TABLE "${tableName}" (id SERIAL PRIMARY KEY, score INTEGER NOT NULL, note TEXT)`);
      await pool.query(
        `INSERT INTO "${tableName}" (score, note) SELECT g % 97, CASE WHEN g % 5 = 0 THEN NULL ELSE md5(g::text) END FROM generate_series(1, 5000) g`,
      );
      await pool.query(`CREATE INDEX "${tableName}_score_id" ON "${tableName}" (score, id)`);
      await pool.query(`ANALYZE "${tableName}"`);
    });
    afterAll(async () => {
      await pool?.query(`DROP TABLE IF EXISTS "${tableName}"`);
      await pool?.end();
    });

    async function planOf(query: Parameters<SqlTable["seek"]>[1]) {
      const { driver: recording, last } = recorder(driver);
      await table.seek(recording, query);
      expect(last.sql).not.toMatch(/OFFSET/i);
      const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${last.sql}`, last.params);
      return { sql: last.sql, plan: nodes(rows[0]["QUERY PLAN"][0].Plan) };
    }

    const cases: [string, Parameters<SqlTable["seek"]>[1], string][] = [
      [
        "first page, ascending",
        { filters: [], orderBy: { column: "score", direction: "asc" }, limit: 20 },
        "_score_id",
      ],
      [
        "next page, ascending",
        {
          filters: [],
          orderBy: { column: "score", direction: "asc" },
          limit: 20,
          from: { direction: "next", key: { score: 40, id: 2500 } },
        },
        "_score_id",
      ],
      [
        "next page, descending",
        {
          filters: [],
          orderBy: { column: "score", direction: "desc" },
          limit: 20,
          from: { direction: "next", key: { score: 40, id: 2500 } },
        },
        "_score_id",
      ],
      [
        "previous page, ascending",
        {
          filters: [],
          orderBy: { column: "score", direction: "asc" },
          limit: 20,
          from: { direction: "prev", key: { score: 40, id: 2500 } },
        },
        "_score_id",
      ],
      [
        "next page in primary key order",
        { filters: [], limit: 20, from: { direction: "next", key: { id: 2500 } } },
        "_pkey",
      ],
    ];

    for (const [title, query, index] of cases) {
      it(`${title}: an index scan on ${index}, no sequential scan, no sort`, async () => {
        const { sql, plan } = await planOf(query);
        const types = plan.map((node) => node["Node Type"]);
        expect(types, sql).not.toContain("Seq Scan");
        expect(types, sql).not.toContain("Sort");
        const scan = plan.find((node) => /Index( Only)? Scan/.test(node["Node Type"]));
        expect(scan?.["Index Name"], sql).toBe(`${tableName}${index}`);
        if (query.from) expect(scan["Index Cond"], sql).toMatch(/ROW\(score, id\) [<>] ROW|\(id [<>] /);
      });
    }

    it("returns the same rows as the whole ordered table, page after page", async () => {
      const { rows: all } = await pool.query(`SELECT id FROM "${tableName}" ORDER BY score DESC, id DESC`);
      const seen: number[] = [];
      let from: { direction: "next"; key: Record<string, unknown> } | undefined;
      for (let guard = 0; guard < 100; guard++) {
        const page = await table.seek(driver, {
          filters: [],
          orderBy: { column: "score", direction: "desc" },
          limit: 100,
          from,
        });
        seen.push(...page.rows.map((row) => row.id as number));
        if (!page.hasMore) break;
        const last = page.rows[page.rows.length - 1]!;
        from = { direction: "next", key: { score: last.score, id: last.id } };
      }
      expect(seen).toEqual(all.map((row) => row.id));
    });
  },
);
