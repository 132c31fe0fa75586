import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { betterSqlite3Driver, type SqlDriver } from "specroute";

/** The tables, created when missing. */
const SCHEMA = `CREATE TABLE IF NOT EXISTS notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0
)`;

/** Opens the SQLite database in `file` (":memory:" for one that lives as long as the process) and creates its tables. */
export function openDatabase(file: string): SqlDriver {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.exec(SCHEMA);
  return betterSqlite3Driver(sqlite);
}
