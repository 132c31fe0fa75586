import {
  boundedBucket,
  type RateLimitContext,
  type RateLimitOutcome,
  type RateLimitStore,
  type RateLimitWindow,
} from "../core/ops/rate-limit";
import { assertStoreDialect, type Dialect, type StoreDialect } from "./dialect";
import type { SqlDriver } from "./driver";

/** The table every SQL rate limit store counts in. */
export const RATE_LIMITS_TABLE = "specroute_rate_limits";

/** What the store's table and statements refuse a dialect without `tables` and `upsert` with. */
const REFUSAL = "sqlRateLimitStore has no table";

/**
 * The rate limit table as a `CREATE TABLE IF NOT EXISTS` statement for `dialect`, for migrations
 * (the store also creates it on first use).
 *
 * @example
 * await driver.execute(rateLimitTable(postgresDialect), []);
 */
export function rateLimitTable(dialect: Dialect): string {
  assertStoreDialect(dialect, REFUSAL);
  const q = dialect.quote;
  const { keyText, bigInteger, options } = dialect.tables;
  return `CREATE TABLE IF NOT EXISTS ${q(RATE_LIMITS_TABLE)} (${q("bucket")} ${keyText} NOT NULL PRIMARY KEY, ${q("window_start")} ${bigInteger} NOT NULL, ${q("hits")} ${bigInteger} NOT NULL)${options}`;
}

/** A rate limit store over SQL, and what it adds for keeping its table small. */
export interface SqlRateLimitStore extends RateLimitStore {
  /** Deletes buckets whose window started more than `seconds` ago (the longest policy's window); returns how many. */
  prune(seconds: number): Promise<number>;
}

/**
 * Counts in one table of the app's database, in fixed windows, with one atomic upsert per request: shared
 * by every process using the database (PostgreSQL, MySQL/MariaDB, SQLite, D1). On MySQL/MariaDB, which
 * cannot return the counted row, the upsert and a read run in one transaction. `refund` is one UPDATE by
 * the primary key. A bucket over 200 characters (a MySQL key is at most 255), ending in a space (which
 * MySQL/MariaDB's PAD SPACE key ignores) or holding NUL (which PostgreSQL text cannot) is stored as its SHA-256.
 * On Workers, pass a function of the request's context that makes the driver from its `env`.
 *
 * @example
 * const limit = rateLimit({ limit: 100, windowSeconds: 60, store: sqlRateLimitStore(pgDriver(pool)) });
 * const onD1 = sqlRateLimitStore(({ env }) => d1Driver(env.DB));
 */
export function sqlRateLimitStore(
  database: SqlDriver | ((ctx: RateLimitContext) => SqlDriver),
  options: { now?: () => number } = {},
): SqlRateLimitStore {
  const now = options.now ?? Date.now;
  let created: Promise<unknown> | undefined;
  const ready = (driver: SqlDriver) => {
    created ??= createTable(driver, rateLimitTable(driver.dialect)).catch((err) => {
      created = undefined;
      throw err;
    });
    return created;
  };
  const fixed = typeof database === "function" ? undefined : database;
  const driverFor = (ctx: RateLimitContext) => fixed ?? (database as (ctx: RateLimitContext) => SqlDriver)(ctx);
  const windowOf = (policy: RateLimitWindow, at: number) => {
    const windowMs = policy.windowSeconds * 1000;
    return { windowMs, windowStart: Math.floor(at / windowMs) * windowMs };
  };
  return {
    async hit(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<RateLimitOutcome> {
      const driver = driverFor(ctx);
      await ready(driver);
      const { dialect } = driver;
      assertStoreDialect(dialect, REFUSAL);
      const upsert = upsertStatement(dialect);
      const at = now();
      const { windowMs, windowStart } = windowOf(policy, at);
      // The window start bound once for the row inserted, and again for each test of the stored one.
      const params = [await boundedBucket(bucket), windowStart, windowStart, windowStart, windowStart];
      const row = dialect.upsert.returning
        ? (await driver.query(upsert, params))[0]
        : await hitThenRead(driver, upsert, params);
      const hits = Number(row?.hits);
      const resetAt = Number(row?.window_start) + windowMs;
      return {
        allowed: hits <= policy.limit,
        remaining: Math.max(0, policy.limit - hits),
        resetSeconds: Math.max(0, Math.ceil((resetAt - at) / 1000)),
      };
    },
    async refund(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<void> {
      const driver = driverFor(ctx);
      await ready(driver);
      const q = driver.dialect.quote;
      const p = driver.dialect.placeholder;
      const [hits, start] = [q("hits"), q("window_start")];
      // Only in the current window (a later one, from a slower clock elsewhere, too), never below 0.
      const sql = `UPDATE ${q(RATE_LIMITS_TABLE)} SET ${hits} = ${hits} - 1 WHERE ${q("bucket")} = ${p(1)} AND ${start} >= ${p(2)} AND ${hits} > 0`;
      await driver.execute(sql, [await boundedBucket(bucket), windowOf(policy, now()).windowStart]);
    },
    async prune(seconds: number): Promise<number> {
      if (!fixed) throw new Error("prune() needs the store made with a driver, not a function of the request");
      const driver = fixed;
      await ready(driver);
      const q = driver.dialect.quote;
      const sql = `DELETE FROM ${q(RATE_LIMITS_TABLE)} WHERE ${q("window_start")} < ${driver.dialect.placeholder(1)}`;
      return (await driver.execute(sql, [now() - seconds * 1000])).changes;
    },
  };
}

/** The counting upsert: a later window restarts the count; an earlier one (a slow clock) counts in the stored one. */
function upsertStatement(dialect: StoreDialect): string {
  const q = dialect.quote;
  const p = dialect.placeholder;
  const { upsert } = dialect;
  const [table, bucket, start, hits] = [q(RATE_LIMITS_TABLE), q("bucket"), q("window_start"), q("hits")];
  const [storedStart, storedHits] = [upsert.stored(table, start), upsert.stored(table, hits)];
  // `hits` first: MySQL assigns left to right, so `window_start` still holds the stored value when `hits` is set.
  const set = `${hits} = CASE WHEN ${storedStart} >= ${p(3)} THEN ${storedHits} + 1 ELSE 1 END, ${start} = CASE WHEN ${storedStart} >= ${p(4)} THEN ${storedStart} ELSE ${p(5)} END`;
  const returning = upsert.returning ? ` RETURNING ${hits} AS hits, ${start} AS window_start` : "";
  return `INSERT INTO ${table} (${bucket}, ${start}, ${hits}) VALUES (${p(1)}, ${p(2)}, 1) ${upsert.update(bucket)} ${set}${returning}`;
}

/** One bucket's count and window, by its primary key. */
function selectStatement(dialect: Dialect): string {
  const q = dialect.quote;
  return `SELECT ${q("hits")} AS hits, ${q("window_start")} AS window_start FROM ${q(RATE_LIMITS_TABLE)} WHERE ${q("bucket")} = ${dialect.placeholder(1)}`;
}

/** The upsert, then the row it wrote, in one transaction: for an engine whose upsert cannot return it (MySQL). */
async function hitThenRead(driver: SqlDriver, upsert: string, params: unknown[]): Promise<Record<string, unknown>> {
  const select = selectStatement(driver.dialect);
  const run = async (db: SqlDriver) => {
    await db.execute(upsert, params);
    return (await db.query(select, [params[0]]))[0] ?? {};
  };
  return driver.transaction ? driver.transaction(run) : run(driver);
}

/** Runs `CREATE TABLE IF NOT EXISTS`, once more when it fails: processes racing to create it (PostgreSQL) see it the second time. */
async function createTable(driver: SqlDriver, statement: string): Promise<void> {
  try {
    await driver.execute(statement, []);
  } catch {
    await driver.execute(statement, []);
  }
}
