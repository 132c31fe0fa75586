import type { Table } from "drizzle-orm";
import { type DrizzleD1Database, drizzle as drizzleD1 } from "drizzle-orm/d1";
import type { LiveStorage } from "../live/record";
import { type EndpointClass, StorageBacked, type StorageBackedMembers } from "../sql/endpoints/storage-backed";
import {
  StoredChanges,
  StoredCreate,
  StoredDelete,
  StoredList,
  StoredRead,
  StoredUpdate,
} from "../sql/endpoints/stored";
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
function checkedDatabase(endpoint: DrizzleBackedMembers, db: unknown, where: string): DrizzleDatabase {
  if (!isDrizzleDatabase(db)) throw new Error(`${where} is not a Drizzle database`);
  const dialect = endpoint.preparedDrizzleTable!.dialect;
  if (!dialect.owns(db)) throw new Error(`${where} is not a ${dialect.name} Drizzle database, as its table is`);
  return db;
}

// The members DrizzleBacked adds, named: a declaration file cannot spell out the anonymous class itself,
// since it inherits OpenAPIRoute's protected `handleError`.
/** What DrizzleBacked adds to an auto endpoint. */
export interface DrizzleBackedMembers extends StorageBackedMembers<DrizzleDatabase, DrizzleSession, DrizzleTable> {
  /**
   * Name of the environment binding (Workers `env`) holding a Drizzle database, or a D1 binding
   * (wrapped once with drizzle-orm/d1's `drizzle()`).
   */
  dbName?: string;
  /**
   * The Drizzle database for the current request, resolved as the endpoint's own queries resolve it;
   * override it to build one per request (your schema, your logger).
   *
   * @example
   * database() { return drizzle(this.params.router.getBindings(this.args).DB, { logger: true }); }
   */
  database(): DrizzleDatabase;
  /** @internal The model over its Drizzle table, built once by `prepareRoute()`. */
  readonly preparedDrizzleTable?: DrizzleTable;
  drizzleTable(): Table;
}
type DrizzleBackedClass = abstract new (...args: any[]) => DrizzleBackedMembers;

/**
 * Adds a Drizzle table to an auto endpoint: the table (checked against the model at registration),
 * where the Drizzle database comes from, and how database errors become HTTP errors (as on the SQL
 * endpoints, through the same code).
 */
export function DrizzleBacked<TBase extends EndpointClass>(Base: TBase): TBase & DrizzleBackedClass {
  abstract class DrizzleBackedEndpoint extends StorageBacked<TBase, DrizzleDatabase, DrizzleSession, DrizzleTable>(
    Base,
  ) {
    /** @internal The model over its Drizzle table, built once by `prepareRoute()`. */
    get preparedDrizzleTable(): DrizzleTable | undefined {
      return this.storageTable;
    }

    /** Checks the model against the Drizzle table and builds its queries' plan once, at registration. */
    protected openTable(): DrizzleTable {
      const { model, columns } = this.meta;
      return new DrizzleTable(this.drizzleTable(), model, { fields: columns });
    }

    protected toDatabase(value: unknown, where: string): DrizzleDatabase {
      return checkedDatabase(this, value, where);
    }

    protected boundDatabase(bound: unknown): DrizzleDatabase {
      const where = `Binding "${this.dbName}"`;
      if (isDrizzleDatabase(bound)) return checkedDatabase(this, bound, where);
      if (!isD1Binding(bound)) throw new Error(`${where} is neither a Drizzle database nor a D1 binding`);
      let db = d1Databases.get(bound);
      if (!db) {
        db = drizzleD1(bound);
        d1Databases.set(bound, db);
      }
      return checkedDatabase(this, db, where);
    }

    protected openSession(db: DrizzleDatabase): DrizzleSession {
      const { logger } = this;
      if (!logger) return { db };
      const label = this.constructor.name;
      return { db, onQuery: (sql, params) => logger.debug?.(`[${label}] SQL: ${sql}`, params) };
    }

    protected get recordsChanges(): boolean {
      return true;
    }

    /** A table operation, kept out of the live writes' transactions on a synchronous SQLite connection. */
    override withTable<T>(
      operation: (table: DrizzleTable, session: DrizzleSession) => Promise<T>,
      write?: string,
    ): Promise<T> {
      return super.withTable((table, session) => outsideLiveWrites(session.db, () => operation(table, session)), write);
    }

    /** The live collection on `db`: the SQL change log in its tables, each write in a Drizzle transaction. */
    override liveStorage(db: DrizzleDatabase): LiveStorage<DrizzleSession> {
      return drizzleLiveStorage(this.meta.changes!, db, this.meta.model.tableName, (tx) => this.openSession(tx));
    }

    /**
     * The Drizzle table this endpoint queries: the Meta's, as `drizzleMeta(table)` puts it there.
     * Override it to serve a Meta of your own (a hand-written zod model) over a Drizzle table.
     *
     * @example
     * drizzleTable() { return tasks; }
     */
    drizzleTable(): Table {
      const table = (this._meta?.model as Partial<DrizzleModel> | undefined)?.table;
      if (!table) {
        throw new Error(
          `${this.constructor.name}: _meta.model has no Drizzle table; make the Meta with drizzleMeta(table), or override drizzleTable()`,
        );
      }
      return table;
    }
  }
  return DrizzleBackedEndpoint;
}

// The six declarations below are alike on purpose: each names one mixin chain; the bodies are in sql/endpoints/stored.ts.
/**
 * Create over a Drizzle table: inserts the object with Drizzle and answers it as stored (generated id,
 * defaults). With `bulk`, every object in one `db.batch()` (D1, libsql) or one `db.transaction()`.
 *
 * @example
 * class CreateUser extends DrizzleCreateEndpoint { _meta = drizzleMeta(users); }
 * fromHono(app, { db: drizzle(sqlite) }).post("/users", CreateUser);
 */
export class DrizzleCreateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredCreate(
  DrizzleBacked,
)<HandleArgs> {}

/** Read over a Drizzle table: selects the row identified by the path keys. */
export class DrizzleReadEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredRead(
  DrizzleBacked,
)<HandleArgs> {}

/**
 * Update over a Drizzle table: writes only the columns the client sent or a hook changed in `updatedData`,
 * in one statement scoped by the full primary key.
 */
export class DrizzleUpdateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredUpdate(
  DrizzleBacked,
)<HandleArgs> {}

/** Delete over a Drizzle table: deletes the row identified by the full primary key and answers it. */
export class DrizzleDeleteEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredDelete(
  DrizzleBacked,
)<HandleArgs> {}

/**
 * List over a Drizzle table: filters, search, ordering and pagination in one Drizzle query; numbered
 * pages count `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries.
 */
export class DrizzleListEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredList(
  DrizzleBacked,
)<HandleArgs> {}

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
export class DrizzleChangesEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredChanges(
  DrizzleBacked,
)<HandleArgs> {}
