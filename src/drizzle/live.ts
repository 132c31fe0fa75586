import { type SQL, type SQLChunk, sql } from "drizzle-orm";
import type { ChangeFeed } from "../live/feed";
import type { ChangeSource } from "../live/listen";
import type { LiveStorage } from "../live/record";
import type { ChangeBroker, ChangeLog } from "../live/types";
import type { Dialect } from "../sql/dialect";
import { mysqlDialect } from "../sql/dialects/mysql";
import { postgresDialect } from "../sql/dialects/postgres";
import { sqliteDialect } from "../sql/dialects/sqlite";
import type { ExecuteResult, SqlDriver, StatementParts } from "../sql/driver";
import { pgDriver } from "../sql/drivers/pg";
import { ConnectionLock } from "../sql/drivers/transaction";
import { sqlLiveStorage } from "../sql/live";
import { statementText } from "../sql/statement";
import { type DrizzleDatabase, databaseDialect, isEntity } from "./dialects";
import type { DrizzleSession } from "./table";

// `any`: the three dialects' databases share `execute`/`all`/`run`/`transaction` by name, not by a declared type.
type AnyDatabase = any;

/**
 * A SqlDriver over a Drizzle database or transaction, and that Drizzle database, which the table's
 * statements use. It takes a statement's values only in parts, which Drizzle binds in their places.
 */
interface DrizzleSqlDriver extends SqlDriver {
  readonly drizzle: DrizzleDatabase;
  queryParts<T = Record<string, unknown>>(statement: StatementParts): Promise<T[]>;
  executeParts(statement: StatementParts): Promise<ExecuteResult>;
}

const SQL_DIALECTS: Record<"sqlite" | "postgres" | "mysql", Dialect> = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
  mysql: mysqlDialect,
};

// One driver per Drizzle database, so the change log's tables, its broker and its readers are made once per database.
const drivers = new WeakMap<object, DrizzleSqlDriver>();
// One lock per synchronous SQLite connection (its client, which several Drizzle databases may wrap).
const connectionLocks = new WeakMap<object, ConnectionLock>();
// One pg driver per node-postgres Pool, for its LISTEN connection only: every database over the pool shares it.
const listeners = new WeakMap<object, SqlDriver>();
// The session of each Drizzle database its listeners read on, and the driver each session's statements go to.
const rootSessions = new WeakMap<object, DrizzleSession>();
const sessionDrivers = new WeakMap<DrizzleSession, DrizzleSqlDriver>();
// The Drizzle side of each SQL live storage, and of its log, made once instead of on every write.
const sources = new WeakMap<LiveStorage<SqlDriver>, ChangeSource<DrizzleSession>>();
const drizzleLogs = new WeakMap<ChangeLog<SqlDriver>, ChangeLog<DrizzleSession>>();

/** A statement given as parts (the text around each value) as Drizzle SQL: Drizzle writes each value's placeholder. */
function drizzleStatement(statement: StatementParts): SQL {
  const { text, params } = statement;
  const chunks: SQLChunk[] = [sql.raw(text[0])];
  for (let index = 0; index < params.length; index++) chunks.push(sql.param(params[index]), sql.raw(text[index + 1]));
  return sql.join(chunks);
}

/** A statement given as text: bound values have no place in it that Drizzle can know, so it carries none. */
function textStatement(text: string, params: unknown[]): SQL {
  if (params.length > 0) {
    throw new TypeError(
      "A Drizzle database takes a statement's values in parts: run it with queryParts or executeParts",
    );
  }
  return sql.raw(text);
}

/** Rows and counts as each dialect's Drizzle databases answer a raw statement. */
async function rowsOf(db: AnyDatabase, dialect: Dialect, statement: SQL): Promise<any[]> {
  if (dialect === sqliteDialect) return await db.all(statement);
  const result = await db.execute(statement);
  // mysql2 answers [rows, fields]; postgres.js the rows; node-postgres and PGlite { rows }.
  if (dialect === mysqlDialect) return result[0];
  return Array.isArray(result) ? result : result.rows;
}

async function countOf(db: AnyDatabase, dialect: Dialect, statement: SQL): Promise<ExecuteResult> {
  const result = dialect === sqliteDialect ? await db.run(statement) : await db.execute(statement);
  const header = Array.isArray(result) && dialect === mysqlDialect ? result[0] : result;
  return { changes: Number(header?.changes ?? header?.rowsAffected ?? header?.affectedRows ?? header?.rowCount ?? 0) };
}

type Statements = Pick<DrizzleSqlDriver, "dialect" | "drizzle" | "query" | "execute" | "queryParts" | "executeParts">;

/**
 * The statements of `db`: given as parts (the change log's, with values), or as text without values
 * (its tables' DDL). `whenFree` is the synchronous SQLite connection's lock, outside its transactions.
 */
function statements(
  db: DrizzleDatabase,
  dialect: Dialect,
  whenFree: <T>(send: () => Promise<T>) => Promise<T> = (send) => send(),
): Statements {
  const rows = <T>(statement: SQL) => whenFree(() => rowsOf(db, dialect, statement) as Promise<T[]>);
  const count = (statement: SQL) => whenFree(() => countOf(db, dialect, statement));
  return {
    dialect,
    drizzle: db,
    query: async <T>(text: string, params: unknown[]) => rows<T>(textStatement(text, params)),
    execute: async (text, params) => count(textStatement(text, params)),
    queryParts: <T>(statement: StatementParts) => rows<T>(drizzleStatement(statement)),
    executeParts: (statement) => count(drizzleStatement(statement)),
  };
}

/** A Drizzle transaction (or a synchronous SQLite connection in one) as a SqlDriver; it refuses statements once over. */
function transactionDriver(tx: DrizzleDatabase, dialect: Dialect, isOpen: () => boolean): DrizzleSqlDriver {
  const inner = statements(tx, dialect);
  const assertOpen = () => {
    if (!isOpen()) throw new Error("This transaction is over: run statements on the driver, not on its old tx");
  };
  const driver: DrizzleSqlDriver = {
    ...inner,
    async query<T>(text: string, params: unknown[]) {
      assertOpen();
      return inner.query<T>(text, params);
    },
    async execute(text, params) {
      assertOpen();
      return inner.execute(text, params);
    },
    async queryParts<T>(statement: StatementParts) {
      assertOpen();
      return inner.queryParts<T>(statement);
    },
    async executeParts(statement) {
      assertOpen();
      return inner.executeParts(statement);
    },
    transaction: (nested) => nested(driver),
  };
  return driver;
}

/**
 * A synchronous SQLite driver's transactions (better-sqlite3, Bun) cannot await, so a live write holds
 * the connection between BEGIN IMMEDIATE and COMMIT itself; the log's readers wait for it to end.
 */
function syncSqliteDriver(db: AnyDatabase): DrizzleSqlDriver {
  const client: object = db.$client ?? db;
  let lock = connectionLocks.get(client);
  if (!lock) {
    lock = new ConnectionLock();
    connectionLocks.set(client, lock);
  }
  const held = lock;
  return {
    ...statements(db, sqliteDialect, (send) => held.whenFree(send)),
    transaction(work) {
      return held.hold(async () => {
        let open = true;
        db.run(sql.raw("BEGIN IMMEDIATE"));
        try {
          const result = await work(transactionDriver(db, sqliteDialect, () => open));
          db.run(sql.raw("COMMIT"));
          return result;
        } catch (error) {
          // After a failed COMMIT SQLite may keep the transaction open: end it either way.
          try {
            db.run(sql.raw("ROLLBACK"));
          } catch {}
          throw error;
        } finally {
          open = false;
        }
      });
    },
  };
}

/**
 * Runs a table operation on `db` outside the live writes' transactions: on a synchronous SQLite
 * connection that live writes hold (see `syncSqliteDriver`), it waits for theirs and holds the connection
 * in turn, so none of its statements lands inside one; on any other database it just runs.
 */
export function outsideLiveWrites<T>(db: DrizzleDatabase, run: () => Promise<T>): Promise<T> {
  const client: object = (db as AnyDatabase).$client ?? db;
  const lock = connectionLocks.get(client);
  return lock ? lock.hold(run) : run();
}

/** Whether a node-postgres client is a Pool (it counts its clients), whose clients can be held for LISTEN. */
function isPgPool(client: unknown): client is Parameters<typeof pgDriver>[0] {
  return (
    typeof client === "object" &&
    client !== null &&
    typeof (client as { connect?: unknown }).connect === "function" &&
    "totalCount" in client &&
    typeof (client as { on?: unknown }).on === "function"
  );
}

/** The LISTEN of the database's node-postgres Pool (`db.$client`), when it has one. */
function listenOf(db: AnyDatabase): SqlDriver["listen"] {
  const client = db.$client;
  if (!isPgPool(client)) return undefined;
  let driver = listeners.get(client);
  if (!driver) {
    driver = pgDriver(client);
    listeners.set(client, driver);
  }
  return driver.listen?.bind(driver);
}

/**
 * A Drizzle database as a SqlDriver (made once per database): its statements and transactions go
 * through Drizzle's own, on the database's connection; over a node-postgres Pool it can also LISTEN.
 * D1 has no transaction to hold a write and its change in, so its driver has none.
 */
function drizzleSqlDriver(db: DrizzleDatabase): DrizzleSqlDriver {
  let driver = drivers.get(db);
  if (driver) return driver;
  const dialect = SQL_DIALECTS[databaseDialect(db).name];
  const drizzle: AnyDatabase = db;
  if (dialect === sqliteDialect && isEntity(drizzle.session, "SQLiteD1Session")) {
    driver = statements(db, dialect);
  } else if (dialect === sqliteDialect && drizzle.resultKind === "sync") {
    driver = syncSqliteDriver(drizzle);
  } else {
    driver = {
      ...statements(db, dialect),
      transaction: (work) => {
        let open = true;
        return drizzle.transaction(async (tx: DrizzleDatabase) => {
          try {
            return await work(transactionDriver(tx, dialect, () => open));
          } finally {
            open = false;
          }
        });
      },
    };
    const listen = dialect === postgresDialect ? listenOf(drizzle) : undefined;
    if (listen) driver = { ...driver, listen };
  }
  drivers.set(db, driver);
  return driver;
}

/** `driver`, with each statement of the log sent to the session's `onQuery` first, as the table's statements are. */
function loggedDriver(driver: DrizzleSqlDriver, onQuery: DrizzleSession["onQuery"]): DrizzleSqlDriver {
  if (!onQuery) return driver;
  const logged: DrizzleSqlDriver = {
    ...driver,
    transaction: (nested) => nested(logged),
    query<T>(text: string, params: unknown[]) {
      onQuery(text, params);
      return driver.query<T>(text, params);
    },
    execute(text, params) {
      onQuery(text, params);
      return driver.execute(text, params);
    },
    // The logger reads a statement as the SQL drivers send it, with the dialect's placeholders.
    queryParts<T>(statement: StatementParts) {
      onQuery(statementText(statement, driver.dialect), statement.params);
      return driver.queryParts<T>(statement);
    },
    executeParts(statement) {
      onQuery(statementText(statement, driver.dialect), statement.params);
      return driver.executeParts(statement);
    },
  };
  return logged;
}

function driverOf(session: DrizzleSession): DrizzleSqlDriver {
  return sessionDrivers.get(session) ?? drizzleSqlDriver(session.db);
}

function drizzleLog(log: ChangeLog<SqlDriver>): ChangeLog<DrizzleSession> {
  let wrapped = drizzleLogs.get(log);
  if (!wrapped) {
    wrapped = drizzleChangeLog(log);
    drizzleLogs.set(log, wrapped);
  }
  return wrapped;
}

/** The SQL change log read and written on Drizzle sessions: each session's statements go to its driver. */
function drizzleChangeLog(log: ChangeLog<SqlDriver>): ChangeLog<DrizzleSession> {
  return {
    lock: (session, collection) => log.lock(driverOf(session), collection),
    record: (session, collection, changes) => log.record(driverOf(session), collection, changes),
    readAfter: (session, collection, afterSeq, limit) => log.readAfter(driverOf(session), collection, afterSeq, limit),
    bounds: (session, collection) => log.bounds(driverOf(session), collection),
    trim: (session, collection, retention) => log.trim(driverOf(session), collection, retention),
  };
}

/** The SQL storage's broker on Drizzle sessions: its `recorded` hook runs on the session's driver, in the write's transaction. */
function drizzleBroker(broker: ChangeBroker<SqlDriver>): ChangeBroker<DrizzleSession> {
  const { recorded } = broker;
  return {
    watch: (collection, wake) => broker.watch(collection, wake),
    recorded: recorded && ((session, collection) => recorded.call(broker, driverOf(session), collection)),
    committed: (collection) => broker.committed(collection),
  };
}

/**
 * A live collection on a Drizzle database: the same change log, in the same tables, as on the SQL
 * endpoints (`sqlLiveStorage`), so SQL and Drizzle writers of one collection share one log and its
 * numbers; the feed's broker or else the database's own (NOTIFY over a node-postgres Pool, else
 * polling the log); the write in a Drizzle transaction, whose sessions `open` makes (the endpoint's
 * logger). D1 is refused with a message that says so.
 *
 * @example
 * await recordedWrite(drizzleLiveStorage(taskFeed, db, "tasks"), async ({ db: tx }) => {
 *   const [row] = await tx.update(tasks).set({ done: true }).where(eq(tasks.id, 1)).returning();
 *   return { result: row, changes: [{ kind: "updated", row: row!, before: null }] };
 * });
 */
export function drizzleLiveStorage(
  feed: ChangeFeed,
  db: DrizzleDatabase,
  collection: string,
  open: (db: DrizzleDatabase) => DrizzleSession = (tx) => ({ db: tx }),
): LiveStorage<DrizzleSession> {
  const driver = drizzleSqlDriver(db);
  const live = sqlLiveStorage(feed, driver, collection);
  let session = rootSessions.get(db);
  if (!session) {
    session = { db };
    rootSessions.set(db, session);
    sessionDrivers.set(session, driver);
  }
  let source = sources.get(live);
  if (!source) {
    source = { ...live.source, log: drizzleLog(live.source.log), broker: drizzleBroker(live.source.broker), session };
    sources.set(live, source);
  }
  return {
    source,
    transaction: (work) =>
      live.transaction((tx) => {
        const inTransaction = open((tx as DrizzleSqlDriver).drizzle);
        sessionDrivers.set(inTransaction, loggedDriver(tx as DrizzleSqlDriver, inTransaction.onQuery));
        return work(inTransaction);
      }),
  };
}
