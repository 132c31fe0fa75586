import { z } from "zod";
import type { OpenAPIRouteSchema, ResponseConfig } from "../core/schema-types";
import { InputValidationException, NotFoundException } from "../errors/exceptions";
import { compose, headersNotIn, isZodSchema, seam } from "../schema";

/** A model field without optional/default/nullable (and the other) wrappers: what a filter on it accepts. */
export function bareField(schema: z.ZodType): z.ZodType {
  return seam.unwrap(schema, "wrappers");
}

/** The members of an object schema of a model (zod's or another library's). */
export function shapeOf(fields: z.ZodType): Record<string, z.ZodType> {
  const shape = seam.objectShape(fields);
  if (!shape) throw new Error("A model's schema must be an object schema");
  return shape;
}

/**
 * An object of `members`: zod's `z.object` when every member is zod's (so zod models keep their exact
 * documents), else a composed object that validates each member with its own library.
 */
export function objectOf(members: Record<string, z.ZodType>): z.ZodType {
  return Object.values(members).every(isZodSchema) ? z.object(members) : compose.object(members);
}

/** An array of `item`. */
export function arrayOf(item: z.ZodType): z.ZodType {
  return isZodSchema(item) ? z.array(item) : compose.array(item);
}

/** `member`, which an object may leave out. */
export function optionalOf(member: z.ZodType): z.ZodType {
  return isZodSchema(member) ? member.optional() : compose.optional(member);
}

/** `schema` with a description for its documentation. */
export function describedAs(schema: z.ZodType, description: string): z.ZodType {
  return isZodSchema(schema) ? schema.describe(description) : compose.noted(schema, { description });
}

/**
 * `fields` as a `z.ZodObject` whose `omit`, `partial` and `extend` keep what it validates: a bare zod
 * object. zod refuses those on an object with a check over it (4.1 drops the check instead), so such a
 * model's derived schemas are built from its members, and the model is checked whole (model-check.ts).
 */
function bareZodObject(fields: z.ZodType): z.ZodObject | null {
  return fields instanceof z.ZodObject && seam.validatesMemberwise(fields) ? fields : null;
}

/** `base` with the members of `extra` laid over it (zod's `extend`). */
export function extendFields(base: z.ZodType, extra: z.ZodType): z.ZodType {
  const bare = bareZodObject(base);
  if (bare && extra instanceof z.ZodObject) return bare.extend(extra.shape);
  return objectOf({ ...shapeOf(base), ...shapeOf(extra) });
}

/** The members of `fields` named in `keys`, in that order; a missing one is a configuration error. */
export function pickFields(fields: z.ZodType, keys: string[], what: string): z.ZodType {
  const members = shapeOf(fields);
  const shape: Record<string, z.ZodType> = {};
  for (const key of keys) {
    const member = members[key];
    if (!member) throw new Error(`${what} "${key}" is not a field of the model`);
    shape[key] = bareField(member);
  }
  return objectOf(shape);
}

/** `fields` without the members named in `keys`. */
export function omitFields(fields: z.ZodType, keys: string[]): z.ZodType {
  const members = shapeOf(fields);
  const present = keys.filter((key) => key in members);
  if (present.length === 0) return fields;
  const bare = bareZodObject(fields);
  if (bare) return bare.omit(Object.fromEntries(present.map((key) => [key, true])) as any);
  return objectOf(Object.fromEntries(Object.entries(members).filter(([key]) => !present.includes(key))));
}

/** The fields a request body never carries: the path keys, and the version column the storage writes. */
export function writableKeys(pathKeys: string[], versionField: string | undefined): string[] {
  return versionField === undefined ? pathKeys : [...pathKeys, versionField];
}

/**
 * The body of a PUT: the fields as declared, but a member with a default is optional without it. An
 * update writes only the members sent (as chanfana's), so an absent one keeps its stored value; a
 * documented default would promise the client otherwise.
 */
export function putFields(fields: z.ZodType): z.ZodType {
  const members = shapeOf(fields);
  // Members a request may leave out: an optional one stays optional, a defaulted one loses its default.
  const defaulted = Object.entries(members).filter(([, member]) => seam.acceptsUndefined(member));
  if (defaulted.length === 0) return fields;
  const shape = Object.fromEntries(defaulted.map(([key, member]) => [key, optionalOf(withoutDefault(member))]));
  const bare = bareZodObject(fields);
  return bare ? bare.extend(shape) : objectOf({ ...members, ...shape });
}

/**
 * The body of a PATCH: every member of `fields` optional and without its default, so an absent member
 * means "unchanged" — neither documented with a `default` nor filled in by validation.
 */
export function patchFields(fields: z.ZodType): z.ZodType {
  const members = shapeOf(fields);
  const bare = bareZodObject(fields);
  if (bare) {
    const shape = Object.fromEntries(Object.entries(members).map(([key, member]) => [key, withoutDefault(member)]));
    return bare.extend(shape).partial();
  }
  return objectOf(
    Object.fromEntries(Object.entries(members).map(([key, member]) => [key, optionalOf(withoutDefault(member))])),
  );
}

/** `schema` without `default`/`prefault` wrappers (also inside optional, nullable, readonly) or a `default` in its metadata. */
export function withoutDefault(schema: z.ZodType): z.ZodType {
  return seam.withoutDefault(schema);
}

/** The `{ success: true, result }` envelope schema of a successful response. */
export function successSchema(result: z.ZodType, extra: Record<string, z.ZodType> = {}): z.ZodType {
  return objectOf({ success: z.literal(true), result, ...extra });
}

export function jsonResponseConfig(description: string, schema: z.ZodType): ResponseConfig {
  return { description, content: { "application/json": { schema } } };
}

/** Documented error responses every auto endpoint can answer with. */
export function errorResponses(notFound: boolean): Record<string, ResponseConfig> {
  return { ...InputValidationException.schema(), ...(notFound ? NotFoundException.schema() : {}) };
}

/** A bare `z.object` (no refinement, no transform): extending it keeps everything it checks. */
export function isPlainZodObject(schema: unknown): schema is z.ZodObject {
  return schema instanceof z.ZodObject && seam.validatesMemberwise(schema);
}

/** `derived` without the members `declared` names in any case (header names are compared so). */
function withoutDeclared(derived: z.ZodObject, declared: Record<string, unknown>): z.ZodObject {
  const kept = headersNotIn(derived.shape, Object.keys(declared));
  return Object.keys(kept).length === Object.keys(derived.shape).length ? derived : z.object(kept);
}

/**
 * Merges the schema an auto endpoint derives from its Meta with the user's own `schema`: user
 * request parts, responses and fields win; tags come from the user, else from the Meta.
 */
export function mergeSchema(
  derived: OpenAPIRouteSchema,
  user: OpenAPIRouteSchema | undefined,
  metaTags: string[] | undefined,
): OpenAPIRouteSchema {
  const merged: OpenAPIRouteSchema = {
    ...derived,
    ...user,
    request: { ...derived.request, ...user?.request },
    responses: { ...derived.responses, ...user?.responses },
  };
  // Headers an endpoint derives (If-Match) stay next to the user's own, whose members win.
  const derivedHeaders = derived.request?.headers;
  const userHeaders = user?.request?.headers;
  if (derivedHeaders instanceof z.ZodObject && userHeaders !== undefined) {
    merged.request!.headers = isPlainZodObject(userHeaders)
      ? withoutDeclared(derivedHeaders, userHeaders.shape).extend(userHeaders.shape)
      : // A schema extending would change (another library's, a transformed or refined object) is validated whole beside them.
        compose.alongside(userHeaders, derivedHeaders.shape);
  }
  // An empty `_meta.tags` documents no tags, as chanfana's metaSchemaProps does.
  const tags = user?.tags ?? (metaTags?.length ? metaTags : undefined);
  if (tags) merged.tags = tags;
  return merged;
}
