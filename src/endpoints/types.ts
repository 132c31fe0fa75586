import type { z } from "zod";
import type { ChangeFeed } from "../live/feed";
import type { SchemaOutput, StandardSchemaLike } from "../schema/types";

/**
 * The schema of a model: a zod object, or an object schema of another library through Standard Schema
 * with Standard JSON Schema (valibot through `toStandardJsonSchema`, ArkType); see docs/schema-libraries.md.
 */
export type ModelSchema = z.ZodObject | StandardSchemaLike;

/**
 * Comparison a filter condition applies. `LIKE` carries the list search term; `ISNULL` carries a
 * boolean (true: the field is null, false: it is not).
 */
export type FilterOperator = "EQ" | "NE" | "GT" | "GTE" | "LT" | "LTE" | "IN" | "LIKE" | "ISNULL";

/** One active filter: the field, how it compares, and the (validated, typed) value. */
export interface FilterCondition {
  field: string;
  operator: FilterOperator;
  value: unknown;
}

/** Conditions identifying or restricting objects; path keys come first, in path order. */
export interface Filters {
  filters: FilterCondition[];
}

/** A sort direction. */
export type OrderByDirection = "asc" | "desc";

/**
 * Pagination and ordering of a list request, keyed by the query parameter names in force
 * (`options.p` when `pageFieldName = "p"`); the default names are typed.
 *
 * @example
 * const page = Number(filters.options[this.pageFieldName] ?? 1);
 */
export interface ListOptions {
  page?: number;
  per_page?: number;
  order_by?: string;
  order_by_direction?: OrderByDirection;
  /** The decoded cursor of a cursor-paginated request (keyed by `cursorFieldName`); absent on a first page. */
  cursor?: ListCursor;
  [key: string]: unknown;
}

/**
 * Where a cursor page starts, as a hand-written `list()` receives it: the objects strictly after
 * (`next`) or strictly before (`prev`) the object whose order field and primary keys are `key`, in
 * the listing's order (the order field, then the primary keys, all in the order's direction; NULL
 * smallest). Either way `list()` returns the page in the listing's order.
 *
 * @example
 * // GET /tasks?order_by=priority&cursor=… → { direction: "next", key: { priority: 3, id: 7 } }
 */
export interface ListCursor {
  direction: "next" | "prev";
  key: Record<string, unknown>;
}

export interface ListFilters extends Filters {
  options: ListOptions;
}

export interface UpdateFilters extends Filters {
  /**
   * In `before()` and `update()`: a copy of the fetched object with the members the client sent
   * applied (validated). From `getFilters()`, as `getObject()` gets it: only the members sent.
   */
  updatedData: Record<string, any>;
}

/** What `getUpdatedData()` returns: the fetched object with the members the client sent applied. */
export interface UpdatedData {
  updatedData: Record<string, any>;
}

/** What `list()` returns; `result_info.total_count` is filled by implementations that can count. */
export interface ListResult<T> {
  result: T[];
  result_info?: {
    count?: number;
    page?: number;
    per_page?: number;
    total_count?: number;
    next_cursor?: string | null;
    prev_cursor?: string | null;
  };
  /**
   * Cursor pagination: whether more objects lie beyond this page in the direction it went (after it
   * for a first or `next` page, before it for a `prev` page). When left out it is taken to be
   * `result.length >= per_page`.
   */
  hasMore?: boolean;
}

/** The context handed to a model's serializer. */
export interface SerializerContext {
  filters: FilterCondition[];
  /** Pagination and ordering (List); empty for Read. */
  options?: ListOptions;
}

/** A data model: its table, schema and primary keys. */
export interface Model<S extends ModelSchema = z.ZodObject> {
  tableName: string;
  schema: S;
  primaryKeys: string[];
  /**
   * Columns (besides the primary keys) each carrying a UNIQUE constraint: SQL Create and Update
   * document the 409 (or their `constraintsMessages` answer) a duplicate value gets.
   */
  unique?: string[];
  /**
   * An integer column the auto SQL endpoints increment on every write (1 on create); the `ETag` of a
   * conditional endpoint is derived from it, and an `If-Match` write is conditional on it.
   */
  versionField?: string;
  serializer?: (obj: any, context?: SerializerContext) => object;
  serializerSchema?: ModelSchema;
}

/** The `_meta` of an auto endpoint. */
export interface Meta<S extends ModelSchema = z.ZodObject> {
  model: Model<S>;
  /** Every possible field; defaults to `model.schema`. */
  fields?: ModelSchema;
  /**
   * The URL parameters that identify one object in the full (merged) path, in order, its own key last;
   * defaults to the route's own parameters. A collection route (List, Create, Changes) is scoped by
   * those before the last, and always by its own URL's parameters that are model fields.
   *
   * @example
   * { model: taskModel, pathParameters: ["projectId", "id"] } // /projects/:projectId/tasks and .../:id
   */
  pathParameters?: string[];
  tags?: string[];
  /**
   * Makes the collection live: every write through the auto endpoints over this Meta records its change
   * in the write's transaction, and a changes endpoint over it streams them (docs/live.md).
   */
  changes?: ChangeFeed;
}

/** A Model with its serializer and serializer schema filled in (what `MetaGenerator` gives). */
export type ModelComplete = Model & Required<Pick<Model, "serializer" | "serializerSchema">>;

/**
 * Where D1 endpoints send their log lines (SQL at debug, successful writes at log, failures at error);
 * `console` fits.
 *
 * @example
 * class ListUsers extends D1ListEndpoint { logger = console; }
 */
export interface Logger {
  log: (...args: any[]) => void;
  info: (...args: any[]) => void;
  warn: (...args: any[]) => void;
  error: (...args: any[]) => void;
  debug: (...args: any[]) => void;
  trace: (...args: any[]) => void;
}

/** Alias kept for chanfana 3 code that names the input type. */
export type MetaInput<S extends ModelSchema = z.ZodObject> = Meta<S>;

/** The object type a Meta describes. */
export type O<M extends Meta<any>> = SchemaOutput<M["model"]["schema"]>;
