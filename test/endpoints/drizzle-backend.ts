import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { and, asc, eq, type Table } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzleD1 } from "drizzle-orm/d1";
import * as my from "drizzle-orm/mysql-core";
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import * as pgc from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import * as lite from "drizzle-orm/sqlite-core";
import mysql from "mysql2/promise";
import pg from "pg";
import { betterSqlite3Driver, d1Driver, mysql2Driver, pgDriver, pgliteDriver } from "../../src";
import {
  DrizzleCreateEndpoint,
  type DrizzleDatabase,
  DrizzleDeleteEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
} from "../../src/drizzle";
import type { Connection, EngineUnderTest, Family } from "../sql/fixtures";
import type { BulkStorage } from "./bulk-and-filters.case";
import type { ConditionalStorage } from "./conditional.case";
import type { CrudBackend } from "./crud.case";
import type { CursorBackend, Entry } from "./cursor.case";
import { openD1ThroughWorker } from "./d1";

/** One client reached two ways: specroute's SQL driver (DDL, checks) and the app's Drizzle database over the same client. */
export interface DrizzleConnection extends Connection {
  db: DrizzleDatabase;
}

export interface DrizzleEngine extends EngineUnderTest {
  connect(): Promise<DrizzleConnection>;
}

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

/** Every engine the contract suites run the Drizzle endpoints on, each over the Drizzle driver apps use there. */
export const drizzleEngines: DrizzleEngine[] = [
  {
    name: "sqlite (drizzle, better-sqlite3)",
    family: "sqlite",
    async connect() {
      const client = new Database(":memory:");
      return { driver: betterSqlite3Driver(client), db: drizzleSqlite(client), close: async () => void client.close() };
    },
  },
  {
    name: "d1 (drizzle, workerd via miniflare)",
    family: "sqlite",
    async connect() {
      const { binding, close } = await openD1ThroughWorker();
      // any: the binding has the members Drizzle's D1 session calls, not the whole D1Database type.
      return { driver: d1Driver(binding), db: drizzleD1(binding as any), close };
    },
  },
  {
    name: "pglite (drizzle)",
    family: "postgres",
    async connect() {
      const client = new PGlite();
      return { driver: pgliteDriver(client), db: drizzlePglite(client), close: () => client.close() };
    },
  },
  {
    name: "postgresql (drizzle, node-postgres pool)",
    family: "postgres",
    skipReason: pgUrl ? undefined : "SPECROUTE_PG_URL is not set",
    async connect() {
      const pool = new pg.Pool({ connectionString: pgUrl, max: 8 });
      return { driver: pgDriver(pool), db: drizzlePg(pool), close: () => pool.end() };
    },
  },
  {
    name: "mariadb (drizzle, mysql2 pool)",
    family: "mysql",
    skipReason: mysqlUrl ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const pool = mysql.createPool({ uri: mysqlUrl, connectionLimit: 8 });
      return { driver: mysql2Driver(pool), db: drizzleMysql(pool), close: () => pool.end() };
    },
  },
];

type Abstract = abstract new (...args: any[]) => any;

/**
 * The five Drizzle endpoints serving the suites' own Metas (hand-written zod models) over Drizzle
 * tables found by the model's table name: `drizzleTable()` is the hook for exactly that.
 */
export function drizzleEndpoints(tables: () => Record<string, Table>) {
  const onTables = <T extends Abstract>(Base: T): T => {
    abstract class OnTables extends Base {
      drizzleTable(): Table {
        const table = tables()[this.meta.model.tableName];
        if (!table) throw new Error(`No Drizzle table for ${this.meta.model.tableName}`);
        return table;
      }
    }
    return OnTables;
  };
  return {
    Create: onTables(DrizzleCreateEndpoint),
    Read: onTables(DrizzleReadEndpoint),
    Update: onTables(DrizzleUpdateEndpoint),
    Delete: onTables(DrizzleDeleteEndpoint),
    List: onTables(DrizzleListEndpoint),
  };
}

const quote = (family: Family) => (name: string) => (family === "mysql" ? `\`${name}\`` : `"${name}"`);

// The CRUD suite's tables. Task keys are camelCase and the columns snake_case, as Drizzle apps often
// write them, so the endpoints must take column names from the table, never from the model's fields.
function crudTables(family: Family): Record<string, Table> {
  const statuses = ["open", "doing", "closed"] as const;
  if (family === "sqlite") {
    return {
      projects: lite.sqliteTable("projects", {
        id: lite.integer().primaryKey({ autoIncrement: true }),
        name: lite.text({ length: 60 }).notNull().unique(),
        budget: lite.integer().notNull().default(0),
      }),
      tasks: lite.sqliteTable(
        "tasks",
        {
          projectId: lite.integer("project_id").notNull(),
          id: lite.integer().notNull(),
          title: lite.text().notNull(),
          priority: lite.integer().notNull(),
          status: lite.text({ enum: statuses }).notNull(),
          done: lite.integer("is_done", { mode: "boolean" }).notNull().default(false),
          notes: lite.text(),
        },
        (t) => [lite.primaryKey({ columns: [t.projectId, t.id] })],
      ),
    };
  }
  if (family === "postgres") {
    return {
      projects: pgc.pgTable("projects", {
        id: pgc.serial().primaryKey(),
        name: pgc.varchar({ length: 60 }).notNull().unique(),
        budget: pgc.integer().notNull().default(0),
      }),
      tasks: pgc.pgTable(
        "tasks",
        {
          projectId: pgc.integer("project_id").notNull(),
          id: pgc.integer().notNull(),
          title: pgc.varchar({ length: 120 }).notNull(),
          priority: pgc.integer().notNull(),
          status: pgc.varchar({ length: 10, enum: statuses }).notNull(),
          done: pgc.boolean("is_done").notNull().default(false),
          notes: pgc.text(),
        },
        (t) => [pgc.primaryKey({ columns: [t.projectId, t.id] })],
      ),
    };
  }
  return {
    projects: my.mysqlTable("projects", {
      id: my.int().autoincrement().primaryKey(),
      name: my.varchar({ length: 60 }).notNull().unique(),
      budget: my.int().notNull().default(0),
    }),
    tasks: my.mysqlTable(
      "tasks",
      {
        projectId: my.int("project_id").notNull(),
        id: my.int().notNull(),
        title: my.varchar({ length: 120 }).notNull(),
        priority: my.int().notNull(),
        status: my.varchar({ length: 10, enum: statuses }).notNull(),
        done: my.boolean("is_done").notNull().default(false),
        notes: my.text(),
      },
      (t) => [my.primaryKey({ columns: [t.projectId, t.id] })],
    ),
  };
}

function crudDdl(family: Family): string[] {
  const q = quote(family);
  const id = {
    sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
    postgres: "SERIAL PRIMARY KEY",
    mysql: "INT AUTO_INCREMENT PRIMARY KEY",
  }[family];
  const bool = family === "sqlite" ? "INTEGER NOT NULL DEFAULT 0" : "BOOLEAN NOT NULL DEFAULT FALSE";
  return [
    `CREATE TABLE ${q("projects")} (${q("id")} ${id}, ${q("name")} VARCHAR(60) NOT NULL UNIQUE, ${q("budget")} INTEGER NOT NULL DEFAULT 0)`,
    `CREATE TABLE ${q("tasks")} (${q("project_id")} INTEGER NOT NULL, ${q("id")} INTEGER NOT NULL, ${q("title")} VARCHAR(120) NOT NULL, ${q("priority")} INTEGER NOT NULL, ${q("status")} VARCHAR(10) NOT NULL, ${q("is_done")} ${bool}, ${q("notes")} TEXT NULL, PRIMARY KEY (${q("project_id")}, ${q("id")}))`,
  ];
}

/** The CRUD suite's backend: the Drizzle endpoints on one engine, the Drizzle database as the router's `db` option. */
export function drizzleCrudBackend(engine: DrizzleEngine): CrudBackend {
  const tables = crudTables(engine.family);
  let connection: DrizzleConnection | undefined;
  const drop = async () => {
    for (const table of ["tasks", "projects"]) {
      await connection!.driver.execute(`DROP TABLE IF EXISTS ${quote(engine.family)(table)}`, []);
    }
  };
  return {
    name: engine.name,
    ...drizzleEndpoints(() => tables),
    get routerOptions() {
      return { db: connection?.db };
    },
    async reset() {
      connection ??= await engine.connect();
      await drop();
      for (const statement of crudDdl(engine.family)) await connection.driver.execute(statement, []);
    },
    async rows(name) {
      // Read back through Drizzle: the rows keyed by the table's keys, as the model names them.
      const table = tables[name] as any;
      const key = name === "tasks" ? [table.projectId, table.id] : [table.id];
      return (connection!.db as any)
        .select()
        .from(table)
        .orderBy(...key.map((column: any) => asc(column)));
    },
    async close() {
      if (!connection) return;
      await drop();
      await connection.close();
      connection = undefined;
    },
  };
}

/** The cursor suite's table on one engine: `label` is stored in column `entry_label`. */
function entriesTable(family: Family, name: string): Table {
  if (family === "sqlite") {
    return lite.sqliteTable(
      name,
      {
        shelf: lite.integer().notNull(),
        id: lite.integer().notNull(),
        rank: lite.integer().notNull(),
        label: lite.text("entry_label"),
        title: lite.text().notNull(),
      },
      (t) => [lite.primaryKey({ columns: [t.shelf, t.id] })],
    );
  }
  if (family === "postgres") {
    return pgc.pgTable(
      name,
      {
        shelf: pgc.integer().notNull(),
        id: pgc.integer().notNull(),
        rank: pgc.integer().notNull(),
        label: pgc.text("entry_label"),
        title: pgc.text().notNull(),
      },
      (t) => [pgc.primaryKey({ columns: [t.shelf, t.id] })],
    );
  }
  return my.mysqlTable(
    name,
    {
      shelf: my.int().notNull(),
      id: my.int().notNull(),
      rank: my.int().notNull(),
      label: my.varchar("entry_label", { length: 40 }),
      title: my.varchar({ length: 40 }).notNull(),
    },
    (t) => [my.primaryKey({ columns: [t.shelf, t.id] })],
  );
}

/** The cursor suite's backend: DrizzleListEndpoint on one engine, rows written with Drizzle. */
export function drizzleCursorBackend(engine: DrizzleEngine): CursorBackend {
  const tableName = `drz_entries_${engine.family}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  const table = entriesTable(engine.family, tableName) as any;
  const q = quote(engine.family);
  const text = engine.family === "mysql" ? "VARCHAR(40)" : "TEXT";
  let connection: DrizzleConnection | undefined;
  const db = () => connection!.db as any;
  return {
    name: engine.name,
    List: drizzleEndpoints(() => ({ [tableName]: table })).List,
    get routerOptions() {
      return { db: connection?.db };
    },
    async open() {
      connection = await engine.connect();
      await connection.driver.execute(`DROP TABLE IF EXISTS ${q(tableName)}`, []);
      await connection.driver.execute(
        `CREATE TABLE ${q(tableName)} (${q("shelf")} INTEGER NOT NULL, ${q("id")} INTEGER NOT NULL, ${q("rank")} INTEGER NOT NULL, ${q("entry_label")} ${text} NULL, ${q("title")} ${text} NOT NULL, PRIMARY KEY (${q("shelf")}, ${q("id")}))`,
        [],
      );
      return { tableName };
    },
    async replace(rows: Entry[]) {
      await db().delete(table);
      if (rows.length > 0) await db().insert(table).values(rows);
    },
    async insert(row) {
      await db().insert(table).values(row);
    },
    async remove(key) {
      await db()
        .delete(table)
        .where(and(eq(table.shelf, key.shelf), eq(table.id, key.id)));
    },
    async close() {
      if (!connection) return;
      await connection.driver.execute(`DROP TABLE IF EXISTS ${q(tableName)}`, []);
      await connection.close();
      connection = undefined;
    },
  };
}

/** The conditional suite's notes table on one engine, as the suite's DDL creates it. */
function notesTable(family: Family, name: string, versioned: boolean): Table {
  if (family === "sqlite") {
    return lite.sqliteTable(name, {
      id: lite.integer().primaryKey({ autoIncrement: true }),
      title: lite.text().notNull(),
      body: lite.text(),
      meta: lite.text({ mode: "json" }),
      done: lite.integer({ mode: "boolean" }).notNull().default(false),
      ...(versioned ? { version: lite.integer().notNull().default(1) } : {}),
    });
  }
  if (family === "postgres") {
    return pgc.pgTable(name, {
      id: pgc.serial().primaryKey(),
      title: pgc.text().notNull(),
      body: pgc.text(),
      meta: pgc.json(),
      done: pgc.boolean().notNull().default(false),
      ...(versioned ? { version: pgc.integer().notNull().default(1) } : {}),
    });
  }
  return my.mysqlTable(name, {
    id: my.int().autoincrement().primaryKey(),
    title: my.varchar({ length: 200 }).notNull(),
    body: my.text(),
    meta: my.json(),
    done: my.boolean().notNull().default(false),
    ...(versioned ? { version: my.int().notNull().default(1) } : {}),
  });
}

/** The conditional suite on the Drizzle endpoints: compare-and-swap written with Drizzle, on the engine's Drizzle driver. */
export const drizzleConditionalStorage: ConditionalStorage = {
  endpoints(name, family, versioned) {
    const table = notesTable(family, name, versioned);
    const { Create, Read, Update, Delete } = drizzleEndpoints(() => ({ [name]: table }));
    return { Create, Read, Update, Delete };
  },
  routerOptions: (connection) => ({ db: (connection as DrizzleConnection).db }),
};

/** The bulk suite's people table on one engine, as the suite's DDL creates it. */
function peopleTable(family: Family, name: string): Table {
  if (family === "sqlite") {
    return lite.sqliteTable(name, {
      id: lite.integer().primaryKey({ autoIncrement: true }),
      email: lite.text().notNull().unique(),
      name: lite.text().notNull(),
      score: lite.integer().notNull().default(0),
      note: lite.text(),
    });
  }
  if (family === "postgres") {
    return pgc.pgTable(name, {
      id: pgc.serial().primaryKey(),
      email: pgc.text().notNull().unique(),
      name: pgc.text().notNull(),
      score: pgc.integer().notNull().default(0),
      note: pgc.text(),
    });
  }
  return my.mysqlTable(name, {
    id: my.int().autoincrement().primaryKey(),
    email: my.varchar({ length: 100 }).notNull().unique(),
    name: my.varchar({ length: 100 }).notNull(),
    score: my.int().notNull().default(0),
    note: my.text(),
  });
}

/** The bulk suite's endpoints on Drizzle: one batch (D1) or one transaction per bulk create. */
export const drizzleBulkStorage: BulkStorage = {
  endpoints(name, family) {
    const table = peopleTable(family, name);
    const { Create, List } = drizzleEndpoints(() => ({ [name]: table }));
    return { Create, List };
  },
  routerOptions: (connection) => ({ db: (connection as DrizzleConnection).db }),
};
