import type { RateLimitContext, RateLimitOutcome, RateLimitStore, RateLimitWindow } from "./rate-limit";

/** Options of {@link memoryRateLimitStore}. */
export interface MemoryRateLimitOptions {
  /** Most buckets kept; past it, expired ones are dropped, then the oldest. Default 10 000. */
  maxBuckets?: number;
  /** The clock in milliseconds; default `Date.now`. */
  now?: () => number;
}

/**
 * Counts in this process's memory, in fixed windows: for one process (a second process counts apart).
 *
 * @example
 * const limit = rateLimit({ limit: 10, windowSeconds: 1, store: memoryRateLimitStore() });
 */
export function memoryRateLimitStore(options: MemoryRateLimitOptions = {}): RateLimitStore {
  const maxBuckets = options.maxBuckets ?? 10_000;
  const now = options.now ?? Date.now;
  const buckets = new Map<string, { hits: number; resetAt: number }>();
  return {
    async hit(bucket: string, policy: RateLimitWindow): Promise<RateLimitOutcome> {
      const at = now();
      let entry = buckets.get(bucket);
      if (entry === undefined || entry.resetAt <= at) {
        if (entry === undefined && buckets.size >= maxBuckets) evict(buckets, at, maxBuckets);
        entry = { hits: 0, resetAt: at + policy.windowSeconds * 1000 };
        buckets.delete(bucket);
        buckets.set(bucket, entry);
      }
      entry.hits++;
      return {
        allowed: entry.hits <= policy.limit,
        remaining: Math.max(0, policy.limit - entry.hits),
        resetSeconds: Math.ceil((entry.resetAt - at) / 1000),
      };
    },
  };
}

/** Drops expired buckets; when none is, the oldest (a Map iterates in insertion order). */
function evict(buckets: Map<string, { resetAt: number }>, at: number, maxBuckets: number): void {
  for (const [bucket, entry] of buckets) if (entry.resetAt <= at) buckets.delete(bucket);
  if (buckets.size >= maxBuckets) buckets.delete(buckets.keys().next().value!);
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
