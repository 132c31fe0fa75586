import type { z } from "zod";
import { type ChangeFeed, isChangeFeed } from "../live/feed";
import { seam, unusableSchemaReason } from "../schema";
import { extendFields } from "./schema-helpers";
import type { Meta, ModelComplete, ModelSchema, SerializerContext } from "./types";

/**
 * A Meta with every default filled in, as the endpoints read it. Its schemas are zod's or another
 * library's (held under zod's type, as the rest of specroute holds them): read them through `seam`.
 */
export interface ResolvedMeta {
  model: {
    tableName: string;
    schema: z.ZodType;
    primaryKeys: string[];
    unique: string[];
    serializer: (obj: any, context?: SerializerContext) => object;
    serializerSchema: z.ZodType;
    versionField?: string;
  };
  fields: z.ZodType;
  /** The model's schema with `fields` laid over it: every column, whichever of the two declares it. */
  columns: z.ZodType;
  pathParameters: string[] | null;
  tags?: string[];
  /** The live collection's settings, when its changes are recorded. */
  changes?: ChangeFeed;
}

const resolved = new WeakMap<Meta<ModelSchema>, ResolvedMeta>();

/** Fills a Meta's defaults once per Meta object (chanfana's MetaGenerator). */
export function resolveMeta(meta: Meta<ModelSchema>): ResolvedMeta {
  let result = resolved.get(meta);
  if (!result) {
    if (!meta?.model?.schema || !Array.isArray(meta.model.primaryKeys)) {
      throw new Error("_meta must have a model with a schema and primaryKeys");
    }
    for (const [what, schema] of [
      ["_meta.model.schema", meta.model.schema],
      ["_meta.fields", meta.fields],
      ["_meta.model.serializerSchema", meta.model.serializerSchema],
    ] as const) {
      const unusable = schema === undefined ? null : unusableSchemaReason(schema);
      if (unusable !== null) throw new Error(`${what} is ${unusable}`);
      if (schema !== undefined && !seam.objectShape(schema as z.ZodType)) {
        throw new Error(`${what} must be an object schema (zod, or another library's through Standard JSON Schema)`);
      }
    }
    if (meta.changes !== undefined && !isChangeFeed(meta.changes)) {
      throw new Error("_meta.changes must be a change feed (changeFeed())");
    }
    const schema = meta.model.schema as z.ZodType;
    const fields = meta.fields as z.ZodType | undefined;
    result = {
      model: {
        tableName: meta.model.tableName,
        schema,
        primaryKeys: meta.model.primaryKeys,
        unique: meta.model.unique ?? [],
        serializer: meta.model.serializer ?? ((obj) => obj),
        serializerSchema: (meta.model.serializerSchema ?? schema) as z.ZodType,
        ...(meta.model.versionField === undefined ? {} : { versionField: meta.model.versionField }),
      },
      fields: fields ?? schema,
      columns: fields ? extendFields(schema, fields) : schema,
      pathParameters: meta.pathParameters ?? null,
      tags: meta.tags,
      ...(meta.changes === undefined ? {} : { changes: meta.changes }),
    };
    resolved.set(meta, result);
  }
  return result;
}

/**
 * A Meta with its defaults filled in, in chanfana's shape: `fields` defaults to the model's schema,
 * the serializer to identity, `serializerSchema` to the schema, `pathParameters` to null.
 *
 * @example
 * MetaGenerator({ model: TaskModel }).model.serializerSchema === TaskModel.schema // true
 */
export function MetaGenerator(meta: Meta<ModelSchema>): {
  fields: ModelSchema;
  model: ModelComplete;
  pathParameters: string[] | null;
  tags: string[] | undefined;
} {
  return {
    fields: meta.fields ?? meta.model.schema,
    model: { serializer: (obj: any) => obj, serializerSchema: meta.model.schema, ...meta.model } as ModelComplete,
    pathParameters: meta.pathParameters ?? null,
    tags: meta.tags,
  };
}

/**
 * The schema members an auto endpoint takes from its Meta: `tags`, when there is at least one
 * (an empty list documents no tags).
 *
 * @example
 * metaSchemaProps({ model, tags: ["Tasks"] }) // { tags: ["Tasks"] }
 */
export function metaSchemaProps(meta: Meta<ModelSchema>): { tags?: string[] } {
  return meta.tags?.length ? { tags: meta.tags } : {};
}
