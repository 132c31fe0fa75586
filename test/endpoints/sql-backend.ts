import {
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  type SqlDriver,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlTable,
  SqlUpdateEndpoint,
} from "../../src";
import type { Connection, Family } from "../sql/fixtures";
import type { CrudBackend } from "./crud.case";
import type { ModelSet } from "./model-set";
import { zodModels } from "./models";

/** DDL of the CRUD suite's two tables, per SQL family, with the defaults the suite expects. */
function ddl(family: Family): string[] {
  const id = {
    sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
    postgres: "SERIAL PRIMARY KEY",
    mysql: "INT AUTO_INCREMENT PRIMARY KEY",
  };
  const bool = family === "sqlite" ? "INTEGER NOT NULL DEFAULT 0" : "BOOLEAN NOT NULL DEFAULT FALSE";
  const q = (name: string) => (family === "mysql" ? `\`${name}\`` : `"${name}"`);
  return [
    `CREATE TABLE ${q("projects")} (${q("id")} ${id[family]}, ${q("name")} VARCHAR(60) NOT NULL UNIQUE, ${q("budget")} INTEGER NOT NULL DEFAULT 0)`,
    `CREATE TABLE ${q("tasks")} (${q("projectId")} INTEGER NOT NULL, ${q("id")} INTEGER NOT NULL, ${q("title")} VARCHAR(120) NOT NULL, ${q("priority")} INTEGER NOT NULL, ${q("status")} VARCHAR(10) NOT NULL, ${q("done")} ${bool}, ${q("notes")} TEXT NULL, PRIMARY KEY (${q("projectId")}, ${q("id")}))`,
  ];
}

function dropIfExists(family: Family, table: string): string {
  return family === "mysql" ? `DROP TABLE IF EXISTS \`${table}\`` : `DROP TABLE IF EXISTS "${table}"`;
}

/**
 * The CRUD suite's backend over a real SQL engine: the library's Sql*Endpoint classes, the database as a
 * router option. `rows` reads the tables through SqlTables over the same models the suite runs with.
 */
export function sqlBackend(
  name: string,
  family: Family,
  connect: () => Promise<Connection>,
  models: ModelSet = zodModels,
): CrudBackend {
  const tables: Record<string, SqlTable> = {
    projects: new SqlTable(models.projectMeta.model),
    tasks: new SqlTable(models.taskMeta.model),
  };
  let connection: Connection | undefined;
  const driver = (): SqlDriver => connection!.driver;
  return {
    name,
    Create: SqlCreateEndpoint,
    Read: SqlReadEndpoint,
    Update: SqlUpdateEndpoint,
    Delete: SqlDeleteEndpoint,
    List: SqlListEndpoint,
    get routerOptions() {
      return { db: connection?.driver };
    },
    async reset() {
      connection ??= await connect();
      for (const table of ["tasks", "projects"]) await driver().execute(dropIfExists(family, table), []);
      for (const statement of ddl(family)) await driver().execute(statement, []);
    },
    async rows(table) {
      const page = await tables[table]!.list(driver(), { filters: [], limit: 10_000, offset: 0 });
      return page.rows;
    },
    async close() {
      if (connection) {
        for (const table of ["tasks", "projects"]) await driver().execute(dropIfExists(family, table), []);
        await connection.close();
      }
      connection = undefined;
    },
  };
}
