// The shared SQL suite on node:sqlite. Node 20 has no node:sqlite, so `npm test`'s own run leaves this
// file out; the runtime matrix runs it on Node 22, Node 24 and Deno (test/runtimes/matrix.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { nodeSqliteDriver } from "../../src/sql";
import { describeChangeLogSuite } from "./change-log.case";
import { describeTableSuite } from "./table.case";

describeTableSuite({
  name: "node:sqlite (memory)",
  family: "sqlite",
  async connect() {
    const db = new DatabaseSync(":memory:");
    return { driver: nodeSqliteDriver(db), close: async () => void db.close() };
  },
});

describeTableSuite({
  name: "node:sqlite (file)",
  family: "sqlite",
  async connect() {
    const dir = mkdtempSync(join(tmpdir(), "specroute-sql-"));
    const db = new DatabaseSync(join(dir, "test.db"));
    db.exec("PRAGMA journal_mode = WAL");
    return {
      driver: nodeSqliteDriver(db),
      close: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describeChangeLogSuite({
  name: "node:sqlite (memory)",
  family: "sqlite",
  async connect() {
    const db = new DatabaseSync(":memory:");
    return { driver: nodeSqliteDriver(db), close: async () => void db.close() };
  },
});
