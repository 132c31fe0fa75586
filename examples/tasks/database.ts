// Where the example keeps its data: a SQLite file by default, PostgreSQL when DATABASE_URL says so.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import pg from "pg";
import {
  type BunSqliteDatabase,
  betterSqlite3Driver,
  bunSqliteDriver,
  nodeSqliteDriver,
  pgDriver,
  type SqlDriver,
} from "specroute";
import { migrationsFor } from "./migrations";

/** The database the server uses, read from the environment by {@link databaseConfig}. */
export type DatabaseConfig = { kind: "postgres"; url: string; poolSize: number } | { kind: "sqlite"; file: string };

// Any constant works: it names the lock every server migrating this database takes, so only one migrates at a time.
const MIGRATION_LOCK = 7_263_401;

/**
 * PostgreSQL when `DATABASE_URL` starts with postgres:// or postgresql:// (each process keeps a pool of
 * `DATABASE_POOL_SIZE` connections, 10 by default), otherwise SQLite in `DB_FILE` (data/tasks.db).
 */
export function databaseConfig(env: NodeJS.ProcessEnv): DatabaseConfig {
  const url = env.DATABASE_URL;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const poolSize = Number(env.DATABASE_POOL_SIZE ?? 10);
    if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error("DATABASE_POOL_SIZE must be a positive integer");
    return { kind: "postgres", url, poolSize };
  }
  if (url) throw new Error("DATABASE_URL must start with postgres:// or postgresql:// (unset it to use SQLite)");
  return { kind: "sqlite", file: env.DB_FILE ?? "data/tasks.db" };
}

/** The database for a log line, without the password. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === "sqlite") return `SQLite ${config.file} through ${sqliteDriverName()}`;
  const url = new URL(config.url);
  return `PostgreSQL ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}, pool of ${config.poolSize} per process`;
}

/**
 * Creates the tables when they are missing. Run it once, before serving: in a cluster, the primary
 * runs it before it starts any worker. On PostgreSQL it holds an advisory lock, so servers started
 * at the same moment on several machines migrate one after the other.
 */
export async function migrate(config: DatabaseConfig): Promise<void> {
  if (config.kind === "sqlite") {
    mkdirSync(dirname(config.file), { recursive: true });
    const sqlite = openSqlite(config.file);
    for (const statement of migrationsFor(sqlite)) await sqlite.execute(statement, []);
    await sqlite.close!();
    return;
  }
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  const db = pgDriver(client);
  try {
    await db.transaction!(async (tx) => {
      await tx.execute("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      for (const statement of migrationsFor(db)) await tx.execute(statement, []);
    });
  } finally {
    await db.close!();
  }
}

/** Opens the database for serving requests; `close()` on the driver ends the pool or closes the file. */
export function openDatabase(config: DatabaseConfig): SqlDriver {
  if (config.kind === "postgres") {
    // The process id in application_name tells, in pg_stat_activity, which process holds which connection.
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      application_name: `tasks-example ${process.pid}`,
    });
    // A connection the server closes while idle (restart, idle timeout) is dropped from the pool, not a crash.
    pool.on("error", (error) => console.error(`PostgreSQL connection lost: ${error.message}`));
    return pgDriver(pool);
  }
  return openSqlite(config.file);
}

/** The SQLite driver this runtime offers, by name: {@link openSqlite} says which one it picks. */
export function sqliteDriverName(): "bun:sqlite" | "node:sqlite" | "better-sqlite3" {
  if (process.getBuiltinModule?.("bun:sqlite")) return "bun:sqlite";
  return process.getBuiltinModule?.("node:sqlite") ? "node:sqlite" : "better-sqlite3";
}

/**
 * Opens a SQLite file (WAL journal, foreign keys on) through the runtime's own SQLite: `bun:sqlite` on
 * Bun, `node:sqlite` on Node 22.5+ and Deno (nothing to build), better-sqlite3 on Node 20, the one
 * loaded only there.
 */
function openSqlite(file: string): SqlDriver {
  const driver = sqliteDriverName();
  if (driver === "bun:sqlite") {
    // Not in Node's types; Bun's Database has the shape the driver reads, and exec().
    const { Database } = process.getBuiltinModule("bun:sqlite") as {
      Database: new (file: string) => BunSqliteDatabase & { exec(sql: string): void };
    };
    return bunSqliteDriver(withPragmas(new Database(file)));
  }
  if (driver === "node:sqlite") {
    const { DatabaseSync } = process.getBuiltinModule("node:sqlite");
    return nodeSqliteDriver(withPragmas(new DatabaseSync(file)));
  }
  const Database = createRequire(import.meta.url)("better-sqlite3");
  return betterSqlite3Driver(withPragmas(new Database(file)));
}

function withPragmas<T extends { exec(sql: string): unknown }>(db: T): T {
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");
  return db;
}
