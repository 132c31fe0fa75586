import type { Table } from "drizzle-orm";
import { type DrizzleD1Database, drizzle as drizzleD1 } from "drizzle-orm/d1";
import {
  StoredChangesEndpoint,
  StoredCreateEndpoint,
  StoredDeleteEndpoint,
  StoredListEndpoint,
  StoredReadEndpoint,
  StoredUpdateEndpoint,
} from "../sql/endpoints/stored";
import { type StoredEndpoint, type TableStorage, tableStorage } from "../sql/endpoints/table-storage";
import { type DrizzleDatabase, isDrizzleDatabase } from "./dialects";
import { drizzleLiveStorage, outsideLiveWrites } from "./live";
import type { DrizzleModel } from "./meta";
import { type DrizzleSession, DrizzleTable } from "./table";

// One Drizzle database per D1 binding object, so a request does not wrap the same binding again.
const d1Databases = new WeakMap<object, DrizzleD1Database>();

function isD1Binding(value: unknown): value is Parameters<typeof drizzleD1>[0] {
  return typeof value === "object" && value !== null && typeof (value as { prepare?: unknown }).prepare === "function";
}

/** `db` when it is a Drizzle database of the endpoint's table's dialect; `where` names it in the error. */
function checkedDatabase(endpoint: StoredEndpoint, db: unknown, where: string): DrizzleDatabase {
  if (!isDrizzleDatabase(db)) throw new Error(`${where} is not a Drizzle database`);
  const dialect = drizzleStorage.table(endpoint).dialect;
  if (!dialect.owns(db)) throw new Error(`${where} is not a ${dialect.name} Drizzle database, as its table is`);
  return db;
}

/** The members a Drizzle endpoint has beside those of every stored endpoint. */
export interface DrizzleEndpoint extends StoredEndpoint {
  /**
   * The Drizzle database for the current request, resolved as the endpoint's own queries resolve it;
   * override it to build one per request (your schema, your logger).
   */
  database(): DrizzleDatabase;
  drizzleTable(): Table;
}

/**
 * The Drizzle storage of the auto endpoints: a Drizzle table (checked against the model at
 * registration), the Drizzle database from `db`, the binding named by `dbName` (a Drizzle database, or a
 * D1 binding wrapped once with drizzle-orm/d1) or the router's `db` option; database errors become HTTP
 * errors as on the SQL endpoints, through the same code.
 */
export const drizzleStorage: TableStorage<DrizzleDatabase, DrizzleSession, DrizzleTable> = /* @__PURE__ */ tableStorage<
  DrizzleDatabase,
  DrizzleSession,
  DrizzleTable
>({
  /** Checks the model against the Drizzle table and builds its queries' plan once, at registration. */
  openTable(endpoint) {
    const { model, columns } = endpoint.meta;
    return new DrizzleTable((endpoint as DrizzleEndpoint).drizzleTable(), model, { fields: columns });
  },

  toDatabase(endpoint, value, where) {
    return checkedDatabase(endpoint, value, where);
  },

  boundDatabase(endpoint, bound) {
    const where = `Binding "${endpoint.dbName}"`;
    if (isDrizzleDatabase(bound)) return checkedDatabase(endpoint, bound, where);
    if (!isD1Binding(bound)) throw new Error(`${where} is neither a Drizzle database nor a D1 binding`);
    let db = d1Databases.get(bound);
    if (!db) {
      db = drizzleD1(bound);
      d1Databases.set(bound, db);
    }
    return checkedDatabase(endpoint, db, where);
  },

  openSession(endpoint, db) {
    const { logger } = endpoint;
    if (!logger) return { db };
    const label = endpoint.constructor.name;
    return { db, onQuery: (sql, params) => logger.debug?.(`[${label}] SQL: ${sql}`, params) };
  },

  /** The live collection on `db`: the SQL change log in its tables, each write in a Drizzle transaction. */
  liveStorage(endpoint, db) {
    const { meta } = endpoint;
    return drizzleLiveStorage(meta.changes!, db, meta.model.tableName, (tx) =>
      drizzleStorage.openSession(endpoint, tx),
    );
  },

  /** A table operation, kept out of the live writes' transactions on a synchronous SQLite connection. */
  around(session, operation) {
    return outsideLiveWrites(session.db, operation);
  },
});

/** The Drizzle table of an endpoint's Meta, as `drizzleMeta(table)` puts it there: `drizzleTable()`'s default. */
function metaTable(endpoint: StoredEndpoint): Table {
  const table = (endpoint._meta?.model as Partial<DrizzleModel> | undefined)?.table;
  if (!table) {
    throw new Error(
      `${endpoint.constructor.name}: _meta.model has no Drizzle table; make the Meta with drizzleMeta(table), or override drizzleTable()`,
    );
  }
  return table;
}

// The six classes below are alike on purpose: each is one of sql/endpoints/stored.ts's holding the Drizzle
// storage, with the Drizzle members (documented on DrizzleCreateEndpoint).
/**
 * Create over a Drizzle table: inserts the object with Drizzle and answers it as stored (generated id,
 * defaults). With `bulk`, every object in one `db.batch()` (D1, libsql) or one `db.transaction()`.
 *
 * @example
 * class CreateUser extends DrizzleCreateEndpoint { _meta = drizzleMeta(users); }
 * fromHono(app, { db: drizzle(sqlite) }).post("/users", CreateUser);
 */
export class DrizzleCreateEndpoint<HandleArgs extends Array<object> = any>
  extends StoredCreateEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /**
   * The Drizzle table this endpoint queries: the Meta's, as `drizzleMeta(table)` puts it there.
   * Override it to serve a Meta of your own (a hand-written zod model) over a Drizzle table.
   *
   * @example
   * drizzleTable() { return tasks; }
   */
  drizzleTable(): Table {
    return metaTable(this);
  }
}

/** Read over a Drizzle table: selects the row identified by the path keys. */
export class DrizzleReadEndpoint<HandleArgs extends Array<object> = any>
  extends StoredReadEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /** The Drizzle table this endpoint queries (see DrizzleCreateEndpoint's `drizzleTable`). */
  drizzleTable(): Table {
    return metaTable(this);
  }
}

/**
 * Update over a Drizzle table: writes only the columns the client sent or a hook changed in `updatedData`,
 * in one statement scoped by the full primary key.
 */
export class DrizzleUpdateEndpoint<HandleArgs extends Array<object> = any>
  extends StoredUpdateEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /** The Drizzle table this endpoint queries (see DrizzleCreateEndpoint's `drizzleTable`). */
  drizzleTable(): Table {
    return metaTable(this);
  }
}

/** Delete over a Drizzle table: deletes the row identified by the full primary key and answers it. */
export class DrizzleDeleteEndpoint<HandleArgs extends Array<object> = any>
  extends StoredDeleteEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /** The Drizzle table this endpoint queries (see DrizzleCreateEndpoint's `drizzleTable`). */
  drizzleTable(): Table {
    return metaTable(this);
  }
}

/**
 * List over a Drizzle table: filters, search, ordering and pagination in one Drizzle query; numbered
 * pages count `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries.
 */
export class DrizzleListEndpoint<HandleArgs extends Array<object> = any>
  extends StoredListEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /** The Drizzle table this endpoint queries (see DrizzleCreateEndpoint's `drizzleTable`). */
  drizzleTable(): Table {
    return metaTable(this);
  }
}

/**
 * The changes of a live collection over a Drizzle table, as Server-Sent Events (see `ChangesEndpoint`):
 * what the Drizzle (or SQL) endpoints of the same `_meta.changes` write, each change's row decoded as
 * the Read endpoint's rows are.
 *
 * @example
 * const taskMeta = { ...drizzleMeta(tasks), changes: changeFeed() };
 * class TaskChanges extends DrizzleChangesEndpoint { _meta = taskMeta; filterFields = ["done"]; }
 * fromHono(app, { db }).get("/tasks/changes", TaskChanges);
 */
export class DrizzleChangesEndpoint<HandleArgs extends Array<object> = any>
  extends StoredChangesEndpoint<HandleArgs, DrizzleDatabase>
  implements DrizzleEndpoint
{
  override readonly storage = drizzleStorage;

  /** The Drizzle table this endpoint queries (see DrizzleCreateEndpoint's `drizzleTable`). */
  drizzleTable(): Table {
    return metaTable(this);
  }
}
