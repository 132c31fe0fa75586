import type { z } from "zod";
import { type ChangeFeed, isChangeFeed } from "../live/feed";
import type { Meta, Model, ModelComplete, SerializerContext } from "./types";

/** A Meta with every default filled in, as the endpoints read it. */
export interface ResolvedMeta {
  model: Required<Pick<Model, "tableName" | "schema" | "primaryKeys" | "unique">> & {
    serializer: (obj: any, context?: SerializerContext) => object;
    serializerSchema: z.ZodObject;
    versionField?: string;
  };
  fields: z.ZodObject;
  /** The model's schema with `fields` laid over it: every column, whichever of the two declares it. */
  columns: z.ZodObject;
  pathParameters: string[] | null;
  tags?: string[];
  /** The live collection's settings, when its changes are recorded. */
  changes?: ChangeFeed;
}

const resolved = new WeakMap<Meta, ResolvedMeta>();

/** Fills a Meta's defaults once per Meta object (chanfana's MetaGenerator). */
export function resolveMeta(meta: Meta): ResolvedMeta {
  let result = resolved.get(meta);
  if (!result) {
    if (!meta?.model?.schema || !Array.isArray(meta.model.primaryKeys)) {
      throw new Error("_meta must have a model with a schema and primaryKeys");
    }
    if (meta.changes !== undefined && !isChangeFeed(meta.changes)) {
      throw new Error("_meta.changes must be a change feed (changeFeed())");
    }
    result = {
      model: {
        tableName: meta.model.tableName,
        schema: meta.model.schema,
        primaryKeys: meta.model.primaryKeys,
        unique: meta.model.unique ?? [],
        serializer: meta.model.serializer ?? ((obj) => obj),
        serializerSchema: meta.model.serializerSchema ?? meta.model.schema,
        ...(meta.model.versionField === undefined ? {} : { versionField: meta.model.versionField }),
      },
      fields: meta.fields ?? meta.model.schema,
      columns: meta.fields ? meta.model.schema.extend(meta.fields.shape) : meta.model.schema,
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
export function MetaGenerator(meta: Meta): {
  fields: z.ZodObject;
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
export function metaSchemaProps(meta: Meta): { tags?: string[] } {
  return meta.tags?.length ? { tags: meta.tags } : {};
}
