import { SqlListEndpoint, SqlTable } from "../../src";
import type { Connection, Family } from "../sql/fixtures";
import type { CursorBackend } from "./cursor.case";
import type { ModelSet } from "./model-set";
import { zodModels } from "./models";

function entriesDdl(family: Family, table: string): string {
  const q = (name: string) => (family === "mysql" ? `\`${name}\`` : `"${name}"`);
  const text = family === "mysql" ? "VARCHAR(40)" : "TEXT";
  return `CREATE TABLE ${q(table)} (${q("shelf")} INTEGER NOT NULL, ${q("id")} INTEGER NOT NULL, ${q("rank")} INTEGER NOT NULL, ${q("label")} ${text} NULL, ${q("title")} ${text} NOT NULL, PRIMARY KEY (${q("shelf")}, ${q("id")}))`;
}

/**
 * The cursor suite's storage on one engine: a table named for this run, written through a SqlTable over
 * the entry of `models` (zod's by default), the model the suite's endpoints serve.
 */
export function sqlCursorBackend(
  name: string,
  family: Family,
  connect: () => Promise<Connection>,
  models: ModelSet = zodModels,
): CursorBackend {
  const tableName = `cursor_entries_${family}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  const table = new SqlTable({ tableName, schema: models.EntrySchema, primaryKeys: ["shelf", "id"] });
  let connection: Connection | undefined;
  const quoted = () => connection!.driver.dialect.quote(tableName);
  return {
    name,
    List: SqlListEndpoint,
    get routerOptions() {
      return { db: connection?.driver };
    },
    async open() {
      connection = await connect();
      await connection.driver.execute(`DROP TABLE IF EXISTS ${quoted()}`, []);
      await connection.driver.execute(entriesDdl(family, tableName), []);
      return { tableName };
    },
    async replace(rows) {
      await connection!.driver.execute(`DELETE FROM ${quoted()}`, []);
      for (const row of rows) await table.insert(connection!.driver, row);
    },
    async insert(row) {
      await table.insert(connection!.driver, row);
    },
    async remove(key) {
      await table.delete(connection!.driver, [
        { field: "shelf", operator: "EQ", value: key.shelf },
        { field: "id", operator: "EQ", value: key.id },
      ]);
    },
    async close() {
      if (!connection) return;
      await connection.driver.execute(`DROP TABLE IF EXISTS ${quoted()}`, []);
      await connection.close();
      connection = undefined;
    },
  };
}
