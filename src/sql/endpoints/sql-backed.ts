import { requestSpan } from "../../core/route/tracing";
import type { OpenAPIRouteSchema } from "../../core/schema-types";
import type { Logger } from "../../endpoints/types";
import type { LiveStorage } from "../../live/record";
import type { SqlDriver } from "../driver";
import type { D1DatabaseLike, D1SessionLike } from "../drivers/d1";
import { d1Binding, d1Driver } from "../drivers/d1";
import { sqlLiveStorage } from "../live";
import { SqlTable } from "../table";
import { tracedDriver } from "../traced-driver";
import { openD1Session, withBookmarkHeader } from "./d1-session";
import { type EndpointClass, environment, StorageBacked, type StorageBackedMembers } from "./storage-backed";

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

// The members SqlBacked adds, named: a declaration file cannot spell out the anonymous class itself,
// since it inherits OpenAPIRoute's protected `handleError`.
/** What SqlBacked adds to an auto endpoint. */
export interface SqlBackedMembers extends StorageBackedMembers<SqlDriver, SqlDriver, SqlTable> {
  /** @internal The model's table, built once by `prepareRoute()`. */
  readonly sqlTable?: SqlTable;
  d1Sessions: boolean;
  d1BookmarkHeader: string;
  /** @internal Per request: the D1 session its statements run in, once opened, and its driver. */
  d1Session: { session: D1SessionLike; driver: SqlDriver } | undefined;
  getDBBinding(): D1DatabaseLike;
}
type SqlBackedClass = abstract new (...args: any[]) => SqlBackedMembers;

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
 * Adds SQL storage to an auto endpoint: a SqlTable (checked against the model at registration) run on
 * a SqlDriver, from `db`, the binding named by `dbName` (a D1 binding, wrapped once) or the router's
 * `db` option.
 */
export function SqlBacked<TBase extends EndpointClass>(Base: TBase): TBase & SqlBackedClass {
  abstract class SqlBackedEndpoint extends StorageBacked<TBase, SqlDriver, SqlDriver, SqlTable>(Base) {
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
    d1BookmarkHeader = "x-d1-bookmark";
    /** @internal Per request: the D1 session its statements run in, once opened, and its driver. */
    d1Session: { session: D1SessionLike; driver: SqlDriver } | undefined = undefined;

    /** @internal The model's table, built once by `prepareRoute()`. */
    get sqlTable(): SqlTable | undefined {
      return this.storageTable;
    }

    /** The derived schema, with the bookmark header documented when `d1Sessions` is on. */
    override getSchema(): OpenAPIRouteSchema {
      const schema = super.getSchema();
      const access = this.databaseAccess;
      if (!this.d1Sessions || access === "stream") return schema;
      return withBookmarkHeader(schema, this.d1BookmarkHeader, access);
    }

    /** The success answer, carrying the request's D1 bookmark when it ran in a session. */
    override success(result: unknown, status?: number, extra?: Record<string, unknown>): Response {
      const response = super.success(result, status, extra);
      const bookmark = this.d1Session?.session.getBookmark();
      if (bookmark) response.headers.set(this.d1BookmarkHeader, bookmark);
      return response;
    }

    protected openTable(): SqlTable {
      const { model, columns } = this.meta;
      return new SqlTable(model, { fields: columns, keepReadValues: this.conditional });
    }

    protected toDatabase(value: unknown, where: string): SqlDriver {
      return (!isDriver(value) && this.inD1Session(value)) || toSqlDriver(value, where);
    }

    // A SqlDriver placed in the environment is specroute's own; anything else goes through getDBBinding().
    protected boundDatabase(bound: unknown): SqlDriver {
      if (isDriver(bound)) return bound;
      const binding = this.getDBBinding();
      return this.inD1Session(binding) || toSqlDriver(binding, `Binding "${this.dbName}"`);
    }

    /** The request's D1 session over `binding` (opened on first use), when `d1Sessions` is on and D1 has sessions. */
    private inD1Session(binding: unknown): SqlDriver | undefined {
      const access = this.databaseAccess;
      if (!this.d1Sessions || access === "stream" || typeof binding !== "object" || binding === null) return undefined;
      if (this.d1Session) return this.d1Session.driver;
      const session = openD1Session(binding as D1DatabaseLike, access, this.sentBookmark());
      if (!session) return undefined;
      this.d1Session = { session, driver: d1Driver(session) };
      return this.d1Session.driver;
    }

    /** The bookmark the request sent (a read declares its header, so it was validated). */
    private sentBookmark(): string | undefined {
      if (this.databaseAccess !== "read") return undefined;
      const headers = this.validatedData?.headers as Record<string, unknown> | undefined;
      const bookmark = headers?.[this.d1BookmarkHeader];
      return typeof bookmark === "string" ? bookmark : undefined;
    }

    protected openSession(db: SqlDriver): SqlDriver {
      const { logger } = this;
      const session = this.traced(db);
      return logger ? loggingDriver(session, logger, this.constructor.name) : session;
    }

    /** `db` with each statement in a span under the request's handler span, when its router traces requests. */
    private traced(db: SqlDriver): SqlDriver {
      const span = requestSpan(this);
      return span ? tracedDriver(db, span, this.meta.model.tableName) : db;
    }

    protected get recordsChanges(): boolean {
      return true;
    }

    override liveStorage(db: SqlDriver): LiveStorage<SqlDriver> {
      // On D1 the table's triggers record the changes, and the request's bindings hold the Durable Object.
      const d1 = db.transaction ? undefined : { table: this.storageTable!, bindings: environment(this, this.args) };
      const live = sqlLiveStorage(this.meta.changes!, db, this.meta.model.tableName, d1);
      if (!this.logger && !requestSpan(this)) return live;
      // The write and its change go to the logger and are traced as every statement of the endpoint is.
      return { ...live, transaction: (work) => live.transaction((tx) => work(this.openSession(tx))) };
    }

    /**
     * The D1 binding named by `dbName` from the environment (ApiException when missing or not D1);
     * override it to choose the database per request, as in chanfana.
     *
     * @example
     * getDBBinding() { return this.params.router.getBindings(this.args).REPLICA; }
     */
    getDBBinding(): D1DatabaseLike {
      return d1Binding((args) => environment(this, args), this.args, this.dbName ?? "");
    }
  }
  return SqlBackedEndpoint;
}
