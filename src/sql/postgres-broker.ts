import type { ChangeBroker } from "../live/types";
import { CHANGES_CHANNEL } from "./change-log";
import type { SqlDriver } from "./driver";

/**
 * The broker of a PostgreSQL change log ({@link SqlChangeLog}): its writes notify
 * {@link CHANGES_CHANNEL} with the collection's name in their transaction, and this broker listens
 * there (one `driver.listen` while any collection is watched) and wakes that collection's watchers.
 * `committed` does nothing: the notification went with the transaction. Should the listening
 * connection be lost, every watcher is woken a last time (to read what it missed); a later `watch`
 * listens again, on a new connection, and from then on wakes the earlier watchers too.
 *
 * @example
 * const broker = postgresBroker(pgDriver(pool))
 * const stop = await broker.watch("tasks", () => readTheLogAgain())
 */
export function postgresBroker(driver: SqlDriver): ChangeBroker {
  const listen = driver.listen?.bind(driver);
  if (!listen) throw new TypeError("postgresBroker needs a driver that can listen (pgDriver over node-postgres)");
  const watchers = new Map<string, Set<() => void>>();
  let listening: Promise<() => Promise<void>> | null = null;

  const wakeAll = (wakes: Iterable<() => void>) => {
    for (const wake of wakes) wake();
  };
  const start = () => {
    const started = listen(
      CHANGES_CHANNEL,
      (collection) => wakeAll([...(watchers.get(collection) ?? [])]),
      () => {
        if (listening === started) listening = null;
        wakeAll([...watchers.values()].flatMap((wakes) => [...wakes]));
      },
    );
    // A failed LISTEN is not kept: the next watch tries again.
    started.catch(() => {
      if (listening === started) listening = null;
    });
    return started;
  };

  return {
    async watch(collection, wake) {
      const wakes = watchers.get(collection) ?? new Set();
      watchers.set(collection, wakes);
      // Each watch its own entry, so one wake function watched twice is unwatched twice.
      const entry = () => wake();
      wakes.add(entry);
      listening ??= start();
      try {
        await listening;
      } catch (error) {
        forget(collection, entry);
        throw error;
      }
      return async () => {
        forget(collection, entry);
        if (watchers.size > 0 || !listening) return;
        const stop = listening;
        listening = null;
        await (await stop)();
      };
    },
    committed() {},
  };

  function forget(collection: string, entry: () => void) {
    const wakes = watchers.get(collection);
    wakes?.delete(entry);
    if (wakes?.size === 0) watchers.delete(collection);
  }
}
