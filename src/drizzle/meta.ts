import { type Column, getTableColumns, getTableName, type Table } from "drizzle-orm";
import {
  type BuildRefine,
  type BuildSchema,
  createSchemaFactory,
  createSelectSchema,
  type NoUnknownKeys,
} from "drizzle-zod";
import { z } from "zod";
import type { Meta, Model, SerializerContext } from "../endpoints/types";
import { dialectOf } from "./dialects";

/** A model made from a Drizzle table: the table itself beside the usual model members. */
export interface DrizzleModel<S extends z.ZodObject = z.ZodObject> extends Model<S> {
  /** The Drizzle table the Drizzle endpoints query. */
  table: Table;
}

/** The `_meta` of a Drizzle endpoint, as {@link drizzleMeta} makes it: the model, and the fields requests carry. */
export type DrizzleMeta<S extends z.ZodObject = z.ZodObject, F = z.ZodObject> = Meta<S> & {
  model: DrizzleModel<S>;
  fields: F;
};

/** A column key of a Drizzle table (its property name, which may differ from the database column name). */
export type ColumnKey<TTable extends Table> = Extract<keyof TTable["_"]["columns"], string>;

type Refine<TTable extends Table> = BuildRefine<TTable["_"]["columns"], undefined>;

export interface DrizzleMetaOptions<TTable extends Table, TRefine extends Refine<TTable>> {
  /**
   * drizzle-zod refinements, by column key: a function refining the column's schema
   * (`(title) => title.min(1)`), or a schema replacing it. Applied to the model and to the request fields.
   */
  refine?: NoUnknownKeys<TRefine, TTable["$inferSelect"]>;
  /** Only these columns are in the model (read, written, documented); the primary key must be among them. */
  pick?: readonly ColumnKey<TTable>[];
  /** These columns are left out of the model (a password hash, say); never a primary key. */
  omit?: readonly ColumnKey<TTable>[];
  /** An integer column the endpoints increment on every write (see Conditional requests). */
  versionField?: ColumnKey<TTable>;
  /** URL parameter names of the merged path, when the endpoints sit in a nested router. */
  pathParameters?: string[];
  tags?: string[];
  serializer?: (obj: any, context?: SerializerContext) => object;
  serializerSchema?: z.ZodObject;
}

/** drizzle-zod's select schema of a table: the model schema's type. */
export type SelectSchema<TTable extends Table, TRefine extends Refine<TTable>> = BuildSchema<
  "select",
  TTable["_"]["columns"],
  TRefine,
  undefined
>;

/**
 * drizzle-zod's insert schema of a table, dates and big integers coerced from JSON: the request fields'
 * type. (At run time a single-column key the table generates is left out too; its type keeps it optional.)
 */
export type InsertFields<TTable extends Table, TRefine extends Refine<TTable>> = BuildSchema<
  "insert",
  TTable["_"]["columns"],
  TRefine,
  { date: true; bigint: true }
>;

/**
 * A Meta made from a Drizzle table (`sqliteTable`, `pgTable`, `mysqlTable`): the model schema is
 * drizzle-zod's select schema, the request fields its insert schema (a key the database generates left
 * out, a literal default documented), the primary key and the UNIQUE columns come from the table.
 *
 * @example
 * const users = sqliteTable("users", { id: integer().primaryKey({ autoIncrement: true }), email: text().notNull().unique() });
 * class CreateUser extends DrizzleCreateEndpoint { _meta = drizzleMeta(users, { refine: { email: (s) => s.email() } }); }
 */
export function drizzleMeta<TTable extends Table, TRefine extends Refine<TTable>>(
  table: TTable,
  options: DrizzleMetaOptions<TTable, TRefine> = {},
): DrizzleMeta<SelectSchema<TTable, TRefine>, InsertFields<TTable, TRefine>> {
  const shape = dialectOf(table).shape(table);
  const columns = getTableColumns(table) as Record<string, Column>;
  // By database name: a table's configuration (composite keys, constraints) may hold other instances of its columns.
  const keyOf = new Map(Object.entries(columns).map(([key, column]) => [column.name, key]));
  const name = getTableName(table);
  const tableName = shape.schema ? `${shape.schema}.${name}` : name;

  const keys = Object.keys(columns).filter(
    (key) =>
      (!options.pick || (options.pick as readonly string[]).includes(key)) &&
      !(options.omit as readonly string[] | undefined)?.includes(key),
  );
  for (const key of [...(options.pick ?? []), ...(options.omit ?? [])]) {
    if (!(key in columns)) throw new Error(`drizzleMeta: "${key}" is not a column of ${tableName}`);
  }
  const primary = Object.entries(columns).filter(([, column]) => column.primary);
  const primaryKeys =
    primary.length > 0 ? primary.map(([key]) => key) : shape.primaryKey.map((column) => keyOf.get(column)!);
  if (primaryKeys.length === 0) throw new Error(`drizzleMeta: ${tableName} has no primary key`);
  for (const key of primaryKeys) {
    if (!keys.includes(key))
      throw new Error(`drizzleMeta: the primary key "${key}" of ${tableName} must stay in the model`);
  }
  const mask = (names: string[]) => Object.fromEntries(names.map((key) => [key, true])) as Record<string, true>;

  const refine = (options.refine ?? {}) as Record<string, unknown>;
  // Untyped calls: the typed ones instantiate drizzle-zod's whole schema type for a generic table.
  const select = createSelectSchema as (table: Table, refine: unknown) => z.ZodObject;
  const insert = (requestSchemas.createInsertSchema as (table: Table, refine: unknown) => z.ZodObject)(table, refine);
  const schema = select(table, refine).pick(mask(keys));
  // A single-column key the database or Drizzle generates (autoincrement, serial, identity, $defaultFn) is not the client's to send.
  const generated = primaryKeys.length === 1 && isGenerated(columns[primaryKeys[0]!]!) ? primaryKeys : [];
  const fieldShape: Record<string, z.ZodType> = {};
  for (const key of keys) {
    const member = insert.shape[key] as z.ZodType | undefined;
    // A column Drizzle always generates (`generatedAlwaysAs`) has no insert member.
    if (!member || generated.includes(key)) continue;
    fieldShape[key] = withLiteralDefault(member, columns[key]!);
  }

  const unique = new Set<string>();
  for (const { columns: set } of shape.unique) {
    for (const column of set) {
      const key = keyOf.get(column);
      if (key !== undefined && keys.includes(key) && !primaryKeys.includes(key)) unique.add(key);
    }
  }
  const model: DrizzleModel = {
    tableName,
    schema,
    primaryKeys,
    unique: [...unique],
    table,
    ...(options.versionField === undefined ? {} : { versionField: options.versionField }),
    ...(options.serializer ? { serializer: options.serializer } : {}),
    ...(options.serializerSchema ? { serializerSchema: options.serializerSchema } : {}),
  };
  return {
    model,
    fields: z.object(fieldShape),
    ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
  } as DrizzleMeta as never;
}

// JSON carries dates as ISO text and big integers as text or numbers: request fields turn them back.
const requestSchemas = /* @__PURE__ */ createSchemaFactory({ coerce: { date: true, bigint: true } });

function isGenerated(column: Column): boolean {
  return (
    column.hasDefault ||
    column.defaultFn !== undefined ||
    Boolean((column as { generatedIdentity?: unknown }).generatedIdentity)
  );
}

/** An insert member with the column's literal default (`.default(0)`), so the document shows it and validation fills it. */
function withLiteralDefault(member: z.ZodType, column: Column): z.ZodType {
  const value = column.default;
  if (!["string", "number", "boolean"].includes(typeof value)) return member;
  const inner = member instanceof z.ZodOptional ? (member.unwrap() as z.ZodType) : member;
  return inner.default(value as never);
}
