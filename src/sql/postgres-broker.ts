import { storableKey } from "../core/ops/hashed-key";
import type { ChangeBroker } from "../live/types";
import type { Dialect } from "./dialect";
import { postgresDialect } from "./dialects/postgres";
import type { SqlDriver } from "./driver";
import { queryStatement } from "./statement";

/**
 * The PostgreSQL channel a live write notifies in its transaction, with the collection's name as the payload
 * (as the change log's tables hold it: a NOTIFY payload holds no NUL and under 8,000 bytes).
 */
export const CHANGES_CHANNEL = "specroute_changes";

/** Milliseconds before listening again after the connection was lost, doubling up to the second while it fails. */
const RELISTEN_FIRST_MS = 1000;
const RELISTEN_MAX_MS = 30_000;

/** Notifies {@link CHANGES_CHANNEL} of `collection` in the transaction `tx` runs: delivered at its commit, never on rollback. */
async function notifyChanges(tx: SqlDriver, collection: string): Promise<void> {
  const payload = await storableKey(collection);
  await queryStatement(tx, { text: ["SELECT pg_notify(", ", ", ")"], params: [CHANGES_CHANNEL, payload] });
}

/**
 * The `recorded` hook every write on `dialect`'s database runs, whatever broker wakes its own
 * process's listeners: on PostgreSQL the NOTIFY {@link postgresBroker} sends, so processes listening
 * there hear it; none on another engine.
 */
export function databaseRecorded(dialect: Dialect): ((tx: SqlDriver, collection: string) => Promise<void>) | undefined {
  return dialect.name === postgresDialect.name ? notifyChanges : undefined;
}

/**
 * The broker of a PostgreSQL change log ({@link SqlChangeLog}): its `recorded` hook notifies
 * {@link CHANGES_CHANNEL} with the collection's name in the write's transaction, and it listens there
 * (one `driver.listen` while any collection is watched) and wakes that collection's watchers.
 * `committed` does nothing: the notification went with the transaction. Should the listening
 * connection be lost (a restarted server, a dropped connection), every watcher is woken (to read what
 * it may have missed) and the broker listens again on a new connection while any collection is
 * watched, a second later and then backing off to 30 seconds while the database refuses, waking every
 * watcher once more when it listens again.
 *
 * @example
 * const broker = postgresBroker(pgDriver(pool))
 * const stop = await broker.watch("tasks", () => readTheLogAgain())
 */
export function postgresBroker(driver: SqlDriver): ChangeBroker<SqlDriver> {
  const listen = driver.listen?.bind(driver);
  if (!listen) throw new TypeError("postgresBroker needs a driver that can listen (pgDriver over node-postgres)");
  const watchers = new Map<string, Set<() => void>>();
  let listening: Promise<() => Promise<void>> | null = null;
  let relisten: ReturnType<typeof setTimeout> | undefined;

  const wakeAll = (wakes: Iterable<() => void>) => {
    for (const wake of wakes) wake();
  };
  const wakeEveryone = () => wakeAll([...watchers.values()].flatMap((wakes) => [...wakes]));
  const start = () => {
    const started = listen(
      CHANGES_CHANNEL,
      (collection) => wakeAll([...(watchers.get(collection) ?? [])]),
      () => {
        if (listening === started) listening = null;
        wakeEveryone();
        listenAgain(RELISTEN_FIRST_MS);
      },
    );
    // A failed LISTEN is not kept: the next watch tries again.
    started.catch(() => {
      if (listening === started) listening = null;
    });
    return started;
  };
  // Watchers must not stay deaf after a lost connection: listen again while any is left.
  const listenAgain = (delayMs: number) => {
    if (relisten || watchers.size === 0) return;
    relisten = setTimeout(() => {
      relisten = undefined;
      if (listening || watchers.size === 0) return;
      const again = start();
      listening = again;
      // What committed while no connection listened is in the log: every watcher reads it.
      again.then(wakeEveryone, () => listenAgain(Math.min(delayMs * 2, RELISTEN_MAX_MS)));
    }, delayMs);
    (relisten as { unref?: () => void }).unref?.();
  };

  return {
    async watch(name, wake) {
      // Watched under the name a notification carries.
      const collection = await storableKey(name);
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
        if (watchers.size > 0) return;
        clearTimeout(relisten);
        relisten = undefined;
        if (!listening) return;
        const stop = listening;
        listening = null;
        await (await stop)();
      };
    },
    recorded: notifyChanges,
    committed() {},
  };

  function forget(collection: string, entry: () => void) {
    const wakes = watchers.get(collection);
    wakes?.delete(entry);
    if (wakes?.size === 0) watchers.delete(collection);
  }
}
