import type { z } from "zod";
import type { ResponseConfig } from "../../core/schema-types";
import type { CreateEndpoint } from "../../endpoints/create";
import type { DeleteEndpoint } from "../../endpoints/delete";
import type { ListEndpoint } from "../../endpoints/list";
import type { ReadEndpoint } from "../../endpoints/read";
import type { Filters, ListFilters, ListResult, UpdateFilters } from "../../endpoints/types";
import type { UpdateEndpoint } from "../../endpoints/update";
import type { SqlRow, StorageTable } from "../storage";
import { listPage } from "./list-page";
import { createConflicts, type StorageBackedMembers, uniqueConflicts } from "./storage-backed";

/**
 * The five auto endpoints over any storage's table, written once: each mixin takes an endpoint class
 * that a storage (SqlBacked, DrizzleBacked) already backs and answers its hooks with the table's
 * operations. One mixin per class rather than one call making all five, so a bundle keeps only the
 * classes an app uses.
 *
 * @example
 * class SqlReadEndpoint<A extends Array<object> = any> extends StoredRead(SqlBacked(ReadEndpoint))<A> {}
 */
type Backed<Endpoint> = abstract new (
  ...args: any[]
) => Endpoint & StorageBackedMembers<unknown, any, StorageTable<any>>;

/** A mixin's members, as a class the endpoint it returns extends. */
type Adds<Members> = abstract new (...args: any[]) => Members;

export interface StoredCreateMembers {
  create(data: Record<string, unknown>): Promise<SqlRow>;
  createMany(items: Record<string, unknown>[]): Promise<SqlRow[]>;
}

/** Create: inserts the object and answers it as stored; `bulk` inserts every object all or none. */
export function StoredCreate<TBase extends Backed<CreateEndpoint>>(Base: TBase): Adds<StoredCreateMembers> & TBase {
  abstract class StoredCreateEndpoint extends Base {
    override conflictResponses(): Record<string, ResponseConfig> {
      return createConflicts(this.meta, this.pathKeys, this.constraintsMessages);
    }

    async create(data: Record<string, unknown>): Promise<SqlRow> {
      return this.withTable((table, session) => table.insert(session, data), "create");
    }

    override async createMany(items: Record<string, unknown>[]): Promise<SqlRow[]> {
      return this.withTable((table, session) => table.insertMany(session, items), "createMany");
    }
  }
  return StoredCreateEndpoint;
}

export interface StoredReadMembers {
  fetch(filters: Filters): Promise<SqlRow | null>;
}

/** Read: selects the row identified by the path keys. */
export function StoredRead<TBase extends Backed<ReadEndpoint>>(Base: TBase): Adds<StoredReadMembers> & TBase {
  abstract class StoredReadEndpoint extends Base {
    async fetch(filters: Filters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }
  }
  return StoredReadEndpoint;
}

export interface StoredUpdateMembers {
  getObject(filters: UpdateFilters): Promise<SqlRow | null>;
  update(oldObj: unknown, filters: UpdateFilters): Promise<SqlRow>;
}

/** Update: writes the changed columns in one statement scoped by the full primary key. */
export function StoredUpdate<TBase extends Backed<UpdateEndpoint>>(Base: TBase): Adds<StoredUpdateMembers> & TBase {
  abstract class StoredUpdateEndpoint extends Base {
    override conflictResponses(): Record<string, ResponseConfig> {
      return uniqueConflicts(this.meta.model, this.constraintsMessages);
    }

    async getObject(filters: UpdateFilters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }

    /** With a matched `If-Match`, the write happens only while the row is still the one `getObject` read. */
    async update(_oldObj: unknown, filters: UpdateFilters): Promise<SqlRow> {
      const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
      const row = await this.withTable(
        (table, session) => table.update(session, filters.filters, this.changedData(filters), { ifUnchanged }),
        "update",
      );
      return row ?? this.missingObject();
    }
  }
  return StoredUpdateEndpoint;
}

export interface StoredDeleteMembers {
  getObject(filters: Filters): Promise<SqlRow | null>;
  delete(oldObj: unknown, filters: Filters): Promise<SqlRow | null>;
}

/** Delete: deletes the row identified by the full primary key and answers it. */
export function StoredDelete<TBase extends Backed<DeleteEndpoint>>(Base: TBase): Adds<StoredDeleteMembers> & TBase {
  abstract class StoredDeleteEndpoint extends Base {
    async getObject(filters: Filters): Promise<SqlRow | null> {
      return this.withTable((table, session) => table.selectOne(session, filters.filters));
    }

    /** With a matched `If-Match`, deletes only while the row is still the one `getObject` read. */
    async delete(_oldObj: unknown, filters: Filters): Promise<SqlRow | null> {
      const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
      return this.withTable((table, session) => table.delete(session, filters.filters, { ifUnchanged }), "delete");
    }
  }
  return StoredDeleteEndpoint;
}

export interface StoredListMembers {
  list(filters: ListFilters): Promise<ListResult<SqlRow>>;
}

/**
 * List: filters, search, ordering and pagination in one query; numbered pages count `total_count`,
 * cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export function StoredList<TBase extends Backed<ListEndpoint>>(Base: TBase): Adds<StoredListMembers> & TBase {
  abstract class StoredListEndpoint extends Base {
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
  return StoredListEndpoint;
}
