import { z } from "zod";
import type { MediaTypeConfig } from "./schema-types";

/** Whether a value is a zod v4 schema (by shape, so any loaded zod copy counts). */
export function isZodType(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * Declares a JSON body or response: `{ content: { "application/json": { schema } } }`.
 * A plain value (chanfana's legacy form) is turned into a schema with that value as its example.
 *
 * @example
 * responses: { "200": { description: "The task", ...contentJson(Task) } }
 */
export function contentJson<T>(schema: T): {
  content: { "application/json": MediaTypeConfig & { schema: T extends z.ZodType ? T : z.ZodType } };
} {
  const resolved = isZodType(schema) ? schema : legacyValueToSchema(schema);
  return { content: { "application/json": { schema: resolved as any } } };
}

/** Builds a schema from an example value, as chanfana 3's `contentJson` accepted plain objects. */
export function legacyValueToSchema(value: unknown): z.ZodType {
  if (isZodType(value)) return value;
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
