import { type DurableObjectNamespaceLike, durableObjectBroker } from "../live/durable-object";
import type { ChangeFeed } from "../live/feed";
import { pollingBroker } from "../live/polling-broker";
import type { LiveStorage } from "../live/record";
import type { ChangeBroker } from "../live/types";
import { SqlChangeLog } from "./change-log";
import { D1ChangeLog, type RecordedTable } from "./d1-change-log";
import type { SqlDriver } from "./driver";
import { databaseRecorded, postgresBroker } from "./postgres-broker";

// Pure: an app that uses no live collection bundles none of the log. No hook of its own: recordedWrite
// runs the broker's `recorded` after it, in the same transaction.
const changeLog = /* @__PURE__ */ new SqlChangeLog({ recorded: null });
const d1ChangeLog = /* @__PURE__ */ new D1ChangeLog();

// One broker per feed and driver (or Durable Object namespace): every collection of a database shares it.
const brokers = new WeakMap<ChangeFeed, WeakMap<object, ChangeBroker<SqlDriver>>>();
// One storage per feed, driver and collection, made on the first write instead of on every one; past
// CACHED_COLLECTIONS names per driver (collections an app names from its input) each write makes its own.
const CACHED_COLLECTIONS = 256;
const storages = new WeakMap<ChangeFeed, WeakMap<SqlDriver, Map<string, LiveStorage<SqlDriver>>>>();

/** Where a live collection on D1 finds what it needs beyond the driver. */
export interface D1LiveOptions {
  /** The collection's table, whose triggers record its changes. */
  table: RecordedTable;
  /** The request's Workers bindings, holding the Durable Object namespace the feed names. */
  bindings: Record<string, unknown>;
}

/**
 * A live collection on a SQL database: the change log in its tables, the feed's broker or else the
 * database's own (PostgreSQL's LISTEN/NOTIFY where the driver can listen, else polling the log), and
 * the driver's transactions. D1 (a driver without transactions) needs `d1`: there the table's
 * triggers record each change in the write's own statement, and the Durable Object bound under the
 * feed's `durableObject` name wakes the listeners.
 */
export function sqlLiveStorage(
  feed: ChangeFeed,
  driver: SqlDriver,
  collection: string,
  d1?: D1LiveOptions,
): LiveStorage<SqlDriver> {
  if (!driver.transaction) return d1LiveStorage(feed, driver, collection, d1);
  const byDriver = entry(storages, feed, () => new WeakMap());
  const byCollection = entry(byDriver, driver, () => new Map());
  let live = byCollection.get(collection);
  if (!live) {
    live = transactionLiveStorage(feed, driver, collection);
    if (byCollection.size < CACHED_COLLECTIONS) byCollection.set(collection, live);
  }
  return live;
}

function transactionLiveStorage(feed: ChangeFeed, driver: SqlDriver, collection: string): LiveStorage<SqlDriver> {
  const transaction = driver.transaction!.bind(driver);
  return {
    source: { feed, log: changeLog, session: driver, broker: brokerFor(feed, driver), collection },
    async transaction(work) {
      // The log's tables are made outside any transaction: DDL would end a MySQL one.
      await changeLog.ready(driver);
      return transaction(work);
    },
  };
}

function d1LiveStorage(
  feed: ChangeFeed,
  driver: SqlDriver,
  collection: string,
  d1: D1LiveOptions | undefined,
): LiveStorage<SqlDriver> {
  if (!d1) {
    throw new Error(
      `The live collection ${collection} needs a database with transactions (SQLite, PostgreSQL, MySQL); on D1 only the SQL endpoints (D1CreateEndpoint, …, D1ChangesEndpoint) are live yet`,
    );
  }
  let broker = feed.broker;
  if (!broker) {
    const namespace = d1.bindings[feed.durableObject] as DurableObjectNamespaceLike | undefined;
    if (typeof namespace?.idFromName !== "function") {
      throw new Error(
        `The live collection ${collection} on D1 needs a Durable Object binding named ${feed.durableObject} (class LiveChangesObject, exported from the Worker)`,
      );
    }
    broker = cachedBroker(feed, namespace, () => durableObjectBroker(namespace));
  }
  return {
    // A session of its own per listener: on Workers, what one request opens (a socket, a read) is not another's to use.
    source: { feed, log: d1ChangeLog, session: { ...driver }, broker: afterTheWrite(broker, driver), collection },
    async transaction(work) {
      await d1ChangeLog.readyFor(driver, d1.table);
      return work(driver);
    },
  };
}

/**
 * `broker` on D1, which holds no transaction open: the write and its change stand once its statement ran,
 * so a `recorded` hook runs after it, beside `committed`, and its failure is logged rather than answered
 * (a client told the write failed would send it again).
 */
function afterTheWrite(broker: ChangeBroker<SqlDriver>, driver: SqlDriver): ChangeBroker<SqlDriver> {
  const { recorded } = broker;
  if (!recorded) return broker;
  return {
    watch: (collection, wake) => broker.watch(collection, wake),
    async committed(collection) {
      try {
        await recorded.call(broker, driver, collection);
      } catch (error) {
        console.error(
          `[specroute] the change feed broker's recorded hook failed after a write to ${collection}:`,
          error,
        );
      }
      return broker.committed(collection);
    },
  };
}

/**
 * The feed's broker, else the database's own (LISTEN/NOTIFY where the driver can listen, else polling);
 * on PostgreSQL, one without a `recorded` hook of its own is given the database's, so every write there
 * still wakes the processes listening by NOTIFY (a driver that cannot listen, another broker elsewhere).
 */
function brokerFor(feed: ChangeFeed, driver: SqlDriver): ChangeBroker<SqlDriver> {
  return cachedBroker(feed, driver, () => {
    const broker =
      feed.broker ?? (driver.listen ? postgresBroker(driver) : pollingBroker(driver, changeLog, feed.pollMs));
    const recorded = databaseRecorded(driver.dialect);
    if (broker.recorded || !recorded) return broker;
    return {
      watch: (collection, wake) => broker.watch(collection, wake),
      recorded,
      committed: (collection) => broker.committed(collection),
    };
  });
}

function cachedBroker(feed: ChangeFeed, key: object, make: () => ChangeBroker<SqlDriver>): ChangeBroker<SqlDriver> {
  return entry(
    entry(brokers, feed, () => new WeakMap()),
    key,
    make,
  );
}

/** The value `map` holds under `key`, made and kept on the first call. */
function entry<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
