// The shared SQL suite on bun:sqlite, run by the runtime matrix under `bun test`
// (test/runtimes/matrix.test.ts); `npm test`'s own run on Node leaves this file out.

import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunSqliteDriver } from "../../src/sql";
import { describeTableSuite } from "./table.case";

describeTableSuite({
  name: "bun:sqlite (memory)",
  family: "sqlite",
  async connect() {
    const db = new Database(":memory:");
    return { driver: bunSqliteDriver(db), close: async () => void db.close() };
  },
});

describeTableSuite({
  name: "bun:sqlite (file)",
  family: "sqlite",
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "specroute-sql-"));
    const db = new Database(join(dir, "test.db"));
    db.exec("PRAGMA journal_mode = WAL");
    return {
      driver: bunSqliteDriver(db),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
