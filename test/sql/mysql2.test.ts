import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DatabaseError, mariadbDialect, mysql2Driver, mysqlDialect, SqlTable } from "../../src/sql";
import { describeTableSuite } from "./table.case";

const url = process.env.SPECROUTE_MYSQL_URL;

// The same server under both dialects: mysqlDialect re-selects every written row (plain MySQL has no
// RETURNING), mariadbDialect uses INSERT/DELETE ... RETURNING.
for (const dialect of [mysqlDialect, mariadbDialect]) {
  describeTableSuite({
    name: `mysql2 (${dialect.name} dialect)`,
    family: "mysql",
    skipReason: url ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const pool = mysql.createPool({ uri: url, connectionLimit: 4 });
      const driver = mysql2Driver(pool, { dialect });
      return { driver, close: () => driver.close!() };
    },
  });
}

// MyISAM numbers an AUTO_INCREMENT column that follows another key column per value of that column, so
// the id it reports is no key by itself: with the group left to its default, only RETURNING knows the row.
describe.skipIf(!url)("mysql2: a row whose key the engine generated only in part", () => {
  const tableName = `sr_groups_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  const Numbered = z.object({ grp: z.number().int(), id: z.number().int(), name: z.string() });
  const table = new SqlTable({ tableName, schema: Numbered, primaryKeys: ["grp", "id"] });
  let pool: mysql.Pool;

  beforeAll(async () => {
    pool = mysql.createPool({ uri: url, connectionLimit: 2 });
    await pool.query(
      `CREATE TABLE \`${tableName}\` (\`grp\` INT NOT NULL DEFAULT 0, \`id\` INT NOT NULL AUTO_INCREMENT, \`name\` VARCHAR(50) NOT NULL, PRIMARY KEY (\`grp\`, \`id\`)) ENGINE = MyISAM`,
    );
  });
  afterAll(async () => {
    await pool?.query(`DROP TABLE IF EXISTS \`${tableName}\``);
    await pool?.end();
  });

  for (const dialect of [mysqlDialect, mariadbDialect]) {
    it(`is never answered with another row (${dialect.name} dialect)`, async () => {
      const driver = mysql2Driver(pool, { dialect });
      await pool.query(`DELETE FROM \`${tableName}\``);
      // Group 1's first id is 1, and so is group 0's: (grp = 1, id = 1) is the row a guess would find.
      expect(await table.insert(driver, { grp: 1, name: "theirs" })).toEqual({ grp: 1, id: 1, name: "theirs" });
      const inserting = table.insert(driver, { name: "mine" });
      if (dialect.returning.insert) await expect(inserting).resolves.toEqual({ grp: 0, id: 1, name: "mine" });
      else await expect(inserting).rejects.toBeInstanceOf(DatabaseError);
      const [stored] = await pool.query(`SELECT grp, id, name FROM \`${tableName}\` ORDER BY grp`);
      expect(stored).toEqual([
        { grp: 0, id: 1, name: "mine" },
        { grp: 1, id: 1, name: "theirs" },
      ]);
    });
  }
});
