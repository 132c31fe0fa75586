import type { ChangeFeed } from "./feed";
import type { ChangeSource } from "./listen";
import type { ChangeToRecord } from "./types";

/** A live collection on one storage: where its changes are, and how a write runs in one transaction there. */
export interface LiveStorage<Session> {
  readonly source: ChangeSource<Session>;
  transaction<T>(work: (session: Session) => Promise<T>): Promise<T>;
}

/** What a write did: its result, and the changes it made to the collection. */
export interface WriteOutcome<T> {
  result: T;
  changes: readonly ChangeToRecord[];
}

/** Commits after which a process trims its collection's log: trimming is a sweep, not a per-write cost. */
const TRIM_EVERY = 64;
const commitsSinceTrim = new WeakMap<ChangeFeed, Map<string, number>>();

/**
 * Runs `work` in one transaction with the change it makes recorded there: the collection's writers are
 * serialized first (so what `work` reads of a row before changing it is what the change replaces), the
 * changes are recorded in the same transaction (so a crash between commit and publish loses nothing),
 * followed there by the broker's `recorded` hook, and after the commit the broker wakes the listeners.
 */
export async function recordedWrite<Session, T>(
  live: LiveStorage<Session>,
  work: (session: Session) => Promise<WriteOutcome<T>>,
): Promise<T> {
  const { log, broker, collection, feed } = live.source;
  const { result, changes } = await live.transaction(async (session) => {
    await log.lock(session, collection);
    const outcome = await work(session);
    if (outcome.changes.length > 0) {
      await log.record(session, collection, outcome.changes);
      await broker.recorded?.(session, collection);
    }
    return outcome;
  });
  if (changes.length === 0) return result;
  await broker.committed(collection);
  if (dueForTrim(feed, collection)) {
    // The write has committed and answers; a failed sweep is retried by a later write.
    log.trim(live.source.session, collection, feed.retention).catch((error: unknown) => {
      console.error(`[specroute] trimming the change log of ${collection} failed:`, error);
    });
  }
  return result;
}

function dueForTrim(feed: ChangeFeed, collection: string): boolean {
  let counts = commitsSinceTrim.get(feed);
  if (!counts) {
    counts = new Map();
    commitsSinceTrim.set(feed, counts);
  }
  const count = (counts.get(collection) ?? 0) + 1;
  counts.set(collection, count % TRIM_EVERY);
  return count === TRIM_EVERY;
}
