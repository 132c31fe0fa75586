import { Database } from "bun:sqlite";
import { bunSqliteDriver, type SqlDriver } from "specroute";

/** The tables, created when missing. */
const SCHEMA = `CREATE TABLE IF NOT EXISTS notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0
)`;

/** Opens the SQLite database in `file` (":memory:" for one that lives as long as the process) and creates its tables. */
export function openDatabase(file: string): SqlDriver {
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run(SCHEMA);
  return bunSqliteDriver(sqlite);
}
