import type { ChangeFeed } from "../live/feed";
import { pollingBroker } from "../live/polling-broker";
import type { LiveStorage } from "../live/record";
import type { ChangeBroker } from "../live/types";
import { SqlChangeLog } from "./change-log";
import type { SqlDriver } from "./driver";
import { postgresBroker } from "./postgres-broker";

// Pure: an app that uses no live collection bundles none of the log.
const changeLog = /* @__PURE__ */ new SqlChangeLog();

// One broker per feed and driver: every collection of a database shares its LISTEN connection or its poller.
const brokers = new WeakMap<ChangeFeed, WeakMap<SqlDriver, ChangeBroker>>();

/**
 * A live collection on a SQL database: the change log in its tables, the feed's broker or else the
 * database's own (PostgreSQL's LISTEN/NOTIFY where the driver can listen, else polling the log), and
 * the driver's transactions. D1 has none to hold a write and its change in (its Durable Object broker
 * is still to come), so a live collection there is refused with a message that says so.
 */
export function sqlLiveStorage(feed: ChangeFeed, driver: SqlDriver, collection: string): LiveStorage<SqlDriver> {
  const transaction = driver.transaction?.bind(driver);
  if (!transaction) {
    throw new Error(
      `The live collection ${collection} needs a database with transactions (SQLite, PostgreSQL, MySQL); D1 is not supported yet`,
    );
  }
  return {
    source: { feed, log: changeLog, session: driver, broker: brokerFor(feed, driver), collection },
    async transaction(work) {
      // The log's tables are made outside any transaction: DDL would end a MySQL one.
      await changeLog.ready(driver);
      return transaction(work);
    },
  };
}

function brokerFor(feed: ChangeFeed, driver: SqlDriver): ChangeBroker {
  if (feed.broker) return feed.broker;
  let byDriver = brokers.get(feed);
  if (!byDriver) {
    byDriver = new WeakMap();
    brokers.set(feed, byDriver);
  }
  let broker = byDriver.get(driver);
  if (!broker) {
    broker = driver.listen ? postgresBroker(driver) : pollingBroker(driver, changeLog, feed.pollMs);
    byDriver.set(driver, broker);
  }
  return broker;
}
