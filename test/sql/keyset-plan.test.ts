import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { pgDriver, type SqlDriver, SqlTable } from "../../src/sql";

// On real PostgreSQL, with an index on (order column, primary key) and the table analyzed (no planner
// switches), every keyset page query is an index range scan: no sequential scan, no sort, no OFFSET.
const url = process.env.SPECROUTE_PG_URL;
const tableName = `cursor_plan_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
const Score = z.object({ id: z.number().int(), score: z.number().int(), note: z.string().nullable() });

/** A driver that runs nothing but remembers the statements it was given, the last one apart. */
function recorder(driver: SqlDriver) {
  const last = { sql: "", params: [] as unknown[] };
  const all: { sql: string; params: unknown[] }[] = [];
  const recording: SqlDriver = {
    dialect: driver.dialect,
    async query(sql, params) {
      Object.assign(last, { sql, params });
      all.push({ sql, params });
      return [];
    },
    execute: driver.execute.bind(driver),
  };
  return { driver: recording, last, all };
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

    async function explain(statement: { sql: string; params: unknown[] }) {
      const { rows } = await pool.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.params);
      return { sql: statement.sql, plan: nodes(rows[0]["QUERY PLAN"][0].Plan) };
    }

    async function planOf(query: Parameters<SqlTable["seek"]>[1]) {
      const { driver: recording, last } = recorder(driver);
      await table.seek(recording, query);
      expect(last.sql).not.toMatch(/OFFSET/i);
      return explain(last);
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

    it("reads a numbered page in primary key order, and the first row a filter matches, through an index without sorting", async () => {
      const { driver: recording, all } = recorder(driver);
      await table.list(recording, { filters: [], limit: 20, offset: 2000 });
      await table.selectOne(recording, [{ field: "score", operator: "EQ", value: 40 }]);
      const [page, one] = all.filter((statement) => /ORDER BY/.test(statement.sql));
      for (const statement of [page!, one!]) {
        const { sql, plan } = await explain(statement);
        const types = plan.map((node) => node["Node Type"]);
        expect(types, sql).not.toContain("Sort");
        expect(types, sql).not.toContain("Seq Scan");
      }
    });

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
