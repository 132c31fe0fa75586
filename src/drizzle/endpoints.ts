import type { Table } from "drizzle-orm";
import { type DrizzleD1Database, drizzle as drizzleD1 } from "drizzle-orm/d1";
import type { z } from "zod";
import type { ResponseConfig } from "../core/schema-types";
import type { ModelEndpoint } from "../endpoints/base";
import { CreateEndpoint } from "../endpoints/create";
import { DeleteEndpoint } from "../endpoints/delete";
import { ListEndpoint } from "../endpoints/list";
import { ReadEndpoint } from "../endpoints/read";
import type { Filters, ListFilters, ListResult, Logger, UpdateFilters } from "../endpoints/types";
import { UpdateEndpoint } from "../endpoints/update";
import type { ApiException } from "../errors/exceptions";
import { listPage } from "../sql/endpoints/list-page";
import { createConflicts, databaseOperation, environment, uniqueConflicts } from "../sql/endpoints/sql-backed";
import type { SqlRow } from "../sql/storage";
import { type DrizzleDatabase, isDrizzleDatabase } from "./dialects";
import type { DrizzleModel } from "./meta";
import { type DrizzleSession, DrizzleTable } from "./table";

/** An auto endpoint class, with the statics the mixin extends. */
type EndpointClass = (abstract new (
  ...args: any[]
) => ModelEndpoint) &
  Pick<typeof ModelEndpoint, "configurationFields">;

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
export interface DrizzleBackedMembers {
  db?: DrizzleDatabase;
  dbName?: string;
  constraintsMessages: Record<string, ApiException>;
  logger?: Logger;
  preparedDrizzleTable?: DrizzleTable;
  drizzleTable(): Table;
  database(): DrizzleDatabase;
  withDrizzle<T>(operation: (table: DrizzleTable, session: DrizzleSession) => Promise<T>, write?: string): Promise<T>;
}
type DrizzleBackedClass = abstract new (...args: any[]) => DrizzleBackedMembers;

/**
 * Adds a Drizzle table to an auto endpoint: the table (checked against the model at registration),
 * where the Drizzle database comes from, and how database errors become HTTP errors (as on the SQL
 * endpoints, through the same code).
 */
export function DrizzleBacked<TBase extends EndpointClass>(Base: TBase): TBase & DrizzleBackedClass {
  abstract class DrizzleBackedEndpoint extends Base {
    static override readonly configurationFields: readonly string[] = ["constraintsMessages"];

    /** The app's Drizzle database; when unset, the binding named by `dbName`, else the router's `db` option. */
    db?: DrizzleDatabase;
    /**
     * Name of the environment binding (Workers `env`) holding a Drizzle database, or a D1 binding
     * (wrapped once with drizzle-orm/d1's `drizzle()`).
     */
    dbName?: string;
    /** Answers for UNIQUE violations keyed `"table.column"` (a fresh copy per request); others answer 409 naming the column. */
    constraintsMessages: Record<string, ApiException> = {};
    /** Receives each statement (debug), each successful write (log) and each database failure (error). */
    logger?: Logger;
    /** @internal The model over its Drizzle table, built once by `prepareRoute()`. */
    preparedDrizzleTable?: DrizzleTable;

    /** Checks the model against the Drizzle table and builds its queries' plan once, at registration. */
    override prepareRoute(): void {
      super.prepareRoute();
      const { model, columns } = this.meta;
      this.preparedDrizzleTable = new DrizzleTable(this.drizzleTable(), model, { fields: columns });
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

    /**
     * The Drizzle database for the current request, resolved as the endpoint's own queries resolve it;
     * override it to build one per request (your schema, your logger).
     *
     * @example
     * database() { return drizzle(this.params.router.getBindings(this.args).DB, { logger: true }); }
     */
    database(): DrizzleDatabase {
      if (this.db) return checkedDatabase(this, this.db, "The endpoint's db");
      if (this.dbName) {
        const bound = environment(this, this.args)[this.dbName];
        if (isDrizzleDatabase(bound)) return checkedDatabase(this, bound, `Binding "${this.dbName}"`);
        if (isD1Binding(bound)) {
          let db = d1Databases.get(bound);
          if (!db) {
            db = drizzleD1(bound);
            d1Databases.set(bound, db);
          }
          return checkedDatabase(this, db, `Binding "${this.dbName}"`);
        }
        throw new Error(`Binding "${this.dbName}" is neither a Drizzle database nor a D1 binding`);
      }
      const fromRouter = this.params?.router?.options?.db;
      if (fromRouter) return checkedDatabase(this, fromRouter, "The router's db option");
      throw new Error(`${this.constructor.name} has no database: set db, dbName, or the router's db option`);
    }

    /**
     * @internal Runs one table operation on the request's Drizzle database, turning database errors into
     * HTTP errors; `write` names a write ("create", "update", "delete") to log on success.
     */
    async withDrizzle<T>(
      operation: (table: DrizzleTable, session: DrizzleSession) => Promise<T>,
      write?: string,
    ): Promise<T> {
      const { logger } = this;
      return databaseOperation(
        { tableName: this.meta.model.tableName, logger, constraintsMessages: this.constraintsMessages },
        () => {
          const db = this.database();
          const label = this.constructor.name;
          const onQuery =
            logger && ((sql: string, params: unknown[]) => logger.debug?.(`[${label}] SQL: ${sql}`, params));
          return operation(this.preparedDrizzleTable!, onQuery ? { db, onQuery } : { db });
        },
        write,
      );
    }
  }
  return DrizzleBackedEndpoint;
}

/**
 * Create over a Drizzle table: inserts the object with Drizzle and answers it as stored (generated id,
 * defaults). With `bulk`, every object in one `db.batch()` (D1, libsql) or one `db.transaction()`.
 *
 * @example
 * class CreateUser extends DrizzleCreateEndpoint { _meta = drizzleMeta(users); }
 * fromHono(app, { db: drizzle(sqlite) }).post("/users", CreateUser);
 */
export class DrizzleCreateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ DrizzleBacked(
  CreateEndpoint,
)<HandleArgs> {
  override conflictResponses(): Record<string, ResponseConfig> {
    return createConflicts(this.meta, this.pathKeys, this.constraintsMessages);
  }

  async create(data: Record<string, unknown>): Promise<SqlRow> {
    return this.withDrizzle((table, session) => table.insert(session, data), "create");
  }

  /** Inserts every object of a bulk request all or none: one batch (D1, libsql), else one transaction. */
  override async createMany(items: Record<string, unknown>[]): Promise<SqlRow[]> {
    return this.withDrizzle((table, session) => table.insertMany(session, items), "createMany");
  }
}

/** Read over a Drizzle table: selects the row identified by the path keys. */
export class DrizzleReadEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ DrizzleBacked(
  ReadEndpoint,
)<HandleArgs> {
  async fetch(filters: Filters): Promise<SqlRow | null> {
    return this.withDrizzle((table, session) => table.selectOne(session, filters.filters));
  }
}

/**
 * Update over a Drizzle table: writes only the columns the client sent or a hook changed in `updatedData`,
 * in one statement scoped by the full primary key.
 */
export class DrizzleUpdateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ DrizzleBacked(
  UpdateEndpoint,
)<HandleArgs> {
  override conflictResponses(): Record<string, ResponseConfig> {
    return uniqueConflicts(this.meta.model, this.constraintsMessages);
  }

  async getObject(filters: UpdateFilters): Promise<SqlRow | null> {
    return this.withDrizzle((table, session) => table.selectOne(session, filters.filters));
  }

  /** With a matched `If-Match`, the write happens only while the row is still the one `getObject` read. */
  async update(_oldObj: unknown, filters: UpdateFilters): Promise<SqlRow> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    const row = await this.withDrizzle(
      (table, session) => table.update(session, filters.filters, this.changedData(filters), { ifUnchanged }),
      "update",
    );
    return row ?? this.missingObject();
  }
}

/** Delete over a Drizzle table: deletes the row identified by the full primary key and answers it. */
export class DrizzleDeleteEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ DrizzleBacked(
  DeleteEndpoint,
)<HandleArgs> {
  async getObject(filters: Filters): Promise<SqlRow | null> {
    return this.withDrizzle((table, session) => table.selectOne(session, filters.filters));
  }

  /** With a matched `If-Match`, deletes only while the row is still the one `getObject` read. */
  async delete(_oldObj: unknown, filters: Filters): Promise<SqlRow | null> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    return this.withDrizzle((table, session) => table.delete(session, filters.filters, { ifUnchanged }), "delete");
  }
}

/**
 * List over a Drizzle table: filters, search, ordering and pagination in one Drizzle query; numbered
 * pages count `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries.
 */
export class DrizzleListEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ DrizzleBacked(
  ListEndpoint,
)<HandleArgs> {
  /** Numbered pages are always counted, so `"page"` documents `total_count` as always present. */
  override alwaysCountsTotal(): boolean {
    return this.pagination === "page";
  }

  /** Cursor pages are never counted, so `pagination = "cursor"` documents no `total_count`. */
  override resultInfoSchema(): z.ZodObject {
    const schema = super.resultInfoSchema();
    return this.pagination === "cursor" ? schema.omit({ total_count: true }) : schema;
  }

  async list(filters: ListFilters): Promise<ListResult<SqlRow>> {
    return listPage(this, filters, {
      seek: (query) => this.withDrizzle((table, session) => table.seek(session, query)),
      list: (query) => this.withDrizzle((table, session) => table.list(session, query)),
    });
  }
}
