import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { betterSqlite3Driver } from "../../src/sql";
import { describeTableSuite } from "./table.case";

describeTableSuite({
  name: "better-sqlite3 (memory)",
  family: "sqlite",
  async connect() {
    const db = new Database(":memory:");
    return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
  },
});

describeTableSuite({
  name: "better-sqlite3 (file)",
  family: "sqlite",
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "specroute-sql-"));
    const db = new Database(join(dir, "test.db"));
    db.pragma("journal_mode = WAL");
    return {
      driver: betterSqlite3Driver(db),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
