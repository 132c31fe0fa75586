/**
 * The auto endpoints over any storage's table, written once: each class answers its endpoint kind's hooks
 * with the table's operations, run through the storage it holds (`storage`), so `SqlReadEndpoint` is
 * `StoredReadEndpoint` holding the SQL storage and `DrizzleReadEndpoint` the same class holding Drizzle's.
 */
import type { z } from "zod";
import type { ResponseConfig } from "../../core/schema-types";
import { ChangesEndpoint } from "../../endpoints/changes";
import { CreateEndpoint } from "../../endpoints/create";
import { DeleteEndpoint } from "../../endpoints/delete";
import { ListEndpoint } from "../../endpoints/list";
import { ReadEndpoint } from "../../endpoints/read";
import type { Filters, ListFilters, ListResult, UpdateFilters } from "../../endpoints/types";
import { UpdateEndpoint } from "../../endpoints/update";
import type { ChangeSource } from "../../live/listen";
import type { SqlRow, StorageTable } from "../storage";
import { listPage } from "./list-page";
import { createConflicts, type DatabaseAccess, type TableStorage, uniqueConflicts } from "./table-storage";

// The six classes below are alike on purpose: each answers one endpoint kind's hooks with the table's
// operations. `Db` is what `database()` answers: the storage's database (a SqlDriver, a Drizzle database).

/** What the classes below hold, whichever storage it is. */
export type AnyTableStorage = TableStorage<any, any, StorageTable<any>>;

/** Create: inserts the object and answers it as stored; `bulk` inserts every object all or none. */
export abstract class StoredCreateEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends CreateEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "write";
  }

  override conflictResponses(): Record<string, ResponseConfig> {
    return createConflicts(this.meta, this.pathKeys, this.constraintsMessages);
  }

  override async create(data: Record<string, unknown>): Promise<SqlRow> {
    return this.storage.withWrite(this, "create", async (table, session) => {
      const row = await table.insert(session, data);
      return { result: row, changes: [{ kind: "created", row, before: null }] };
    });
  }

  override async createMany(items: Record<string, unknown>[]): Promise<SqlRow[]> {
    return this.storage.withWrite(this, "createMany", async (table, session) => {
      const rows = await table.insertMany(session, items);
      return { result: rows, changes: rows.map((row) => ({ kind: "created" as const, row, before: null })) };
    });
  }
}

/** Read: selects the row identified by the path keys. */
export abstract class StoredReadEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends ReadEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "read";
  }

  override async fetch(filters: Filters): Promise<SqlRow | null> {
    return this.storage.withTable(this, (table, session) => table.selectOne(session, filters.filters));
  }
}

/** Update: writes the changed columns in one statement scoped by the full primary key. */
export abstract class StoredUpdateEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends UpdateEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "write";
  }

  override conflictResponses(): Record<string, ResponseConfig> {
    return uniqueConflicts(this.meta.model, this.constraintsMessages);
  }

  override async getObject(filters: UpdateFilters): Promise<SqlRow | null> {
    return this.storage.withTable(this, (table, session) => table.selectOne(session, filters.filters));
  }

  /** With a matched `If-Match`, the write happens only while the row is still the one `getObject` read. */
  override async update(_oldObj: unknown, filters: UpdateFilters): Promise<SqlRow> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    const row = await this.storage.withWrite(this, "update", async (table, session, recording) => {
      // A live collection's change carries the row as it was, read under the collection's write lock.
      const before = recording ? await table.selectOne(session, filters.filters) : null;
      const row = await table.update(session, filters.filters, this.changedData(filters), { ifUnchanged });
      return { result: row, changes: row ? [{ kind: "updated" as const, row, before }] : [] };
    });
    return row ?? this.missingObject();
  }
}

/** Delete: deletes the row identified by the full primary key and answers it. */
export abstract class StoredDeleteEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends DeleteEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "write";
  }

  override async getObject(filters: Filters): Promise<SqlRow | null> {
    return this.storage.withTable(this, (table, session) => table.selectOne(session, filters.filters));
  }

  /** With a matched `If-Match`, deletes only while the row is still the one `getObject` read. */
  override async delete(_oldObj: unknown, filters: Filters): Promise<SqlRow | null> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    return this.storage.withWrite(this, "delete", async (table, session) => {
      const row = await table.delete(session, filters.filters, { ifUnchanged });
      return { result: row, changes: row ? [{ kind: "deleted" as const, row, before: null }] : [] };
    });
  }
}

/**
 * List: filters, search, ordering and pagination in one query; numbered pages count `total_count`,
 * cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export abstract class StoredListEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends ListEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "read";
  }

  /** Numbered pages are always counted, so `"page"` documents `total_count` as always present. */
  override alwaysCountsTotal(): boolean {
    return this.pagination === "page";
  }

  /** Cursor pages are never counted, so `pagination = "cursor"` documents no `total_count`. */
  override resultInfoSchema(): z.ZodObject {
    const schema = super.resultInfoSchema();
    return this.pagination === "cursor" ? schema.omit({ total_count: true }) : schema;
  }

  override async list(filters: ListFilters): Promise<ListResult<SqlRow>> {
    return listPage(this, filters, {
      seek: (query) => this.storage.withTable(this, (table, session) => table.seek(session, query)),
      list: (query) => this.storage.withTable(this, (table, session) => table.list(session, query)),
    });
  }
}

/** Changes: the live collection's change log on this storage, read from the request's database. */
export abstract class StoredChangesEndpoint<
  HandleArgs extends Array<object> = any,
  Db = unknown,
> extends ChangesEndpoint<HandleArgs> {
  declare readonly storage: AnyTableStorage;
  override database(): Db {
    return super.database() as Db;
  }
  get databaseAccess(): DatabaseAccess {
    return "stream";
  }

  override async changeSource(): Promise<ChangeSource<unknown>> {
    return this.storage.liveStorage(this, this.database()).source as ChangeSource<unknown>;
  }

  override decodeChangeRow(row: Record<string, unknown>): Record<string, unknown> {
    return this.storage.table(this).decodeRow?.(row) ?? row;
  }
}
