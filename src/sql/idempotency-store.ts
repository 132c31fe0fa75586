import type {
  IdempotencyClaim,
  IdempotencyContext,
  IdempotencyHold,
  IdempotencyStore,
  StoredAnswer,
} from "../core/ops/idempotency";
import { assertStoreDialect, type Dialect } from "./dialect";
import type { SqlDriver } from "./driver";

/** The table every SQL idempotency store keeps keys and answers in. */
export const IDEMPOTENCY_TABLE = "specroute_idempotency";

/** Claims retried when a key lapsed or expired and was deleted between the insert and the read: at most this many. */
const CLAIM_ATTEMPTS = 3;

/** What the store's table and statements refuse a dialect without `tables` and `upsert` with. */
const REFUSAL = "sqlIdempotencyStore has no table";

/**
 * The idempotency table as a `CREATE TABLE IF NOT EXISTS` statement for `dialect`, for migrations (the
 * store also creates it on first use).
 *
 * @example
 * await driver.execute(idempotencyTable(sqliteDialect), []);
 */
export function idempotencyTable(dialect: Dialect): string {
  assertStoreDialect(dialect, REFUSAL);
  const q = dialect.quote;
  const { keyText, longText, bigInteger, options } = dialect.tables;
  return `CREATE TABLE IF NOT EXISTS ${q(IDEMPOTENCY_TABLE)} (${q("idem_key")} ${keyText} NOT NULL PRIMARY KEY, ${q("fingerprint")} VARCHAR(64) NOT NULL, ${q("status")} INTEGER, ${q("answer")} ${longText}, ${q("expires_at")} ${bigInteger} NOT NULL)${options}`;
}

/** An idempotency store over SQL, and what it adds for keeping its table small. */
export interface SqlIdempotencyStore extends IdempotencyStore {
  /** Deletes expired keys; returns how many. */
  prune(): Promise<number>;
}

/**
 * Keeps idempotency keys and their answers in one table of the app's database (SQLite, PostgreSQL,
 * MySQL/MariaDB, D1). A key is claimed by an INSERT that only one of any number of racing processes
 * wins (the primary key); the others read what it holds. While its request runs, a key's `expires_at`
 * is the claim's lease end, and once answered the answer's expiry: a lapsed claim is deleted like an
 * expired answer, and the next INSERT claims the key again. `complete` and `release` act only on a row
 * whose `expires_at` is still their claim's lease end, so a request whose claim lapsed and was taken
 * over changes nothing. On Workers, pass a function of the request's context that makes the driver
 * from its `env`.
 *
 * @example
 * const once = idempotency({ store: sqlIdempotencyStore(pgDriver(pool)), expiresSeconds: 3600 });
 * const onD1 = sqlIdempotencyStore(({ env }) => d1Driver(env.DB));
 */
export function sqlIdempotencyStore(
  database: SqlDriver | ((ctx: IdempotencyContext) => SqlDriver),
  options: { now?: () => number } = {},
): SqlIdempotencyStore {
  const now = options.now ?? Date.now;
  const fixed = typeof database === "function" ? undefined : database;
  let created: Promise<unknown> | undefined;
  const driverFor = async (ctx: IdempotencyContext) => {
    const driver = fixed ?? (database as (ctx: IdempotencyContext) => SqlDriver)(ctx);
    created ??= createTable(driver, idempotencyTable(driver.dialect)).catch((err) => {
      created = undefined;
      throw err;
    });
    await created;
    return driver;
  };
  return {
    async claim({ key, fingerprint, leaseEnds }: IdempotencyHold, ctx): Promise<IdempotencyClaim> {
      const driver = await driverFor(ctx);
      const s = statements(driver.dialect);
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        // A lapsed claim or an expired answer frees the key; a live claim (its lease ahead) is never deleted.
        await driver.execute(s.deleteExpired, [key, now()]);
        const inserted = await driver.execute(s.insert, [key, fingerprint, leaseEnds]);
        if (inserted.changes === 1) return { state: "claimed" };
        const [row] = await driver.query(s.select, [key]);
        if (row === undefined) continue;
        const held = String(row.fingerprint);
        if (row.status === null || row.status === undefined) return { state: "in-flight", fingerprint: held };
        return { state: "done", fingerprint: held, answer: parseAnswer(Number(row.status), row.answer) };
      }
      throw new Error("An Idempotency-Key could not be claimed");
    },
    async complete({ key, fingerprint, leaseEnds }: IdempotencyHold, answer: StoredAnswer, expiresAt, ctx) {
      const driver = await driverFor(ctx);
      const { headers, body, truncated } = answer;
      const stored = JSON.stringify({ headers, body, truncated: truncated === true });
      const values = [answer.status, stored, expiresAt, key, fingerprint, leaseEnds];
      await driver.execute(statements(driver.dialect).complete, values);
    },
    async release({ key, fingerprint, leaseEnds }: IdempotencyHold, ctx): Promise<void> {
      const driver = await driverFor(ctx);
      await driver.execute(statements(driver.dialect).release, [key, fingerprint, leaseEnds]);
    },
    async prune(): Promise<number> {
      if (!fixed) throw new Error("prune() needs the store made with a driver, not a function of the request");
      const driver = await driverFor({ env: undefined });
      const q = driver.dialect.quote;
      const sql = `DELETE FROM ${q(IDEMPOTENCY_TABLE)} WHERE ${q("expires_at")} < ${driver.dialect.placeholder(1)}`;
      return (await driver.execute(sql, [now()])).changes;
    },
  };
}

/** The store's statements in `dialect`'s words: every value bound, the identifiers fixed. */
function statements(dialect: Dialect) {
  assertStoreDialect(dialect, REFUSAL);
  const q = dialect.quote;
  const p = dialect.placeholder;
  const [table, key, fingerprint, status, answer, expires] = [
    q(IDEMPOTENCY_TABLE),
    q("idem_key"),
    q("fingerprint"),
    q("status"),
    q("answer"),
    q("expires_at"),
  ];
  const values = `(${key}, ${fingerprint}, ${expires}) VALUES (${p(1)}, ${p(2)}, ${p(3)})`;
  return {
    deleteExpired: `DELETE FROM ${table} WHERE ${key} = ${p(1)} AND ${expires} < ${p(2)}`,
    // Only one racing INSERT of a key writes a row; the others change nothing.
    insert: dialect.upsert.insertIfAbsent(table, key, values),
    select: `SELECT ${fingerprint} AS fingerprint, ${status} AS status, ${answer} AS answer FROM ${table} WHERE ${key} = ${p(1)}`,
    // Only the claim that wrote the row: its lease end is still there, and no answer yet.
    complete: `UPDATE ${table} SET ${status} = ${p(1)}, ${answer} = ${p(2)}, ${expires} = ${p(3)} WHERE ${key} = ${p(4)} AND ${fingerprint} = ${p(5)} AND ${expires} = ${p(6)} AND ${status} IS NULL`,
    release: `DELETE FROM ${table} WHERE ${key} = ${p(1)} AND ${fingerprint} = ${p(2)} AND ${expires} = ${p(3)} AND ${status} IS NULL`,
  };
}

/** A stored answer read back; only the fields it was written with, so nothing else is merged in. */
function parseAnswer(status: number, text: unknown): StoredAnswer {
  const parsed = JSON.parse(String(text ?? "{}")) as Partial<StoredAnswer>;
  const headers = Array.isArray(parsed.headers)
    ? parsed.headers.filter(
        (pair): pair is [string, string] =>
          Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string",
      )
    : [];
  return {
    status,
    headers,
    body: typeof parsed.body === "string" ? parsed.body : "",
    truncated: parsed.truncated === true,
  };
}

/** Runs `CREATE TABLE IF NOT EXISTS`, once more when it fails: processes racing to create it (PostgreSQL) see it the second time. */
async function createTable(driver: SqlDriver, statement: string): Promise<void> {
  try {
    await driver.execute(statement, []);
  } catch {
    await driver.execute(statement, []);
  }
}
