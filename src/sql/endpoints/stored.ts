/**
 * The auto endpoints over any storage's table, written once: each mixin takes a storage's mixin
 * (SqlBacked, DrizzleBacked) and answers its endpoint's hooks with the table's operations, so
 * `StoredRead(SqlBacked)` is the SQL Read and `StoredRead(DrizzleBacked)` the Drizzle one. One mixin per
 * class rather than one call making all five, so a bundle keeps only the classes an app uses.
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
import {
  createConflicts,
  type DatabaseAccess,
  type EndpointClass,
  type StorageBackedMembers,
  uniqueConflicts,
} from "./storage-backed";

// The six mixins below are alike on purpose: each answers one endpoint kind's hooks with the table's operations.

/** A mixin's members, as a class the endpoint it returns extends. */
type Adds<Members> = abstract new (...args: any[]) => Members;

/** A storage's mixin (SqlBacked, DrizzleBacked) applied to `Endpoint`: the class, with the storage's members `M`. */
type StorageMixin<Endpoint, M> = (Base: Endpoint) => Endpoint & Adds<M>;

/** What the mixins below read of a storage's members, whichever storage it is. */
type AnyStorage = StorageBackedMembers<unknown, any, StorageTable<any>>;

/**
 * `Endpoint` backed by the storage `Backed` adds, seen as any storage: the class a mixin below extends.
 * (Extending it typed with the storage's own members `M`, a type parameter, is not allowed.)
 */
function backed<Endpoint extends EndpointClass>(
  Backed: StorageMixin<Endpoint, AnyStorage>,
  Endpoint: Endpoint,
): Endpoint & Adds<AnyStorage> {
  return Backed(Endpoint);
}

export interface StoredCreateMembers {
  create(data: Record<string, unknown>): Promise<SqlRow>;
  createMany(items: Record<string, unknown>[]): Promise<SqlRow[]>;
}

/** Create: inserts the object and answers it as stored; `bulk` inserts every object all or none. */
export function StoredCreate<M extends AnyStorage>(
  Backed: StorageMixin<typeof CreateEndpoint, M>,
): Adds<StoredCreateMembers> & typeof CreateEndpoint & Adds<M> {
  abstract class StoredCreateEndpoint extends backed(Backed, CreateEndpoint) {
    override conflictResponses(): Record<string, ResponseConfig> {
      return createConflicts(this.meta, this.pathKeys, this.constraintsMessages);
    }

    async create(data: Record<string, unknown>): Promise<SqlRow> {
      return this.withWrite("create", async (table, session) => {
        const row = await table.insert(session, data);
        return { result: row, changes: [{ kind: "created", row, before: null }] };
      });
    }

    override async createMany(items: Record<string, unknown>[]): Promise<SqlRow[]> {
      return this.withWrite("createMany", async (table, session) => {
        const rows = await table.insertMany(session, items);
        return { result: rows, changes: rows.map((row) => ({ kind: "created" as const, row, before: null })) };
      });
    }
  }
  return StoredCreateEndpoint as unknown as Adds<StoredCreateMembers> & typeof CreateEndpoint & Adds<M>;
}

export interface StoredReadMembers {
  fetch(filters: Filters): Promise<SqlRow | null>;
}

/** Read: selects the row identified by the path keys. */
export function StoredRead<M extends AnyStorage>(
  Backed: StorageMixin<typeof ReadEndpoint, M>,
): Adds<StoredReadMembers> & typeof ReadEndpoint & Adds<M> {
  abstract class StoredReadEndpoint extends backed(Backed, ReadEndpoint) {
    override get databaseAccess(): DatabaseAccess {
      return "read";
    }

    async fetch(filters: Filters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }
  }
  return StoredReadEndpoint as unknown as Adds<StoredReadMembers> & typeof ReadEndpoint & Adds<M>;
}

export interface StoredUpdateMembers {
  getObject(filters: UpdateFilters): Promise<SqlRow | null>;
  update(oldObj: unknown, filters: UpdateFilters): Promise<SqlRow>;
}

/** Update: writes the changed columns in one statement scoped by the full primary key. */
export function StoredUpdate<M extends AnyStorage>(
  Backed: StorageMixin<typeof UpdateEndpoint, M>,
): Adds<StoredUpdateMembers> & typeof UpdateEndpoint & Adds<M> {
  abstract class StoredUpdateEndpoint extends backed(Backed, UpdateEndpoint) {
    override conflictResponses(): Record<string, ResponseConfig> {
      return uniqueConflicts(this.meta.model, this.constraintsMessages);
    }

    async getObject(filters: UpdateFilters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }

    /** With a matched `If-Match`, the write happens only while the row is still the one `getObject` read. */
    async update(_oldObj: unknown, filters: UpdateFilters): Promise<SqlRow> {
      const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
      const row = await this.withWrite("update", async (table, session, recording) => {
        // A live collection's change carries the row as it was, read under the collection's write lock.
        const before = recording ? await table.selectOne(session, filters.filters) : null;
        const row = await table.update(session, filters.filters, this.changedData(filters), { ifUnchanged });
        return { result: row, changes: row ? [{ kind: "updated" as const, row, before }] : [] };
      });
      return row ?? this.missingObject();
    }
  }
  return StoredUpdateEndpoint as unknown as Adds<StoredUpdateMembers> & typeof UpdateEndpoint & Adds<M>;
}

export interface StoredDeleteMembers {
  getObject(filters: Filters): Promise<SqlRow | null>;
  delete(oldObj: unknown, filters: Filters): Promise<SqlRow | null>;
}

/** Delete: deletes the row identified by the full primary key and answers it. */
export function StoredDelete<M extends AnyStorage>(
  Backed: StorageMixin<typeof DeleteEndpoint, M>,
): Adds<StoredDeleteMembers> & typeof DeleteEndpoint & Adds<M> {
  abstract class StoredDeleteEndpoint extends backed(Backed, DeleteEndpoint) {
    async getObject(filters: Filters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }

    /** With a matched `If-Match`, deletes only while the row is still the one `getObject` read. */
    async delete(_oldObj: unknown, filters: Filters): Promise<SqlRow | null> {
      const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
      return this.withWrite("delete", async (table, session) => {
        const row = await table.delete(session, filters.filters, { ifUnchanged });
        return { result: row, changes: row ? [{ kind: "deleted" as const, row, before: null }] : [] };
      });
    }
  }
  return StoredDeleteEndpoint as unknown as Adds<StoredDeleteMembers> & typeof DeleteEndpoint & Adds<M>;
}

export interface StoredListMembers {
  list(filters: ListFilters): Promise<ListResult<SqlRow>>;
}

/**
 * List: filters, search, ordering and pagination in one query; numbered pages count `total_count`,
 * cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export function StoredList<M extends AnyStorage>(
  Backed: StorageMixin<typeof ListEndpoint, M>,
): Adds<StoredListMembers> & typeof ListEndpoint & Adds<M> {
  abstract class StoredListEndpoint extends backed(Backed, ListEndpoint) {
    override get databaseAccess(): DatabaseAccess {
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

    async list(filters: ListFilters): Promise<ListResult<SqlRow>> {
      return listPage(this, filters, {
        seek: (query) => this.withTable((table, session) => table.seek(session, query)),
        list: (query) => this.withTable((table, session) => table.list(session, query)),
      });
    }
  }
  return StoredListEndpoint as unknown as Adds<StoredListMembers> & typeof ListEndpoint & Adds<M>;
}

export interface StoredChangesMembers {
  changeSource(): Promise<ChangeSource<unknown>>;
}

/** Changes: the live collection's change log on this storage, read from the request's database. */
export function StoredChanges<M extends AnyStorage>(
  Backed: StorageMixin<typeof ChangesEndpoint, M>,
): Adds<StoredChangesMembers> & typeof ChangesEndpoint & Adds<M> {
  abstract class StoredChangesEndpoint extends backed(Backed, ChangesEndpoint) {
    override get databaseAccess(): DatabaseAccess {
      return "stream";
    }

    override async changeSource(): Promise<ChangeSource<unknown>> {
      return this.liveStorage(this.database()).source as ChangeSource<unknown>;
    }

    override decodeChangeRow(row: Record<string, unknown>): Record<string, unknown> {
      return this.storageTable!.decodeRow?.(row) ?? row;
    }
  }
  return StoredChangesEndpoint as unknown as Adds<StoredChangesMembers> & typeof ChangesEndpoint & Adds<M>;
}
