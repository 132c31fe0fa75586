import { z } from "zod";
import { compose, isZodSchema, seam, unusableSchemaReason } from "../../schema";
import type { SchemaInput, SchemaLike, SchemaOutput, StandardSchemaLike } from "../../schema/types";
import type { MediaTypeConfig, StreamMediaTypeConfig } from "../schema-types";

/**
 * Declares a JSON body or response: `{ content: { "application/json": { schema } } }`.
 * A plain value (chanfana's legacy form) is turned into a schema with that value as its example.
 *
 * @example
 * responses: { "200": { description: "The task", ...contentJson(Task) } }
 */
export function contentJson<T>(schema: T): {
  // Tested structurally (SchemaLike): checking against the z.ZodType class is costly in the editor.
  content: { "application/json": MediaTypeConfig<T extends SchemaLike | StandardSchemaLike ? T : z.ZodType> };
} {
  // A Standard Schema that cannot be documented stays as given, so the route's compile refuses it by name.
  const resolved =
    seam.isSchema(schema) || unusableSchemaReason(schema) !== null ? schema : legacyValueToSchema(schema);
  return { content: { "application/json": { schema: resolved as any } } };
}

/**
 * Declares a URL-encoded form body: `{ content: { "application/x-www-form-urlencoded": { schema } } }`.
 * Values are coerced like query values: numbers, booleans, arrays from repeated keys; "" is absent.
 *
 * @example
 * request: { body: contentForm(z.object({ email: z.email(), tags: z.array(z.string()).default([]) })) }
 */
export function contentForm<T extends z.core.$ZodType | StandardSchemaLike>(
  schema: T,
): { content: { "application/x-www-form-urlencoded": MediaTypeConfig<T> } } {
  return { content: { "application/x-www-form-urlencoded": { schema } } };
}

/**
 * Declares a `multipart/form-data` body, whose members may be files (see `fileField`). Text members
 * are coerced like query values; files are refused as soon as they pass their `maxSize`.
 *
 * @example
 * request: { body: contentMultipart(z.object({ avatar: fileField({ maxSize: 1_000_000, types: ["image/png"] }) })) }
 */
export function contentMultipart<T extends z.core.$ZodType | StandardSchemaLike>(
  schema: T,
): { content: { "multipart/form-data": MediaTypeConfig<T> } } {
  return { content: { "multipart/form-data": { schema } } };
}

/** Builds a schema from an example value, as chanfana 3's `contentJson` accepted plain objects. */
function legacyValueToSchema(value: unknown): z.ZodType {
  if (seam.isSchema(value)) return value;
  if (Array.isArray(value)) return z.array(value.length > 0 ? legacyValueToSchema(value[0]) : z.unknown());
  if (value === null) return z.null();
  switch (typeof value) {
    case "string":
      return z.string().meta({ example: value });
    case "number":
      return z.number().meta({ example: value });
    case "boolean":
      return z.boolean().meta({ example: value });
    case "object": {
      const shape: Record<string, z.ZodType> = {};
      for (const [key, member] of Object.entries(value as object)) shape[key] = legacyValueToSchema(member);
      return z.object(shape);
    }
    default:
      return z.unknown();
  }
}

/** What one Server-Sent Event carries besides its `data`. */
interface SseFields {
  event?: string;
  id?: string;
  retry?: number;
}

/**
 * The schema of one event whose `data` is another library's schema: a Standard Schema typed like the
 * zod object `sseEvent` makes for a zod `data`.
 */
export type StandardSseEvent<T> = StandardSchemaLike & {
  readonly "~standard": {
    readonly types?: {
      readonly input: SseFields & { data: SchemaInput<T> };
      readonly output: SseFields & { data: SchemaOutput<T> };
    };
  };
};

/** The event schema `sseEvent(data)` makes: zod's object for a zod `data`, else a composed Standard Schema. */
export type SseEventSchema<T> = T extends z.ZodType
  ? z.ZodObject<{
      data: T;
      event: z.ZodOptional<z.ZodString>;
      id: z.ZodOptional<z.ZodString>;
      retry: z.ZodOptional<z.ZodNumber>;
    }>
  : StandardSseEvent<T>;

/**
 * The schema of one Server-Sent Event whose `data` is `data`: what `contentEventStream` declares.
 *
 * @example
 * const TaskEvent = sseEvent(z.object({ taskId: z.number() }));
 */
export function sseEvent<T extends z.ZodType | StandardSchemaLike>(data: T): SseEventSchema<T> {
  const members = {
    event: z.string().optional(),
    id: z.string().optional(),
    retry: z.number().int().nonnegative().optional(),
  };
  const event = isZodSchema(data)
    ? z.object({ data, ...members })
    : compose.object({ data: data as never, ...members });
  return event as SseEventSchema<T>;
}

/**
 * Declares a response of Server-Sent Events (`text/event-stream`), each `{ data, event?, id?, retry? }`
 * with `data` typed by the schema; `handle()` returns an async iterable (or is an async generator) of them.
 *
 * @example
 * responses: { "200": { description: "Task changes as they happen", ...contentEventStream(TaskChange) } }
 */
export function contentEventStream<T extends z.ZodType | StandardSchemaLike>(
  data: T,
): { content: { "text/event-stream": StreamMediaTypeConfig<SseEventSchema<T>> } } {
  return { content: { "text/event-stream": { itemSchema: sseEvent(data) } } };
}

/**
 * Declares a JSON Lines response (`application/jsonl`): one JSON value per line, each item parsed by
 * `item`; `handle()` returns an async iterable of them.
 *
 * @example
 * responses: { "200": { description: "Every task, one per line", ...contentJsonLines(Task) } }
 */
export function contentJsonLines<T extends z.ZodType | StandardSchemaLike>(
  item: T,
): { content: { "application/jsonl": StreamMediaTypeConfig<T> } } {
  return { content: { "application/jsonl": { itemSchema: item } } };
}
