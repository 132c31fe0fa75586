import type { SqlDriver } from "../driver";
import type { D1DatabaseLike } from "../drivers/d1";
import type { SqlTable } from "../table";
import { D1_BOOKMARK_HEADER, namedD1Binding, type SqlEndpoint, sqlStorage } from "./sql-storage";
import {
  StoredChangesEndpoint,
  StoredCreateEndpoint,
  StoredDeleteEndpoint,
  StoredListEndpoint,
  StoredReadEndpoint,
  StoredUpdateEndpoint,
} from "./stored";

export { toSqlDriver } from "./sql-storage";

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
  extends StoredCreateEndpoint<HandleArgs>
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

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /**
   * The database for the current request, resolved as the endpoint's own queries resolve it; use it
   * for hand-written statements next to the generated ones.
   */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

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
  extends StoredReadEndpoint<HandleArgs>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /** The database for the current request (see SqlCreateEndpoint's `database`). */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

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
  extends StoredUpdateEndpoint<HandleArgs>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /** The database for the current request (see SqlCreateEndpoint's `database`). */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

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
  extends StoredDeleteEndpoint<HandleArgs>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /** The database for the current request (see SqlCreateEndpoint's `database`). */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

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
  extends StoredListEndpoint<HandleArgs>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /** The database for the current request (see SqlCreateEndpoint's `database`). */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

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
  extends StoredChangesEndpoint<HandleArgs>
  implements SqlEndpoint
{
  override readonly storage = sqlStorage;
  /** Opt in to D1 read replication (see SqlCreateEndpoint's `d1Sessions`). */
  d1Sessions = false;
  /** The header carrying the D1 bookmark, in both directions, when `d1Sessions` is on. */
  d1BookmarkHeader = D1_BOOKMARK_HEADER;

  /** @internal The model's table, built once by `prepareRoute()`. */
  get sqlTable(): SqlTable | undefined {
    return this.storageTable as SqlTable | undefined;
  }

  /** The database for the current request (see SqlCreateEndpoint's `database`). */
  override database(): SqlDriver {
    return sqlStorage.database(this);
  }

  /** The D1 binding named by `dbName` (see SqlCreateEndpoint's `getDBBinding`). */
  getDBBinding(): D1DatabaseLike {
    return namedD1Binding(this);
  }
}

/** {@link SqlChangesEndpoint} over the D1 binding "DB", as the other D1 endpoints. */
export class D1ChangesEndpoint<HandleArgs extends Array<object> = any> extends SqlChangesEndpoint<HandleArgs> {
  override dbName = "DB";
}
