import { SqlBacked } from "./sql-backed";
import { StoredChanges, StoredCreate, StoredDelete, StoredList, StoredRead, StoredUpdate } from "./stored";

export { toSqlDriver } from "./sql-backed";

// The declarations below are alike on purpose: each names one mixin chain (the bodies are in stored.ts) or its D1 default.

/**
 * Create over SQL: inserts the object and answers it as stored (generated id, defaults). With `bulk`,
 * every object in one transaction (D1: one batch): all or none.
 *
 * @example
 * class CreateTask extends SqlCreateEndpoint { _meta = taskMeta; }
 * fromHono(app, { db: betterSqlite3Driver(new Database("app.db")) }).post("/tasks", CreateTask);
 */
export class SqlCreateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredCreate(
  SqlBacked,
)<HandleArgs> {}

/** chanfana's D1 endpoints: each the SQL one, reading the D1 binding named by `dbName` (default "DB") from `env`. */
export class D1CreateEndpoint<HandleArgs extends Array<object> = any> extends SqlCreateEndpoint<HandleArgs> {
  override dbName = "DB";
}

/** Read over SQL: selects the row identified by the path keys. */
export class SqlReadEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredRead(
  SqlBacked,
)<HandleArgs> {}

/** {@link SqlReadEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1ReadEndpoint<HandleArgs extends Array<object> = any> extends SqlReadEndpoint<HandleArgs> {
  override dbName = "DB";
}

/**
 * Update over SQL: writes only the columns the client sent or a hook changed in `updatedData`, in one
 * statement scoped by the full primary key.
 */
export class SqlUpdateEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredUpdate(
  SqlBacked,
)<HandleArgs> {}

/** {@link SqlUpdateEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1UpdateEndpoint<HandleArgs extends Array<object> = any> extends SqlUpdateEndpoint<HandleArgs> {
  override dbName = "DB";
}

/** Delete over SQL: deletes the row identified by the full primary key and answers it. */
export class SqlDeleteEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredDelete(
  SqlBacked,
)<HandleArgs> {}

/** {@link SqlDeleteEndpoint} over the D1 binding "DB", as chanfana's. */
export class D1DeleteEndpoint<HandleArgs extends Array<object> = any> extends SqlDeleteEndpoint<HandleArgs> {
  override dbName = "DB";
}

/**
 * List over SQL: filters, search, ordering and pagination in one query; numbered pages count
 * `total_count`, cursor pages (`pagination = "cursor"` or `"both"`) are keyset queries with no count.
 */
export class SqlListEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredList(
  SqlBacked,
)<HandleArgs> {}

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
export class SqlChangesEndpoint<HandleArgs extends Array<object> = any> extends /* @__PURE__ */ StoredChanges(
  SqlBacked,
)<HandleArgs> {}

/** {@link SqlChangesEndpoint} over the D1 binding "DB", as the other D1 endpoints. */
export class D1ChangesEndpoint<HandleArgs extends Array<object> = any> extends SqlChangesEndpoint<HandleArgs> {
  override dbName = "DB";
}
