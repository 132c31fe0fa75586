import type { z } from "zod";
import type * as core from "zod/v4/core";

/** Where a request-part member ends up in the document; `name` and `in` come from the route itself. */
interface ParameterMetadata {
  name?: string;
  in?: "path" | "query" | "header" | "cookie";
  description?: string;
  example?: unknown;
  deprecated?: boolean;
  [key: string]: unknown;
}

/** What `.openapi()` accepts: JSON Schema keywords that override zod's, plus parameter details. */
interface OpenApiMetadata {
  description?: string;
  title?: string;
  example?: unknown;
  examples?: unknown[];
  format?: string;
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  default?: unknown;
  deprecated?: boolean;
  param?: ParameterMetadata;
  [key: string]: unknown;
}

declare module "zod" {
  interface ZodType<
    out Output = unknown,
    out Input = unknown,
    out Internals extends core.$ZodTypeInternals<Output, Input> = core.$ZodTypeInternals<Output, Input>,
  > {
    /**
     * Attaches OpenAPI metadata (stored with zod's `.meta()`); a `refId` makes the schema a
     * component referenced as `#/components/schemas/<refId>`.
     */
    openapi(metadata: OpenApiMetadata): this;
    openapi(refId: string, metadata?: OpenApiMetadata): this;
  }
}

const INSTALLED = Symbol.for("specroute.openapi");

/**
 * Adds `.openapi(metadata)` and `.openapi(refId, metadata?)` to every zod schema. Safe to call more than once.
 *
 * @example
 * extendZodWithOpenApi(z);
 * const User = z.object({ email: z.email().openapi({ example: "ada@example.com" }) }).openapi("User");
 */
export function extendZodWithOpenApi(zod: typeof z): void {
  const proto = zod.ZodType.prototype as Record<PropertyKey, unknown>;
  if (proto[INSTALLED]) return;
  Object.defineProperty(proto, INSTALLED, { value: true });
  // A plain function so `this` is the schema; `.meta()` clones it and records the merged metadata.
  proto.openapi = function openapi(this: z.ZodType, first: string | OpenApiMetadata, second?: OpenApiMetadata) {
    const given = typeof first === "string" ? { ...second, id: first } : first;
    return this.meta(mergeMetadata(this.meta() ?? {}, given));
  };
}

/** Later metadata wins key by key; `param` merges one level down; an `id` is never inherited. */
function mergeMetadata(existing: Record<string, unknown>, given: OpenApiMetadata): Record<string, unknown> {
  const { id: _inheritedId, ...rest } = existing;
  const merged: Record<string, unknown> = { ...rest, ...given };
  if (isRecord(rest.param) && isRecord(given.param)) merged.param = { ...rest.param, ...given.param };
  return merged;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
