import type { ChangeBroker, Retention } from "./types";

/** What a live collection keeps and how it treats its listeners; every member has a default. */
export interface ChangeFeedOptions {
  /** How much of the log a reconnecting listener can replay; default the newest 10,000 changes of the last 24 hours. */
  retention?: Partial<Retention>;
  /** Milliseconds of quiet after which a listener is sent a comment, so proxies keep the stream open; default 15,000. */
  heartbeatMs?: number;
  /** Changes kept for a listener that reads slower than they come; past that it gets a `lagged` event and is let go. Default 1,000. */
  bufferSize?: number;
  /** Wakes listeners in other processes; default: chosen by the database (PostgreSQL's NOTIFY, else polling the log). */
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
  readonly broker: ChangeBroker | undefined;
  readonly pollMs: number;
  readonly durableObject: string;

  constructor(options: ChangeFeedOptions = {}) {
    this.retention = Object.freeze({
      count: positive(options.retention?.count, 10_000, "retention.count"),
      maxAgeMs: positive(options.retention?.maxAgeMs, 24 * 60 * 60 * 1000, "retention.maxAgeMs"),
    });
    this.heartbeatMs = positive(options.heartbeatMs, 15_000, "heartbeatMs");
    this.bufferSize = positive(options.bufferSize, 1000, "bufferSize");
    this.pollMs = positive(options.pollMs, 1000, "pollMs");
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
