import { sentHeader } from "../../core/route/open-api-route";
import { requestSpan } from "../../core/route/tracing";
import type { Logger } from "../../endpoints/types";
import type { SqlDriver } from "../driver";
import type { D1DatabaseLike, D1SessionLike } from "../drivers/d1";
import { d1Binding, d1Driver } from "../drivers/d1";
import { sqlLiveStorage } from "../live";
import { SqlTable } from "../table";
import { tracedDriver } from "../traced-driver";
import { checkedBookmark, openD1Session, withBookmarkHeader } from "./d1-session";
import {
  StoredChangesEndpoint,
  StoredCreateEndpoint,
  StoredDeleteEndpoint,
  StoredListEndpoint,
  StoredReadEndpoint,
  StoredUpdateEndpoint,
} from "./stored";
import { environment, type StoredEndpoint, type TableStorage, tableStorage } from "./table-storage";

// One driver per D1 binding object, so a request does not wrap the same binding again.
const d1Drivers = new WeakMap<object, SqlDriver>();

function isDriver(value: unknown): value is SqlDriver {
  return typeof value === "object" && value !== null && "dialect" in value && "query" in value && "execute" in value;
}

/**
 * The SqlDriver for a value that is one already or a Cloudflare D1 binding (wrapped once per binding).
 *
 * @example
 * const rows = await toSqlDriver(c.env.DB).query("SELECT COUNT(*) AS n FROM tasks", []);
 */
export function toSqlDriver(value: unknown, where = "The database"): SqlDriver {
  if (isDriver(value)) return value;
  if (typeof value === "object" && value !== null && typeof (value as D1DatabaseLike).prepare === "function") {
    let driver = d1Drivers.get(value);
    if (!driver) {
      driver = d1Driver(value as D1DatabaseLike);
      d1Drivers.set(value, driver);
    }
    return driver;
  }
  throw new Error(`${where} is not a SQL driver or a D1 binding`);
}

/** The members a SQL endpoint has beside those of every stored endpoint: D1's, whose defaults are below. */
export interface SqlEndpoint extends StoredEndpoint {
  d1Sessions: boolean;
  d1BookmarkHeader: string;
  getDBBinding(): D1DatabaseLike;
}

/** The header carrying the D1 bookmark when an endpoint does not name one. */
export const D1_BOOKMARK_HEADER = "x-d1-bookmark";

// Per request (the request's own endpoint object): the D1 session its statements run in, once opened, and its driver.
const d1Sessions = new WeakMap<object, { session: D1SessionLike; driver: SqlDriver }>();

/** `driver`, with each statement sent to `logger.debug` first (as chanfana's D1 endpoints log their SQL). */
function loggingDriver(driver: SqlDriver, logger: Logger, label: string): SqlDriver {
  const log = (sql: string, params: unknown[]) => logger.debug?.(`[${label}] SQL: ${sql}`, params);
  const logged: SqlDriver = {
    dialect: driver.dialect,
    query(sql, params) {
      log(sql, params);
      return driver.query(sql, params);
    },
    execute(sql, params) {
      log(sql, params);
      return driver.execute(sql, params);
    },
  };
  if (driver.transaction) {
    const transaction = driver.transaction.bind(driver);
    logged.transaction = (work) => transaction((tx) => work(loggingDriver(tx, logger, label)));
  }
  if (driver.batch) {
    const batch = driver.batch.bind(driver);
    logged.batch = (statements) => {
      for (const statement of statements) log(statement.sql, statement.params);
      return batch(statements);
    };
  }
  return logged;
}

/**
 * The SQL storage of the auto endpoints: a SqlTable (checked against the model at registration) run on a
 * SqlDriver, from `db`, the binding named by `dbName` (a D1 binding, wrapped once) or the router's `db`
 * option. With `d1Sessions`, each request runs in one D1 session (`d1-session.ts`) and its success
 * answers carry the session's bookmark.
 */
export const sqlStorage: TableStorage<SqlDriver, SqlDriver, SqlTable> = /* @__PURE__ */ tableStorage<
  SqlDriver,
  SqlDriver,
  SqlTable
>({
  openTable(endpoint) {
    const { model, columns } = endpoint.meta;
    return new SqlTable(model, { fields: columns, keepReadValues: endpoint.conditional });
  },

  toDatabase(endpoint, value, where) {
    return (!isDriver(value) && inD1Session(endpoint as SqlEndpoint, value)) || toSqlDriver(value, where);
  },

  // A SqlDriver placed in the environment is specroute's own; anything else goes through getDBBinding().
  boundDatabase(endpoint, bound) {
    if (isDriver(bound)) return bound;
    const binding = (endpoint as SqlEndpoint).getDBBinding();
    return inD1Session(endpoint as SqlEndpoint, binding) || toSqlDriver(binding, `Binding "${endpoint.dbName}"`);
  },

  openSession(endpoint, db) {
    const { logger } = endpoint;
    const session = traced(endpoint, db);
    return logger ? loggingDriver(session, logger, endpoint.constructor.name) : session;
  },

  liveStorage(endpoint, db) {
    // On D1 the table's triggers record the changes, and the request's bindings hold the Durable Object.
    const table = sqlStorage.table(endpoint);
    const d1 = db.transaction ? undefined : { table, bindings: environment(endpoint, endpoint.args) };
    const live = sqlLiveStorage(endpoint.meta.changes!, db, endpoint.meta.model.tableName, d1);
    if (!endpoint.logger && !requestSpan(endpoint)) return live;
    // The write and its change go to the logger and are traced as every statement of the endpoint is.
    return { ...live, transaction: (work) => live.transaction((tx) => work(sqlStorage.openSession(endpoint, tx))) };
  },

  /** The derived schema, with the bookmark header documented when `d1Sessions` is on. */
  describe(endpoint, schema) {
    const { d1Sessions, d1BookmarkHeader, databaseAccess } = endpoint as SqlEndpoint;
    if (!d1Sessions || databaseAccess === "stream") return schema;
    return withBookmarkHeader(schema, d1BookmarkHeader, databaseAccess);
  },

  /** The success answer carries the request's D1 bookmark when it ran in a session. */
  answered(endpoint, response) {
    const bookmark = d1Sessions.get(endpoint)?.session.getBookmark();
    if (bookmark) response.headers.set((endpoint as SqlEndpoint).d1BookmarkHeader, bookmark);
  },
});

/** The request's D1 session over `binding` (opened on first use), when `d1Sessions` is on and D1 has sessions. */
function inD1Session(endpoint: SqlEndpoint, binding: unknown): SqlDriver | undefined {
  const access = endpoint.databaseAccess;
  if (!endpoint.d1Sessions || access === "stream" || typeof binding !== "object" || binding === null) return undefined;
  const opened = d1Sessions.get(endpoint);
  if (opened) return opened.driver;
  const session = openD1Session(binding as D1DatabaseLike, access, sentBookmark(endpoint));
  if (!session) return undefined;
  const driver = d1Driver(session);
  d1Sessions.set(endpoint, { session, driver });
  return driver;
}

/** The bookmark a read sent, as sent and checked by its own rule (an app's header schema may declare or transform it). */
function sentBookmark(endpoint: SqlEndpoint): string | undefined {
  // Outside a request's validated data (a database() asked for by hand), there is no request to read.
  if (endpoint.databaseAccess !== "read" || endpoint.validatedData === undefined) return undefined;
  const name = endpoint.d1BookmarkHeader;
  return checkedBookmark(sentHeader(endpoint, name), name);
}

/** `db` with each statement in a span under the request's handler span, when its router traces requests. */
function traced(endpoint: StoredEndpoint, db: SqlDriver): SqlDriver {
  const span = requestSpan(endpoint);
  return span ? tracedDriver(db, span, endpoint.meta.model.tableName) : db;
}

/** The D1 binding named by `dbName` from the environment (ApiException when missing or not D1): `getDBBinding()`'s default. */
export function namedD1Binding(endpoint: StoredEndpoint): D1DatabaseLike {
  return d1Binding((args) => environment(endpoint, args), endpoint.args, endpoint.dbName ?? "");
}

// The classes below are alike on purpose: each is one of stored.ts's holding the SQL storage, with D1's
// members (documented on SqlCreateEndpoint), or its D1 default.

/**
 * Create over SQL: inserts the object and answers it as stored (generated id, defaults). With `bulk`,
 * every object in one transaction (D1: one batch): all or none.
 *
 * @example
 * class CreateTask extends SqlCreateEndpoint { _meta = taskMeta; }
 * fromHono(app, { db: betterSqlite3Driver(new Database("app.db")) }).post("/tasks", CreateTask);
 */
export class SqlCreateEndpoint<HandleArgs extends Array<object> = any>
  extends StoredCreateEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /**
   * Opt in to D1 read replication: each request runs in one D1 session (Sessions API). Read and List
   * start on the nearest replica, or on one at least as new as the bookmark the request sends in
   * `d1BookmarkHeader`; Create, Update and Delete start on the primary. Every success answer carries
   * the session's bookmark in that header. Off by default: without a session every statement goes to
   * the primary, so a client that sends no bookmark always reads its own writes. A binding without
   * `withSession` (an older runtime) and a SqlDriver run as without this option.
   *
   * @example
   * class GetTask extends D1ReadEndpoint { _meta = taskMeta; d1Sessions = true; }
   */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /**
   * The D1 binding named by `dbName` from the environment (ApiException when missing or not D1);
   * override it to choose the database per request, as in chanfana.
   *
   * @example
   * getDBBinding() { return this.params.router.getBindings(this.args).REPLICA; }
   */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** chanfana's D1 endpoints: each the SQL one, reading the D1 binding named by `dbName` (default "DB") from `env`. */
export class D1CreateEndpoint<HandleArgs extends Array<object> = any> extends SqlCreateEndpoint<HandleArgs> {
  override dbName = "DB";
}

/** Read over SQL: selects the row identified by the path keys. */
export class SqlReadEndpoint<HandleArgs extends Array<object> = any>
  extends StoredReadEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlReadEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1ReadEndpoint<HandleArgs extends Array<object> = any> extends SqlReadEndpoint<HandleArgs> {
  override dbName = "DB";
}

/**
 * Update over SQL: writes only the columns the client sent or a hook changed in `updatedData`, in one
 * statement scoped by the full primary key.
 */
export class SqlUpdateEndpoint<HandleArgs extends Array<object> = any>
  extends StoredUpdateEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlUpdateEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1UpdateEndpoint<HandleArgs extends Array<object> = any> extends SqlUpdateEndpoint<HandleArgs> {
  override dbName = "DB";
}

/** Delete over SQL: deletes the row identified by the full primary key and answers it. */
export class SqlDeleteEndpoint<HandleArgs extends Array<object> = any>
  extends StoredDeleteEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlDeleteEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1DeleteEndpoint<HandleArgs extends Array<object> = any> extends SqlDeleteEndpoint<HandleArgs> {
  override dbName = "DB";
}

/**
 * List over SQL: filters, search, ordering and pagination in one query; numbered pages count
 * `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export class SqlListEndpoint<HandleArgs extends Array<object> = any>
  extends StoredListEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlListEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1ListEndpoint<HandleArgs extends Array<object> = any> extends SqlListEndpoint<HandleArgs> {
  override dbName = "DB";
}

/**
 * Changes over SQL: a live collection's changes as Server-Sent Events (see `ChangesEndpoint`), read from
 * the change log the SQL writes of the same Meta record in their transactions (on D1, their table's
 * triggers in their statements); PostgreSQL's NOTIFY wakes the listeners of every process, on D1 a
 * Durable Object, other engines are polled (docs/live.md).
 *
 * @example
 * class TaskChanges extends SqlChangesEndpoint { _meta = { model: taskModel, changes: taskFeed }; filterFields = ["done"]; }
 */
export class SqlChangesEndpoint<HandleArgs extends Array<object> = any>
  extends StoredChangesEndpoint<HandleArgs, SqlDriver>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlChangesEndpoint} over the D1 binding "DB", as the other D1 endpoints. */
export class D1ChangesEndpoint<HandleArgs extends Array<object> = any> extends SqlChangesEndpoint<HandleArgs> {
  override dbName = "DB";
}
