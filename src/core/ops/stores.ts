import type { RateLimitContext, RateLimitOutcome, RateLimitStore, RateLimitWindow } from "./rate-limit";

/** Options of {@link memoryRateLimitStore}. */
export interface MemoryRateLimitOptions {
  /**
   * Most buckets kept. A new key past it takes the place of an expired bucket, else of the oldest one still
   * within its limit; a bucket over its limit is kept until its window ends, and while every kept bucket is
   * over its limit a new key is refused (429). Default 10 000.
   */
  maxBuckets?: number;
  /** The clock in milliseconds; default `Date.now`. */
  now?: () => number;
}

/** One key's count in its current window. */
interface Bucket {
  hits: number;
  resetAt: number;
}

/**
 * The buckets of one window length. Both maps run in the order the buckets expire (a bucket whose window
 * restarts is put back at the end), so the expired ones are always first: `all` holds every bucket, `open`
 * those still within their limit, which a new key may take the place of.
 */
interface SameWindow {
  all: Map<string, Bucket>;
  open: Map<string, Bucket>;
}

/**
 * Counts in this process's memory, in fixed windows: for one process (a second process counts apart). Each
 * hit costs O(1) (amortised), however many keys a flood brings: see `maxBuckets` for what a full store does.
 *
 * @example
 * const limit = rateLimit({ limit: 10, windowSeconds: 1, store: memoryRateLimitStore() });
 */
export function memoryRateLimitStore(options: MemoryRateLimitOptions = {}): RateLimitStore {
  const maxBuckets = options.maxBuckets ?? 10_000;
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1) throw new Error("maxBuckets must be a positive integer");
  const now = options.now ?? Date.now;
  // By window length in seconds: policies sharing the store may have different windows.
  const windows = new Map<number, SameWindow>();
  let size = 0;

  const windowOf = (policy: RateLimitWindow) => {
    let same = windows.get(policy.windowSeconds);
    if (same === undefined) {
      same = { all: new Map(), open: new Map() };
      windows.set(policy.windowSeconds, same);
    }
    return same;
  };
  /** Drops the expired buckets at the front of each window: each bucket is dropped once, so O(1) a hit. */
  const dropExpired = (at: number) => {
    for (const same of windows.values()) {
      for (const [bucket, entry] of same.all) {
        if (entry.resetAt > at) break;
        drop(same, bucket);
      }
    }
  };
  const drop = (same: SameWindow, bucket: string) => {
    same.all.delete(bucket);
    same.open.delete(bucket);
    size--;
  };
  /** Whether a new bucket fits: under the bound, or in the place of the oldest bucket within its limit (evicted). */
  const room = (at: number): boolean => {
    // Stryker disable next-line ConditionalExpression: equivalent, dropping expired buckets early changes no count (an expired bucket restarts on its next hit anyway), only the time a hit takes
    if (size < maxBuckets) return true;
    dropExpired(at);
    if (size < maxBuckets) return true;
    let oldest: [SameWindow, string, Bucket] | undefined;
    for (const same of windows.values()) {
      const first = same.open.entries().next().value;
      if (first !== undefined && (oldest === undefined || first[1].resetAt < oldest[2].resetAt)) {
        oldest = [same, first[0], first[1]];
      }
    }
    if (oldest === undefined) return false;
    drop(oldest[0], oldest[1]);
    return true;
  };
  /** Seconds until the first bucket expires: when a full store has room again. */
  const untilRoom = (at: number): number => {
    let first = Number.POSITIVE_INFINITY;
    for (const same of windows.values()) {
      const entry = same.all.values().next().value;
      if (entry !== undefined) first = Math.min(first, entry.resetAt);
    }
    return Math.max(1, Math.ceil((first - at) / 1000));
  };
  const outcome = (entry: Bucket, policy: RateLimitWindow, at: number) => ({
    allowed: entry.hits <= policy.limit,
    remaining: Math.max(0, policy.limit - entry.hits),
    resetSeconds: Math.ceil((entry.resetAt - at) / 1000),
  });
  /** The bucket's entry in its current window; undefined (and dropped) once its window has ended. */
  const current = (same: SameWindow, bucket: string, at: number) => {
    const entry = same.all.get(bucket);
    if (entry === undefined || entry.resetAt > at) return entry;
    drop(same, bucket);
    return undefined;
  };

  return {
    async hit(bucket: string, policy: RateLimitWindow): Promise<RateLimitOutcome> {
      const at = now();
      const same = windowOf(policy);
      let entry = current(same, bucket, at);
      if (entry === undefined) {
        if (!room(at)) return { allowed: false, remaining: 0, resetSeconds: untilRoom(at) };
        entry = { hits: 0, resetAt: at + policy.windowSeconds * 1000 };
        same.all.set(bucket, entry);
        same.open.set(bucket, entry);
        size++;
      }
      entry.hits++;
      // Spent: kept until its window ends, never given up to make room.
      if (entry.hits >= policy.limit) same.open.delete(bucket);
      return outcome(entry, policy, at);
    },
    async refund(bucket: string, policy: RateLimitWindow): Promise<void> {
      // A spent bucket given one back stays out of `open`: kept, not given up for room, until it expires.
      const entry = current(windowOf(policy), bucket, now());
      if (entry !== undefined && entry.hits > 0) entry.hits--;
    },
  };
}

/** A Workers Rate Limiting binding, as `env.NAME` is. */
export interface WorkersRateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * Counts with a Workers Rate Limiting binding named `binding` (its limit and period are set in the
 * wrangler configuration; give the policy the same, for the document and `RateLimit-Policy`). The binding
 * tells no count, so only `RateLimit-Policy` is sent; a 429's `Retry-After` is the policy's window.
 *
 * @example
 * const limit = rateLimit({ limit: 100, windowSeconds: 60, store: workersRateLimitStore("API_LIMITER") });
 */
export function workersRateLimitStore(binding: string): RateLimitStore {
  return {
    async hit(bucket: string, _policy: RateLimitWindow, ctx: RateLimitContext): Promise<RateLimitOutcome> {
      const limiter = ctx.env?.[binding] as WorkersRateLimiter | undefined;
      if (typeof limiter?.limit !== "function") throw new Error(`No Workers Rate Limiting binding named ${binding}`);
      const { success } = await limiter.limit({ key: bucket });
      return { allowed: success };
    },
  };
}
