import {
  boundedBucket,
  type RateLimitContext,
  type RateLimitOutcome,
  type RateLimitStore,
  type RateLimitWindow,
} from "../core/ops/rate-limit";
import type { Dialect } from "./dialect";
import type { SqlDriver } from "./driver";

/** The table every SQL rate limit store counts in. */
export const RATE_LIMITS_TABLE = "specroute_rate_limits";

type Family = "sqlite" | "postgres" | "mysql";

function familyOf(dialect: Dialect): Family {
  if (dialect.name === "sqlite" || dialect.name === "postgres") return dialect.name;
  if (dialect.name === "mysql" || dialect.name === "mariadb") return "mysql";
  throw new TypeError(`sqlRateLimitStore has no table for the ${dialect.name} dialect`);
}

/**
 * The rate limit table as a `CREATE TABLE IF NOT EXISTS` statement for `dialect`, for migrations
 * (the store also creates it on first use).
 *
 * @example
 * await driver.execute(rateLimitTable(postgresDialect), []);
 */
export function rateLimitTable(dialect: Dialect): string {
  const q = dialect.quote;
  const [bucket, integer] =
    familyOf(dialect) === "mysql"
      ? ["VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "BIGINT"]
      : ["TEXT", familyOf(dialect) === "sqlite" ? "INTEGER" : "BIGINT"];
  const engine = familyOf(dialect) === "mysql" ? " ENGINE=InnoDB" : "";
  return `CREATE TABLE IF NOT EXISTS ${q(RATE_LIMITS_TABLE)} (${q("bucket")} ${bucket} NOT NULL PRIMARY KEY, ${q("window_start")} ${integer} NOT NULL, ${q("hits")} ${integer} NOT NULL)${engine}`;
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
 * the primary key. A bucket over 200 characters is stored as its SHA-256 (a MySQL key is at most 255).
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
      const family = familyOf(driver.dialect);
      const upsert = upsertStatement(driver.dialect, family);
      const at = now();
      const { windowMs, windowStart } = windowOf(policy, at);
      const params = [await boundedBucket(bucket), windowStart];
      const row = family === "mysql" ? await mysqlHit(driver, upsert, params) : (await driver.query(upsert, params))[0];
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
function upsertStatement(dialect: Dialect, family: Family): string {
  const q = dialect.quote;
  const p = dialect.placeholder;
  const [table, bucket, start, hits] = [q(RATE_LIMITS_TABLE), q("bucket"), q("window_start"), q("hits")];
  const insert = `INSERT INTO ${table} (${bucket}, ${start}, ${hits}) VALUES (${p(1)}, ${p(2)}, 1)`;
  if (family === "mysql") {
    // MySQL assigns left to right: `hits` is set while `window_start` still holds the stored value.
    return `${insert} ON DUPLICATE KEY UPDATE ${hits} = IF(${start} >= VALUES(${start}), ${hits} + 1, 1), ${start} = GREATEST(${start}, VALUES(${start}))`;
  }
  return `${insert} ON CONFLICT (${bucket}) DO UPDATE SET ${hits} = CASE WHEN ${table}.${start} >= excluded.${start} THEN ${table}.${hits} + 1 ELSE 1 END, ${start} = CASE WHEN ${table}.${start} >= excluded.${start} THEN ${table}.${start} ELSE excluded.${start} END RETURNING ${hits} AS hits, ${start} AS window_start`;
}

/** One bucket's count and window, by its primary key. */
function selectStatement(dialect: Dialect): string {
  const q = dialect.quote;
  return `SELECT ${q("hits")} AS hits, ${q("window_start")} AS window_start FROM ${q(RATE_LIMITS_TABLE)} WHERE ${q("bucket")} = ${dialect.placeholder(1)}`;
}

async function mysqlHit(driver: SqlDriver, upsert: string, params: unknown[]): Promise<Record<string, unknown>> {
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
