import type { ChangeBroker, Retention } from "./types";

/** How many streams of a feed one process holds open at once; past either bound a new listener is answered 429. */
export interface ListenerBounds {
  /** Per caller: the changes endpoint's `listenerKey()` (by default the client's address). */
  readonly perCaller: number;
  /** In all, whoever the callers are. */
  readonly perProcess: number;
}

/** How far back and how many at once listeners of a feed may replay the log after a `Last-Event-ID`. */
export interface ReplayBounds {
  /** The most changes a `Last-Event-ID` may be behind the log's newest: one further back is answered `reset`. */
  readonly maxChanges: number;
  /** Catch-up reads (a listener's own reads of the log, replays included) of the feed running at once in a process; the others wait their turn. */
  readonly concurrency: number;
}

/** What a live collection keeps and how it treats its listeners; every member has a default. */
export interface ChangeFeedOptions {
  /** How much of the log a reconnecting listener can replay; default the newest 10,000 changes of the last 24 hours. */
  retention?: Partial<Retention>;
  /** Milliseconds of quiet after which a listener is sent a comment, so proxies keep the stream open; default 15,000. */
  heartbeatMs?: number;
  /** Changes kept for a listener that reads slower than they come; past that it gets a `lagged` event and is let go. Default 1,000. */
  bufferSize?: number;
  /**
   * The longest a stream stays open, in milliseconds: it then ends with a `reconnect` event carrying the id
   * to go on from, and the client's reconnect is authenticated (and `before()` run) again. Default 300,000
   * (5 minutes); each stream's is drawn between 80 % and 100 % of it, so streams opened together do not
   * all come back together.
   */
  lifetimeMs?: number;
  /** Streams open at once in one process: per caller (default 16) and in all (default 1,000). */
  maxListeners?: Partial<ListenerBounds>;
  /** Replays after a `Last-Event-ID`: at most 1,000 changes back (default), 2 catch-up reads at once (default). */
  replay?: Partial<ReplayBounds>;
  /**
   * Wakes listeners in other processes; default: chosen by the database (PostgreSQL's NOTIFY, else
   * polling the log). On PostgreSQL the writes still send the NOTIFY unless it has a `recorded` hook.
   */
  broker?: ChangeBroker;
  /** How often the polling broker reads the log's head, in milliseconds; default 1,000. */
  pollMs?: number;
  /** On D1, the Workers binding of the `LiveChangesObject` Durable Object namespace that wakes listeners; default `LIVE_CHANGES`. */
  durableObject?: string;
}

/**
 * A live collection's settings, shared by its writers (the auto endpoints whose `_meta` names it, which
 * record each change in the write's transaction) and its listeners (a changes endpoint over the same
 * `_meta`). Immutable once made.
 *
 * @example
 * const taskChanges = changeFeed({ retention: { count: 50_000 }, heartbeatMs: 10_000 });
 * const taskMeta = { model: taskModel, changes: taskChanges };
 */
export class ChangeFeed {
  readonly retention: Retention;
  readonly heartbeatMs: number;
  readonly bufferSize: number;
  readonly lifetimeMs: number;
  readonly maxListeners: ListenerBounds;
  readonly replay: ReplayBounds;
  readonly broker: ChangeBroker | undefined;
  readonly pollMs: number;
  readonly durableObject: string;

  constructor(options: ChangeFeedOptions = {}) {
    this.retention = Object.freeze({
      count: positive(options.retention?.count, 10_000, "retention.count"),
      maxAgeMs: positive(options.retention?.maxAgeMs, 24 * 60 * 60 * 1000, "retention.maxAgeMs"),
    });
    this.heartbeatMs = delay(options.heartbeatMs, 15_000, "heartbeatMs");
    this.bufferSize = positive(options.bufferSize, 1000, "bufferSize");
    this.lifetimeMs = delay(options.lifetimeMs, 5 * 60 * 1000, "lifetimeMs");
    this.maxListeners = Object.freeze({
      perCaller: positive(options.maxListeners?.perCaller, 16, "maxListeners.perCaller"),
      perProcess: positive(options.maxListeners?.perProcess, 1000, "maxListeners.perProcess"),
    });
    this.replay = Object.freeze({
      maxChanges: positive(options.replay?.maxChanges, 1000, "replay.maxChanges"),
      concurrency: positive(options.replay?.concurrency, 2, "replay.concurrency"),
    });
    this.pollMs = delay(options.pollMs, 1000, "pollMs");
    this.broker = options.broker;
    this.durableObject = options.durableObject ?? "LIVE_CHANGES";
    Object.freeze(this);
  }
}

/** A live collection's settings (see `ChangeFeed`). */
export function changeFeed(options: ChangeFeedOptions = {}): ChangeFeed {
  return new ChangeFeed(options);
}

// A shape check like isApiException's, on purpose: two loaded copies of specroute have two ChangeFeed classes.
/** Whether `value` is a change feed (by shape, so two loaded copies of specroute still agree). */
export function isChangeFeed(value: unknown): value is ChangeFeed {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ChangeFeed).heartbeatMs === "number" &&
    typeof (value as ChangeFeed).retention === "object"
  );
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`changeFeed: ${name} must be a positive integer`);
  return value;
}

/** The longest delay a timer takes: a longer one fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Milliseconds a timer waits: a positive integer a timer can take. */
function delay(value: number | undefined, fallback: number, name: string): number {
  const ms = positive(value, fallback, name);
  if (ms > MAX_DELAY_MS) throw new RangeError(`changeFeed: ${name} must be at most ${MAX_DELAY_MS} (about 24 days)`);
  return ms;
}
