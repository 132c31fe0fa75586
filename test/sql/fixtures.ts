import { z } from "zod";
import type { SqlDriver } from "../../src/sql";

/** SQL family of an engine under test: decides the DDL only (the library reads the driver's dialect). */
export type Family = "sqlite" | "postgres" | "mysql";

export interface Connection {
  driver: SqlDriver;
  close(): Promise<void>;
}

/** One engine the shared suite runs against. */
export interface EngineUnderTest {
  name: string;
  family: Family;
  /** Why the engine is skipped (an env variable is unset), or undefined to run. */
  skipReason?: string;
  connect(): Promise<Connection>;
}

export const Item = z.object({
  id: z.number().int(),
  name: z.string(),
  group: z.string(), // a reserved word in every engine: proves identifiers are quoted
  price: z.number(),
  stock: z.number().int(),
  active: z.boolean(),
  status: z.string(),
  note: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
});

export const Member = z.object({
  org: z.string(),
  user_id: z.number().int(),
  role: z.string(),
  score: z.number(),
});

/** A row with a version column (the model's `versionField`) that every write through its table increments. */
export const Versioned = z.object({
  id: z.number().int(),
  label: z.string(),
  stock: z.number().int(),
  version: z.number().int(),
});

/** Integers past 2^53: `n` a BIGINT read as bigint, `m` a BIGINT the model reads as a number. */
export const Big = z.object({ id: z.number().int(), n: z.bigint(), m: z.number().int() });

function bigDdl(family: Family, table: string): string {
  const q = family === "mysql" ? (name: string) => `\`${name}\`` : (name: string) => `"${name}"`;
  return `CREATE TABLE ${q(table)} (${q("id")} INTEGER PRIMARY KEY, ${q("n")} BIGINT NOT NULL, ${q("m")} BIGINT NOT NULL)`;
}

/** DDL of the item-shaped tables (catalog, writes) per family, with the DB defaults the tests expect. */
function itemsDdl(family: Family, table: string): string {
  switch (family) {
    case "sqlite":
      return `CREATE TABLE "${table}" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT,
        "name" TEXT NOT NULL,
        "group" TEXT NOT NULL,
        "price" NUMERIC NOT NULL DEFAULT 0,
        "stock" INTEGER NOT NULL DEFAULT 0,
        "active" INTEGER NOT NULL DEFAULT 1,
        "status" TEXT NOT NULL DEFAULT 'new',
        "note" TEXT,
        "tags" TEXT,
        CONSTRAINT "${table}_name_uq" UNIQUE ("name"))`;
    case "postgres":
      return `CREATE TABLE "${table}" (
        "id" SERIAL PRIMARY KEY,
        "name" TEXT NOT NULL,
        "group" TEXT NOT NULL,
        "price" NUMERIC(10, 2) NOT NULL DEFAULT 0,
        "stock" BIGINT NOT NULL DEFAULT 0,
        "active" BOOLEAN NOT NULL DEFAULT TRUE,
        "status" TEXT NOT NULL DEFAULT 'new',
        "note" TEXT,
        "tags" JSONB,
        CONSTRAINT "${table}_name_uq" UNIQUE ("name"))`;
    case "mysql":
      return `CREATE TABLE \`${table}\` (
        \`id\` INT AUTO_INCREMENT PRIMARY KEY,
        \`name\` VARCHAR(200) NOT NULL,
        \`group\` VARCHAR(50) NOT NULL,
        \`price\` DECIMAL(10, 2) NOT NULL DEFAULT 0,
        \`stock\` BIGINT NOT NULL DEFAULT 0,
        \`active\` BOOLEAN NOT NULL DEFAULT TRUE,
        \`status\` VARCHAR(20) NOT NULL DEFAULT 'new',
        \`note\` TEXT NULL,
        \`tags\` JSON NULL,
        CONSTRAINT \`${table}_name_uq\` UNIQUE (\`name\`)) DEFAULT CHARSET = utf8mb4`;
  }
}

function membersDdl(family: Family, table: string): string {
  const q = family === "mysql" ? (name: string) => `\`${name}\`` : (name: string) => `"${name}"`;
  const text = family === "mysql" ? "VARCHAR(100)" : "TEXT";
  const real = family === "postgres" ? "DOUBLE PRECISION" : family === "mysql" ? "DOUBLE" : "REAL";
  return `CREATE TABLE ${q(table)} (
    ${q("org")} ${text} NOT NULL,
    ${q("user_id")} INTEGER NOT NULL,
    ${q("role")} ${text} NOT NULL DEFAULT 'member',
    ${q("score")} ${real} NOT NULL DEFAULT 0.5,
    PRIMARY KEY (${q("org")}, ${q("user_id")}))`;
}

function versionedDdl(family: Family, table: string): string {
  switch (family) {
    case "sqlite":
      return `CREATE TABLE "${table}" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "label" TEXT NOT NULL, "stock" INTEGER NOT NULL DEFAULT 0, "version" INTEGER NOT NULL DEFAULT 1)`;
    case "postgres":
      return `CREATE TABLE "${table}" ("id" SERIAL PRIMARY KEY, "label" TEXT NOT NULL, "stock" INTEGER NOT NULL DEFAULT 0, "version" INTEGER NOT NULL DEFAULT 1)`;
    case "mysql":
      return `CREATE TABLE \`${table}\` (\`id\` INT AUTO_INCREMENT PRIMARY KEY, \`label\` VARCHAR(100) NOT NULL, \`stock\` INT NOT NULL DEFAULT 0, \`version\` INT NOT NULL DEFAULT 1) DEFAULT CHARSET = utf8mb4`;
  }
}

/** Per-run table names, so concurrent runs and engines sharing a server never collide. */
export function tableNames(engine: string) {
  const tag = `${engine.replace(/[^a-z0-9]/gi, "").slice(0, 10)}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  return {
    catalog: `sr_${tag}_catalog`,
    writes: `sr_${tag}_writes`,
    members: `sr_${tag}_members`,
    versioned: `sr_${tag}_versioned`,
    big: `sr_${tag}_big`,
  };
}

export function createStatements(family: Family, names: ReturnType<typeof tableNames>): string[] {
  return [
    itemsDdl(family, names.catalog),
    itemsDdl(family, names.writes),
    membersDdl(family, names.members),
    versionedDdl(family, names.versioned),
    bigDdl(family, names.big),
  ];
}

export function dropStatements(family: Family, names: ReturnType<typeof tableNames>): string[] {
  const q = family === "mysql" ? (name: string) => `\`${name}\`` : (name: string) => `"${name}"`;
  return Object.values(names).map((name) => `DROP TABLE IF EXISTS ${q(name)}`);
}

/** Engine version, printed so a run shows which engines it covered. */
export function versionQuery(family: Family): string {
  return family === "sqlite" ? "SELECT sqlite_version() AS v" : "SELECT version() AS v";
}

/** The catalog as stored and as every engine must return it: the one expected-output table. */
export const CATALOG = [
  {
    id: 1,
    name: "100% cotton shirt",
    group: "apparel",
    price: 25.5,
    stock: 10,
    active: true,
    status: "new",
    note: null,
    tags: ["cotton"],
  },
  {
    id: 2,
    name: "100 percent wool",
    group: "apparel",
    price: 40,
    stock: 0,
    active: false,
    status: "sale",
    note: "warm",
    tags: null,
  },
  {
    id: 3,
    name: "snake_case mug",
    group: "kitchen",
    price: 9.99,
    stock: 25,
    active: true,
    status: "new",
    note: null,
    tags: [],
  },
  {
    id: 4,
    name: "snakeXcase bowl",
    group: "kitchen",
    price: 12,
    stock: 5,
    active: true,
    status: "sale",
    note: null,
    tags: null,
  },
  {
    id: 5,
    name: "back\\slash poster",
    group: "decor",
    price: 7.5,
    stock: 3,
    active: false,
    status: "new",
    note: "c:\\path",
    tags: null,
  },
  {
    id: 6,
    name: "O'Reilly book",
    group: "books",
    price: 30,
    stock: 7,
    active: true,
    status: "new",
    note: null,
    tags: ["tech", "o'reilly"],
  },
  {
    id: 7,
    name: 'say "hi" sign',
    group: "decor",
    price: 15,
    stock: 0,
    active: true,
    status: "old",
    note: null,
    tags: null,
  },
  {
    id: 8,
    name: "bang! lamp",
    group: "decor",
    price: 55,
    stock: 2,
    active: true,
    status: "new",
    note: null,
    tags: null,
  },
  {
    id: 9,
    name: "UPPER Case Kettle",
    group: "kitchen",
    price: 33.25,
    stock: 12,
    active: false,
    status: "new",
    note: null,
    tags: null,
  },
  {
    id: 10,
    name: "plain pen",
    group: "office",
    price: 1.5,
    stock: 100,
    active: true,
    status: "new",
    note: null,
    tags: null,
  },
  {
    id: 11,
    name: "semi;colon clip",
    group: "office",
    price: 0.25,
    stock: 500,
    active: true,
    status: "old",
    note: "--comment",
    tags: null,
  },
  {
    id: 12,
    name: "café crème cup",
    group: "kitchen",
    price: 4.5,
    stock: 8,
    active: true,
    status: "new",
    note: null,
    tags: null,
  },
];

/** Filter, search, order and page cases with the ids every engine must answer, in order. */
export const LIST_CASES: {
  title: string;
  query: {
    filters?: { field: string; operator: "EQ" | "NE" | "GT" | "GTE" | "LT" | "LTE" | "IN" | "LIKE"; value: unknown }[];
    search?: { columns: string[]; term: string };
    orderBy?: { column: string; direction: "asc" | "desc" };
    limit?: number;
    offset?: number;
  };
  ids: number[];
  total?: number;
}[] = [
  { title: "no condition: primary key order", query: {}, ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
  {
    title: "EQ on text",
    query: { filters: [{ field: "group", operator: "EQ", value: "kitchen" }] },
    ids: [3, 4, 9, 12],
  },
  {
    title: "NE on text",
    query: { filters: [{ field: "group", operator: "NE", value: "decor" }] },
    ids: [1, 2, 3, 4, 6, 9, 10, 11, 12],
  },
  { title: "GT on decimal", query: { filters: [{ field: "price", operator: "GT", value: 30 }] }, ids: [2, 8, 9] },
  { title: "GTE on decimal", query: { filters: [{ field: "price", operator: "GTE", value: 30 }] }, ids: [2, 6, 8, 9] },
  {
    title: "EQ on a fractional decimal",
    query: { filters: [{ field: "price", operator: "EQ", value: 9.99 }] },
    ids: [3],
  },
  { title: "LT on bigint", query: { filters: [{ field: "stock", operator: "LT", value: 5 }] }, ids: [2, 5, 7, 8] },
  { title: "LTE on bigint", query: { filters: [{ field: "stock", operator: "LTE", value: 5 }] }, ids: [2, 4, 5, 7, 8] },
  {
    title: "IN",
    query: { filters: [{ field: "group", operator: "IN", value: ["books", "office"] }] },
    ids: [6, 10, 11],
  },
  {
    title: "IN with an empty list matches nothing",
    query: { filters: [{ field: "group", operator: "IN", value: [] }] },
    ids: [],
    total: 0,
  },
  {
    title: "EQ true on boolean",
    query: { filters: [{ field: "active", operator: "EQ", value: true }] },
    ids: [1, 3, 4, 6, 7, 8, 10, 11, 12],
  },
  {
    title: "EQ false on boolean",
    query: { filters: [{ field: "active", operator: "EQ", value: false }] },
    ids: [2, 5, 9],
  },
  {
    title: "EQ null is IS NULL",
    query: { filters: [{ field: "note", operator: "EQ", value: null }] },
    ids: [1, 3, 4, 6, 7, 8, 9, 10, 12],
  },
  {
    title: "NE null is IS NOT NULL",
    query: { filters: [{ field: "note", operator: "NE", value: null }] },
    ids: [2, 5, 11],
  },
  {
    title: "conditions combine with AND",
    query: {
      filters: [
        { field: "group", operator: "EQ", value: "kitchen" },
        { field: "price", operator: "LT", value: 10 },
      ],
    },
    ids: [3, 12],
  },
  {
    title: "LIKE filter is a case-insensitive contains",
    query: { filters: [{ field: "name", operator: "LIKE", value: "case" }] },
    ids: [3, 4, 9],
  },
  { title: "search % literally", query: { search: { columns: ["name"], term: "%" } }, ids: [1] },
  { title: "search _ literally", query: { search: { columns: ["name"], term: "_" } }, ids: [3] },
  {
    title: "search snake_case does not match snakeXcase",
    query: { search: { columns: ["name"], term: "snake_case" } },
    ids: [3],
  },
  { title: "search 100% literally", query: { search: { columns: ["name"], term: "100%" } }, ids: [1] },
  { title: "search 100_ literally", query: { search: { columns: ["name"], term: "100_" } }, ids: [] },
  { title: "search backslash literally", query: { search: { columns: ["name"], term: "\\" } }, ids: [5] },
  { title: "search the escape character literally", query: { search: { columns: ["name"], term: "!" } }, ids: [8] },
  { title: "search a single quote", query: { search: { columns: ["name"], term: "'" } }, ids: [6] },
  { title: "search a double quote", query: { search: { columns: ["name"], term: '"hi"' } }, ids: [7] },
  { title: "search a semicolon", query: { search: { columns: ["name"], term: ";" } }, ids: [11] },
  { title: "search ignores case (upper term)", query: { search: { columns: ["name"], term: "COTTON" } }, ids: [1] },
  { title: "search ignores case (lower term)", query: { search: { columns: ["name"], term: "upper case" } }, ids: [9] },
  { title: "search over two columns", query: { search: { columns: ["name", "note"], term: "WARM" } }, ids: [2] },
  {
    title: "search finds a backslash in a second column",
    query: { search: { columns: ["name", "note"], term: ":\\p" } },
    ids: [5],
  },
  {
    title: "search with filter",
    query: { search: { columns: ["name"], term: "c" }, filters: [{ field: "group", operator: "EQ", value: "office" }] },
    ids: [11],
  },
  {
    title: "order by decimal asc",
    query: { orderBy: { column: "price", direction: "asc" } },
    ids: [11, 10, 12, 5, 3, 4, 7, 1, 6, 9, 2, 8],
  },
  {
    title: "order by decimal desc",
    query: { orderBy: { column: "price", direction: "desc" } },
    ids: [8, 2, 9, 6, 1, 7, 4, 3, 5, 12, 10, 11],
  },
  {
    title: "ties broken by primary key (asc)",
    query: { orderBy: { column: "group", direction: "asc" } },
    ids: [1, 2, 6, 5, 7, 8, 3, 4, 9, 12, 10, 11],
  },
  {
    title: "ties broken by primary key (desc)",
    query: { orderBy: { column: "group", direction: "desc" } },
    ids: [10, 11, 3, 4, 9, 12, 5, 7, 8, 6, 1, 2],
  },
  {
    title: "NULL sorts first ascending",
    query: { orderBy: { column: "note", direction: "asc" } },
    ids: [1, 3, 4, 6, 7, 8, 9, 10, 12, 11, 5, 2],
  },
  {
    title: "NULL sorts last descending",
    query: { orderBy: { column: "note", direction: "desc" } },
    ids: [2, 5, 11, 1, 3, 4, 6, 7, 8, 9, 10, 12],
  },
  {
    title: "order by primary key desc",
    query: { orderBy: { column: "id", direction: "desc" } },
    ids: [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1],
  },
  {
    title: "limit and offset with total count",
    query: { filters: [{ field: "group", operator: "EQ", value: "kitchen" }], limit: 2, offset: 1 },
    ids: [4, 9],
    total: 4,
  },
  { title: "offset past the end", query: { limit: 5, offset: 50 }, ids: [], total: 12 },
];
