import type { z } from "zod";
import type { ResponseConfig } from "../../core/schema-types";
import { CreateEndpoint } from "../../endpoints/create";
import { DeleteEndpoint } from "../../endpoints/delete";
import { ListEndpoint } from "../../endpoints/list";
import { ReadEndpoint } from "../../endpoints/read";
import type { Filters, ListFilters, ListResult, UpdateFilters } from "../../endpoints/types";
import { UpdateEndpoint } from "../../endpoints/update";
import type { SqlRow } from "../storage";
import { listPage } from "./list-page";
import { createConflicts, SqlBacked, uniqueConflicts } from "./sql-backed";

export { toSqlDriver } from "./sql-backed";

/**
 * Create over SQL: inserts the object and answers it as stored (generated id, defaults).
 *
 * @example
 * class CreateTask extends SqlCreateEndpoint { _meta = taskMeta; }
 * fromHono(app, { db: betterSqlite3Driver(new Database("app.db")) }).post("/tasks", CreateTask);
 */
export class SqlCreateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ SqlBacked(
  CreateEndpoint,
)<HandleArgs> {
  override conflictResponses(): Record<string, ResponseConfig> {
    return createConflicts(this.meta, this.pathKeys, this.constraintsMessages);
  }

  async create(data: Record<string, unknown>): Promise<SqlRow> {
    return this.withTable((table, db) => table.insert(db, data), "create");
  }

  /** Inserts every object of a bulk request in one transaction (D1: one batch): all or none. */
  override async createMany(items: Record<string, unknown>[]): Promise<SqlRow[]> {
    return this.withTable((table, db) => table.insertMany(db, items), "createMany");
  }
}

/** Read over SQL: selects the row identified by the path keys. */
export class SqlReadEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ SqlBacked(
  ReadEndpoint,
)<HandleArgs> {
  async fetch(filters: Filters): Promise<SqlRow | null> {
    return this.withTable((table, db) => table.selectOne(db, filters.filters));
  }
}

/**
 * Update over SQL: writes only the columns the client sent or a hook changed in `updatedData`, in one
 * statement scoped by the full primary key.
 */
export class SqlUpdateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ SqlBacked(
  UpdateEndpoint,
)<HandleArgs> {
  override conflictResponses(): Record<string, ResponseConfig> {
    return uniqueConflicts(this.meta.model, this.constraintsMessages);
  }

  async getObject(filters: UpdateFilters): Promise<SqlRow | null> {
    return this.withTable((table, db) => table.selectOne(db, filters.filters));
  }

  /** With a matched `If-Match`, the write happens only while the row is still the one `getObject` read. */
  async update(_oldObj: unknown, filters: UpdateFilters): Promise<SqlRow> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    const row = await this.withTable(
      (table, db) => table.update(db, filters.filters, this.changedData(filters), { ifUnchanged }),
      "update",
    );
    return row ?? this.missingObject();
  }
}

/** Delete over SQL: deletes the row identified by the full primary key and answers it. */
export class SqlDeleteEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ SqlBacked(
  DeleteEndpoint,
)<HandleArgs> {
  async getObject(filters: Filters): Promise<SqlRow | null> {
    return this.withTable((table, db) => table.selectOne(db, filters.filters));
  }

  /** With a matched `If-Match`, deletes only while the row is still the one `getObject` read. */
  async delete(_oldObj: unknown, filters: Filters): Promise<SqlRow | null> {
    const ifUnchanged = this.ifMatchObject as SqlRow | undefined;
    return this.withTable((table, db) => table.delete(db, filters.filters, { ifUnchanged }), "delete");
  }
}

/**
 * List over SQL: filters, search, ordering and pagination in one query; numbered pages count
 * `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export class SqlListEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ SqlBacked(
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
      seek: (query) => this.withTable((table, db) => table.seek(db, query)),
      list: (query) => this.withTable((table, db) => table.list(db, query)),
    });
  }
}

/** chanfana's D1 endpoints: the same, reading the D1 binding named by `dbName` (default "DB") from `env`. */
export class D1CreateEndpoint<HandleArgs extends Array<object> = any> extends SqlCreateEndpoint<HandleArgs> {
  override dbName = "DB";
}
export class D1ReadEndpoint<HandleArgs extends Array<object> = any> extends SqlReadEndpoint<HandleArgs> {
  override dbName = "DB";
}
export class D1UpdateEndpoint<HandleArgs extends Array<object> = any> extends SqlUpdateEndpoint<HandleArgs> {
  override dbName = "DB";
}
export class D1DeleteEndpoint<HandleArgs extends Array<object> = any> extends SqlDeleteEndpoint<HandleArgs> {
  override dbName = "DB";
}
export class D1ListEndpoint<HandleArgs extends Array<object> = any> extends SqlListEndpoint<HandleArgs> {
  override dbName = "DB";
}
