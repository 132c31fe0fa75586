import type { ChangeBroker, ChangeLog } from "./types";

interface Watched {
  readonly wakes: Set<() => void>;
  /** The newest seq this process has seen the log hold. */
  newest: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Settles once `newest` was first read: growth is measured from then. */
  started: Promise<void>;
}

/**
 * A broker for storages that cannot notify (MySQL, MariaDB, SQLite shared by processes): while a
 * collection is watched, one timer reads its log's `bounds` every `intervalMs` and wakes the
 * collection's watchers when the newest seq grew. `committed` wakes this process's watchers at
 * once. The timer does not keep the process alive.
 *
 * @example
 * const log = new SqlChangeLog()
 * const broker = pollingBroker(mysql2Driver(pool), log, 1000)
 */
export function pollingBroker<Session>(session: Session, log: ChangeLog<Session>, intervalMs = 1000): ChangeBroker {
  if (!(intervalMs > 0)) throw new RangeError("pollingBroker's intervalMs must be a positive number");
  const watched = new Map<string, Watched>();

  const wake = (state: Watched) => {
    for (const entry of [...state.wakes]) entry();
  };
  // The next poll is set once this one ended, so polls never overlap on a slow database.
  const schedule = (collection: string, state: Watched) => {
    state.timer = setTimeout(() => void poll(collection, state), intervalMs);
    (state.timer as { unref?: () => void }).unref?.();
  };
  const poll = async (collection: string, state: Watched) => {
    try {
      const { newest } = await log.bounds(session, collection);
      if (watched.get(collection) !== state) return;
      if (newest > state.newest) {
        state.newest = newest;
        wake(state);
      }
    } catch (error) {
      console.error(`[specroute] polling the change log of ${collection} failed:`, error);
    }
    if (watched.get(collection) === state) schedule(collection, state);
  };
  const forget = (collection: string, state: Watched, entry: () => void) => {
    state.wakes.delete(entry);
    if (state.wakes.size > 0 || watched.get(collection) !== state) return;
    watched.delete(collection);
    clearTimeout(state.timer);
  };

  return {
    async watch(collection, onWake) {
      // Each watch its own entry, so one wake function watched twice is unwatched twice.
      const entry = () => onWake();
      let state = watched.get(collection);
      if (!state) {
        const fresh: Watched = { wakes: new Set(), newest: 0, timer: undefined, started: Promise.resolve() };
        // Growth is measured from here: a change committed once watch resolved always wakes.
        fresh.started = log.bounds(session, collection).then(({ newest }) => {
          fresh.newest = newest;
          if (watched.get(collection) === fresh) schedule(collection, fresh);
        });
        // A failed first read is not kept: the next watch reads again.
        fresh.started.catch(() => {
          if (watched.get(collection) === fresh) watched.delete(collection);
        });
        watched.set(collection, fresh);
        state = fresh;
      }
      const mine = state;
      mine.wakes.add(entry);
      try {
        await mine.started;
      } catch (error) {
        forget(collection, mine, entry);
        throw error;
      }
      return async () => forget(collection, mine, entry);
    },
    committed(collection) {
      const state = watched.get(collection);
      if (state) wake(state);
    },
  };
}
