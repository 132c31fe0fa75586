import type { ChangeToRecord } from "../live/types";
import { CHANGE_HEADS_TABLE, CHANGES_TABLE, SqlChangeLog } from "./change-log";
import { sqliteDialect } from "./dialects/sqlite";
import type { SqlDriver } from "./driver";
import { parseTableName } from "./identifiers";

/** What the triggers of a collection are made from: its table and the columns a change's row carries. */
export interface RecordedTable {
  readonly tableName: string;
  readonly columns: readonly string[];
}

const TRIGGER_PREFIX = "specroute_changes_";

/** SQLite string literal: a trigger's body cannot bind values. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function quote(name: string): string {
  return sqliteDialect.quote(name);
}

// FNV-1a: a short, stable tag of the column list, so a migration that changes the columns makes new triggers.
function tag(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The names of `table`'s three triggers: collection and column list in them, so a changed list makes new names. */
function triggerNames(table: RecordedTable): { created: string; updated: string; deleted: string } {
  const base = `${TRIGGER_PREFIX}${table.tableName.replace(/[^A-Za-z0-9_]/g, "_")}_${tag(`${table.tableName}\0${table.columns.join("\0")}`)}`;
  return { created: `${base}_c`, updated: `${base}_u`, deleted: `${base}_d` };
}

/**
 * The SQLite triggers that record every write to `table` in the change log, in the write's own
 * statement: the three `CREATE TRIGGER IF NOT EXISTS` statements (insert, update, delete), for apps
 * that create their schema in D1 migrations (`D1ChangeLog` also creates them on the first write).
 * A change's row is the stored row as JSON, a BLOB as its hex text.
 *
 * @example
 * for (const statement of changeLogTriggers({ tableName: "tasks", columns: ["id", "title", "done"] })) {
 *   await env.DB.prepare(statement).run();
 * }
 */
export function changeLogTriggers(table: RecordedTable): string[] {
  const names = triggerNames(table);
  const target = parseTableName(table.tableName).map(quote).join(".");
  // A checked table name (at most 127 characters, no space, no colon) is one SqlChangeLog stores as it is, never hashed.
  const collection = literal(table.tableName);
  // JSON cannot hold a BLOB: a write must not fail for its change, so the bytes are sent as hex text.
  const value = (row: "NEW" | "OLD", column: string) => {
    const stored = `${row}.${quote(column)}`;
    return `CASE typeof(${stored}) WHEN 'blob' THEN hex(${stored}) ELSE ${stored} END`;
  };
  const json = (row: "NEW" | "OLD") =>
    `json_object(${table.columns.map((column) => `${literal(column)}, ${value(row, column)}`).join(", ")})`;
  const now = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
  const heads = quote(CHANGE_HEADS_TABLE);
  const body = (kind: string, row: string, before: string) =>
    `INSERT OR IGNORE INTO ${heads} ("collection", "seq") VALUES (${collection}, 0);
UPDATE ${heads} SET "seq" = "seq" + 1 WHERE "collection" = ${collection};
INSERT INTO ${quote(CHANGES_TABLE)} ("collection", "seq", "kind", "row", "before", "at")
SELECT ${collection}, "seq", '${kind}', ${row}, ${before}, ${now} FROM ${heads} WHERE "collection" = ${collection};`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${quote(names.created)} AFTER INSERT ON ${target} BEGIN
${body("created", json("NEW"), "NULL")}
END`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(names.updated)} AFTER UPDATE ON ${target} BEGIN
${body("updated", json("NEW"), json("OLD"))}
END`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(names.deleted)} AFTER DELETE ON ${target} BEGIN
${body("deleted", json("OLD"), "NULL")}
END`,
  ];
}

// Per driver and table: the triggers are the database's, made once per isolate.
const triggersReady = new WeakMap<SqlDriver, Map<string, Promise<void>>>();

/**
 * The change log on D1 (`ChangeLog<SqlDriver>` over a `d1Driver`). D1 cannot hold a transaction open
 * across calls, so a write and its change cannot be sent as two statements of one transaction; instead
 * triggers on the collection's table record each change inside the very statement that makes it (all
 * or none, as the outbox needs). D1 runs one statement at a time, so seqs follow commit order without
 * a lock. `lock` and `record` are therefore empty, and `ready(driver, table)` makes the triggers.
 * The triggers see every write to the table, raw SQL included; listeners hear those at the next wake.
 */
export class D1ChangeLog extends SqlChangeLog {
  /** The log's tables, and the triggers that record `table`'s writes (dropping those of an older column list). */
  async readyFor(driver: SqlDriver, table: RecordedTable): Promise<void> {
    await this.ready(driver);
    let byTable = triggersReady.get(driver);
    if (!byTable) {
      byTable = new Map();
      triggersReady.set(driver, byTable);
    }
    let ready = byTable.get(table.tableName);
    if (!ready) {
      ready = createTriggers(driver, table);
      byTable.set(table.tableName, ready);
      // A failure is not cached: the next write tries again.
      ready.catch(() => byTable.delete(table.tableName));
    }
    return ready;
  }

  // Empty on purpose: D1 runs one statement at a time, and each write's trigger takes the next seq in it.
  override async lock(): Promise<void> {}

  // Empty on purpose: the triggers recorded the changes in the write's own statement.
  override async record(_session: SqlDriver, _collection: string, _changes: readonly ChangeToRecord[]): Promise<void> {}
}

async function createTriggers(driver: SqlDriver, table: RecordedTable): Promise<void> {
  const names = Object.values(triggerNames(table));
  const [name] = parseTableName(table.tableName).slice(-1);
  const existing = await driver.query<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 AND substr(name, 1, ?2) = ?3",
    [name, TRIGGER_PREFIX.length, TRIGGER_PREFIX],
  );
  const stale = existing.map((trigger) => trigger.name).filter((trigger) => !names.includes(trigger));
  const statements = [
    ...stale.map((trigger) => `DROP TRIGGER IF EXISTS ${quote(trigger)}`),
    ...changeLogTriggers(table),
  ].map((sql) => ({ sql, params: [] }));
  // One batch, all or none: no moment where a write is recorded twice or not at all.
  if (driver.batch) await driver.batch(statements);
  else for (const statement of statements) await driver.execute(statement.sql, statement.params);
}
