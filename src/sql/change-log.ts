import { storableKey } from "../core/ops/hashed-key";
import type {
  ChangeKind,
  ChangeLog,
  ChangeRow,
  ChangeToRecord,
  LogBounds,
  RecordedChange,
  Retention,
} from "../live/types";
import { assertCount, assertStoreDialect, type Dialect } from "./dialect";
import type { SqlDriver } from "./driver";
import { databaseRecorded } from "./postgres-broker";
import { executeStatement, queryStatement } from "./statement";

/** The table every collection's changes are kept in: (collection, seq) is the key, `row`/`before` JSON text, `at` ms. */
export const CHANGES_TABLE = "specroute_changes";
/** One row per collection: `seq` is the newest seq it ever allocated, and its row lock serializes the collection's writers. */
export const CHANGE_HEADS_TABLE = "specroute_change_heads";

/** Changes written per INSERT: 6 bound values each stays far below every engine's parameter limit. */
const INSERT_CHUNK = 100;

/** What the log's tables and statements refuse a dialect without `tables` and `upsert` with. */
const REFUSAL = "SqlChangeLog has no tables";

/**
 * The change log's two tables as `CREATE TABLE IF NOT EXISTS` statements for `dialect`, for apps
 * that create their tables in migrations (SqlChangeLog also creates them on first use).
 *
 * @example
 * for (const statement of changeLogTables(postgresDialect)) await driver.execute(statement, [])
 */
export function changeLogTables(dialect: Dialect): string[] {
  assertStoreDialect(dialect, REFUSAL);
  const q = dialect.quote;
  const { keyText, shortText, longText, bigInteger, options, keyedOptions } = dialect.tables;
  const [collection, seq] = [q("collection"), q("seq")];
  return [
    `CREATE TABLE IF NOT EXISTS ${q(CHANGES_TABLE)} (${collection} ${keyText} NOT NULL, ${seq} ${bigInteger} NOT NULL, ${q("kind")} ${shortText} NOT NULL, ${q("row")} ${longText} NOT NULL, ${q("before")} ${longText}, ${q("at")} ${bigInteger} NOT NULL, PRIMARY KEY (${collection}, ${seq}))${keyedOptions}`,
    `CREATE TABLE IF NOT EXISTS ${q(CHANGE_HEADS_TABLE)} (${collection} ${keyText} NOT NULL PRIMARY KEY, ${seq} ${bigInteger} NOT NULL)${options}`,
  ];
}

// Per driver, not per SqlChangeLog: the tables are the database's, whichever log instance asks first.
const tablesReady = new WeakMap<SqlDriver, Promise<void>>();

async function createTables(driver: SqlDriver): Promise<void> {
  for (const statement of changeLogTables(driver.dialect)) {
    try {
      await driver.execute(statement, []);
    } catch {
      // Two processes creating at once: PostgreSQL may refuse the loser (23505 on pg_type); now the table exists.
      await driver.execute(statement, []);
    }
  }
}

/** JSON text of a row: a bigint as its decimal text (JSON has no bigint), a Date as ISO text (its toJSON). */
function rowText(row: ChangeRow): string {
  return JSON.stringify(row, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}

/** What a {@link SqlChangeLog} runs beside the changes it records. */
export interface SqlChangeLogOptions {
  /**
   * Runs in the write's transaction once `record` wrote its changes, on the same `tx`, so that other
   * processes' listeners hear of them. By default the database's own: on PostgreSQL `postgresBroker`'s
   * `recorded`, none on other engines. `null` for none, where the writer calls its broker's `recorded`
   * itself (as `recordedWrite` does).
   */
  readonly recorded?: ((tx: SqlDriver, collection: string) => Promise<void>) | null;
}

/** One `record` call's changes as the log writes them, with what every one of them shares. */
interface Batch {
  /** The collection as the tables hold it ({@link storableKey}). */
  readonly collection: string;
  readonly changes: readonly ChangeToRecord[];
  /** The seq of `changes[0]`: the others follow it, one by one. */
  readonly firstSeq: number;
  /** When they were recorded, in milliseconds since the epoch. */
  readonly at: number;
}

interface ChangeLine {
  seq: number | string | bigint;
  kind: string;
  row: string;
  before: string | null;
  at: number | string | bigint;
}

/**
 * The change log (`ChangeLog<SqlDriver>`) in two tables, {@link CHANGES_TABLE} and
 * {@link CHANGE_HEADS_TABLE}, on SQLite, PostgreSQL and MySQL/MariaDB (not D1, which cannot hold a
 * transaction open). `record` allocates seqs by incrementing the collection's head row, whose row lock
 * holds the collection's other writers until commit, so seqs follow commit order (under READ
 * COMMITTED, PostgreSQL's default; REPEATABLE READ makes a concurrent writer fail with a serialization
 * error instead). Then, unless made with `recorded: null`, it runs the database's own hook in the same
 * transaction: on PostgreSQL `postgresBroker`'s, whose notification, delivered at commit, wakes that
 * broker's listeners in every process.
 *
 * The tables are created on first use by `ready(driver)`, which `readAfter`, `bounds` and `trim` call;
 * `record` cannot (its `tx` is a new object per transaction, and DDL would commit a MySQL transaction),
 * so call `ready(driver)` before a driver's first write, or create the tables with {@link changeLogTables}.
 * Call `readAfter`, `bounds` and `trim` on the driver, outside a transaction, for the same reason. A
 * change's `at` is the recording process's clock.
 *
 * @example
 * const log = new SqlChangeLog()
 * await log.ready(driver)
 * await driver.transaction!(async (tx) => {
 *   const row = await tasks.insert(tx, { title: "a" })
 *   await log.record(tx, "tasks", [{ kind: "created", row, before: null }])
 * })
 * const changes = await log.readAfter(driver, "tasks", 0, 100)
 */
export class SqlChangeLog implements ChangeLog<SqlDriver> {
  readonly #recorded: SqlChangeLogOptions["recorded"];

  constructor(options: SqlChangeLogOptions = {}) {
    this.#recorded = options.recorded;
  }

  /** Creates the tables once per driver (outside any transaction); later calls answer the same promise. */
  ready(driver: SqlDriver): Promise<void> {
    let ready = tablesReady.get(driver);
    if (!ready) {
      ready = createTables(driver);
      tablesReady.set(driver, ready);
      // A failure is not cached: the next call tries again.
      ready.catch(() => tablesReady.delete(driver));
    }
    return ready;
  }

  /** Takes the collection's head row (made at 0 when new), locked until the transaction ends. */
  async lock(tx: SqlDriver, collection: string): Promise<void> {
    if (!tx.transaction) throw new TypeError("SqlChangeLog.lock runs in a transaction: pass driver.transaction's tx");
    await this.#advanceHead(tx, await storableKey(collection), 0);
  }

  async record(tx: SqlDriver, collection: string, changes: readonly ChangeToRecord[]): Promise<void> {
    if (!tx.transaction) throw new TypeError("SqlChangeLog.record runs in a transaction: pass driver.transaction's tx");
    if (changes.length === 0) return;
    const stored = await storableKey(collection);
    const head = await this.#advanceHead(tx, stored, changes.length);
    const batch: Batch = { collection: stored, changes, firstSeq: head - changes.length + 1, at: Date.now() };
    for (let start = 0; start < changes.length; start += INSERT_CHUNK) await this.#insert(tx, batch, start);
    const recorded = this.#recorded === undefined ? databaseRecorded(tx.dialect) : this.#recorded;
    // Brokers wake listeners by the collection's own name.
    await recorded?.(tx, collection);
  }

  async readAfter(driver: SqlDriver, collection: string, afterSeq: number, limit: number): Promise<RecordedChange[]> {
    assertCount(afterSeq, "afterSeq");
    assertCount(limit, "limit");
    await this.ready(driver);
    const { dialect } = driver;
    const q = dialect.quote;
    // The limit, a checked count, is written as its digits (as MySQL's dialect writes it anyway).
    const digits = (value: unknown) => String(value);
    const limitClause = dialect.limit ? dialect.limit(limit, digits) : dialect.limitOffset(limit, 0, digits);
    const lines = await queryStatement<ChangeLine>(driver, {
      text: [
        `SELECT ${q("seq")}, ${q("kind")}, ${q("row")}, ${q("before")}, ${q("at")} FROM ${q(CHANGES_TABLE)} WHERE ${q("collection")} = `,
        ` AND ${q("seq")} > `,
        ` ORDER BY ${q("seq")} ${limitClause}`,
      ],
      params: [await storableKey(collection), afterSeq],
    });
    return lines.map((line) => ({
      seq: Number(line.seq),
      kind: line.kind as ChangeKind,
      row: JSON.parse(line.row) as ChangeRow,
      before: line.before === null ? null : (JSON.parse(line.before) as ChangeRow),
      at: Number(line.at),
    }));
  }

  async bounds(driver: SqlDriver, collection: string): Promise<LogBounds> {
    await this.ready(driver);
    const { dialect } = driver;
    const q = dialect.quote;
    const stored = await storableKey(collection);
    // One statement, so both numbers come from one snapshot.
    const [line] = await queryStatement<{ oldest: unknown; newest: unknown }>(driver, {
      text: [
        `SELECT (SELECT MIN(${q("seq")}) FROM ${q(CHANGES_TABLE)} WHERE ${q("collection")} = `,
        `) AS ${q("oldest")}, (SELECT ${q("seq")} FROM ${q(CHANGE_HEADS_TABLE)} WHERE ${q("collection")} = `,
        `) AS ${q("newest")}`,
      ],
      params: [stored, stored],
    });
    const newest = line?.newest == null ? 0 : Number(line.newest);
    // trim keeps the newest change; should every change be gone by other means, none up to the head is held.
    const oldest = line?.oldest == null ? (newest > 0 ? newest + 1 : 0) : Number(line.oldest);
    return { oldest, newest };
  }

  async trim(driver: SqlDriver, collection: string, retention: Retention): Promise<void> {
    assertCount(retention.count, "retention.count");
    if (!(retention.maxAgeMs >= 0)) throw new RangeError("retention.maxAgeMs must be a non-negative number");
    const { newest } = await this.bounds(driver, collection);
    if (newest === 0) return;
    const q = driver.dialect.quote;
    // An infinite age keeps every change the count keeps: no `at` is below 0.
    const cutoff = Number.isFinite(retention.maxAgeMs) ? Math.floor(Date.now() - retention.maxAgeMs) : 0;
    // `seq < newest` keeps the newest change whatever the retention, so bounds stay meaningful.
    await executeStatement(driver, {
      text: [
        `DELETE FROM ${q(CHANGES_TABLE)} WHERE ${q("collection")} = `,
        ` AND ${q("seq")} < `,
        ` AND (${q("seq")} <= `,
        ` OR ${q("at")} < `,
        ")",
      ],
      params: [await storableKey(collection), newest, newest - retention.count, cutoff],
    });
  }

  /** Adds `count` to the head of `collection` (as stored) and answers the new head, its row locked until commit. */
  async #advanceHead(tx: SqlDriver, collection: string, count: number): Promise<number> {
    const { dialect } = tx;
    assertStoreDialect(dialect, REFUSAL);
    const { upsert } = dialect;
    const q = dialect.quote;
    const [heads, key, seq] = [q(CHANGE_HEADS_TABLE), q("collection"), q("seq")];
    // The upsert waits on a concurrent first insert of the same head instead of failing on the key.
    // MariaDB has no alias for the inserted row (MySQL 8's `AS new`) and VALUES() is deprecated on MySQL: bind count twice.
    const insert = {
      text: [
        `INSERT INTO ${heads} (${key}, ${seq}) VALUES (`,
        ", ",
        `) ${upsert.update(key)} ${seq} = ${upsert.stored(heads, seq)} + `,
        upsert.returning ? ` RETURNING ${seq}` : "",
      ],
      params: [collection, count, count],
    };
    if (upsert.returning) {
      const [line] = await queryStatement<{ seq: unknown }>(tx, insert);
      return Number(line.seq);
    }
    await executeStatement(tx, insert);
    // A locking read answers the row as this transaction left it, whatever its snapshot.
    const [line] = await queryStatement<{ seq: unknown }>(tx, {
      text: [`SELECT ${seq} FROM ${heads} WHERE ${key} = `, " FOR UPDATE"],
      params: [collection],
    });
    return Number(line.seq);
  }

  /** Writes the batch's changes from `start` on, at most INSERT_CHUNK, in one INSERT. */
  async #insert(tx: SqlDriver, batch: Batch, start: number): Promise<void> {
    const q = tx.dialect.quote;
    const { collection, changes, firstSeq, at } = batch;
    const end = Math.min(start + INSERT_CHUNK, changes.length);
    const columns = ["collection", "seq", "kind", "row", "before", "at"].map(q).join(", ");
    const text = [`INSERT INTO ${q(CHANGES_TABLE)} (${columns}) VALUES (`];
    const params: unknown[] = [];
    for (let index = start; index < end; index++) {
      const { kind, row, before } = changes[index];
      params.push(collection, firstSeq + index, kind, rowText(row), before === null ? null : rowText(before), at);
      // What follows each of the change's six values: a comma, and after the sixth the next tuple or the end.
      text.push(", ", ", ", ", ", ", ", ", ", index + 1 < end ? "), (" : ")");
    }
    await executeStatement(tx, { text, params });
  }
}
