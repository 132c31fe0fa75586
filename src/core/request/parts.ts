import type { z } from "zod";
import { type ApiException, invalidField } from "../../errors/exceptions";
import { type ScalarKind, type StandardJsonSchema, seam, standardSchemaOf } from "../../schema";
import type { FormValues, MediaPlan } from "./body-plan";
import { coerceScalar } from "./coerce";
import { parseCookies } from "./cookies";
import type { IncomingRequest } from "./incoming";
import { eachUrlEncoded } from "./urlencoded";

/** The request parts that carry named string values. */
export type ParameterPart = "params" | "query" | "headers" | "cookies";

interface FieldPlan {
  key: string;
  scalar: ScalarKind;
  array: boolean;
  /**
   * Whether a value sent empty, or a header not sent, reads as `null`, as chanfana hands zod (so its 400
   * says "expected string, received null"): for a required field only; an optional one (and a form
   * field) stays unset.
   */
  emptyIsNull?: boolean;
  absentIsNull?: boolean;
}

/** How one declared part is read and coerced, compiled once per route. */
export interface PartPlan {
  readonly name: ParameterPart;
  readonly schema: z.ZodType;
  /** The schema as a Standard Schema when another library validates it (valibot, ArkType), else null (zod). */
  readonly standard: StandardJsonSchema | null;
  /** Declared members, or null when the part's schema is not an object we can see into. */
  readonly fields: readonly FieldPlan[] | null;
  readonly known: ReadonlySet<string>;
  readonly rejectUnknown: boolean;
}

/** Compiles one part; only the query string is closed: headers and cookies always carry more than an API declares. */
export function compilePart(name: ParameterPart, schema: z.ZodType, raiseUnknownParameters: boolean): PartPlan {
  const shape = seam.objectShape(schema);
  const fields = shape
    ? Object.entries(shape).map(([key, member]) => {
        const required = !seam.acceptsUndefined(member);
        // chanfana reads every declared header, so one not sent is null to it, as an empty value is.
        return { key, ...seam.fieldKind(member), emptyIsNull: required, absentIsNull: required && name === "headers" };
      })
    : null;
  return {
    name,
    schema,
    standard: standardSchemaOf(schema),
    fields,
    known: new Set(fields?.map((field) => field.key) ?? []),
    rejectUnknown: raiseUnknownParameters && name === "query" && fields !== null,
  };
}

/** The part with more keys counted as known (query parameters an authenticator reads). */
export function knowing(part: PartPlan, keys: readonly string[]): PartPlan {
  if (keys.length === 0) return part;
  return { ...part, known: new Set([...part.known, ...keys]) };
}

/** Reads the declared fields of one part of `incoming`, coercing strings; "" counts as absent. */
export function extractPart(
  part: PartPlan,
  incoming: IncomingRequest,
  errors: ApiException[],
): Record<string, unknown> {
  return extractFields(part, sourceOf(part, incoming), errors);
}

/**
 * A form body's values as the object its schema parses: declared members coerced like query values
 * (repeated keys make arrays, "" is absent), other members passed as sent for the schema to judge.
 */
export function extractForm(media: MediaPlan, form: FormValues, errors: ApiException[]): Record<string, unknown> {
  const source = new MapSource(
    new Map([...form].map(([key, values]) => [key, values.length === 1 ? values[0] : values])),
  );
  const part = { name: "body", fields: media.fields, known: media.known, rejectUnknown: false };
  const out = media.fields ? extractFields(part, source, errors) : {};
  for (const [key, values] of form) {
    if (!media.known.has(key)) out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/**
 * A read-only view of named values: the query string, headers, a plain record, or a form body.
 * `value` gives null when the name is absent, the value, or an array when the name came more than once.
 */
interface Source {
  value(key: string): unknown;
  keys?(): Iterable<string>;
}

/** Where one part's values come from. */
function sourceOf(part: PartPlan, incoming: IncomingRequest): Source {
  switch (part.name) {
    case "params":
      return new RecordSource(incoming.urlParams());
    case "query": {
      // The router's parsed query groups repeated keys as the declared fields read them; an opaque schema
      // reads each key's first value as sent, which only the query string itself keeps.
      const parsed = part.fields !== null ? incoming.parsedQuery() : undefined;
      return parsed ? new RecordSource(parsed) : new MapSource(parseQuery(incoming.request.url));
    }
    case "headers":
      return new HeaderSource(incoming);
    case "cookies":
      return new CookieSource(parseCookies(incoming.header("cookie")));
  }
}

/** URL parameters, or a query its router parsed (a repeated key as an array). */
class RecordSource implements Source {
  constructor(private readonly record: Record<string, string | string[] | undefined>) {}
  value(key: string): unknown {
    return Object.hasOwn(this.record, key) ? (this.record[key] ?? null) : null;
  }
  keys(): Iterable<string> {
    return Object.keys(this.record);
  }
}

/** Values grouped by name: a parsed query string or a form body. */
class MapSource implements Source {
  constructor(private readonly map: ReadonlyMap<string, unknown>) {}
  value(key: string): unknown {
    const value = this.map.get(key);
    // A form's dropped file is kept as an undefined value: present, for the schema to judge.
    return value === undefined && !this.map.has(key) ? null : value;
  }
  keys(): Iterable<string> {
    return this.map.keys();
  }
}

/** Cookies by their declared name; an opaque schema (a record, a union) reads every cookie. */
class CookieSource implements Source {
  constructor(private readonly cookies: ReadonlyMap<string, string>) {}
  value(key: string): unknown {
    return this.cookies.get(key) ?? null;
  }
  keys(): Iterable<string> {
    return this.cookies.keys();
  }
}

/**
 * Headers by their declared name, looked up case-insensitively as HTTP has them; an opaque schema (a
 * record, a union) reads every header, under its lower-case name.
 */
class HeaderSource implements Source {
  constructor(private readonly incoming: IncomingRequest) {}
  value(key: string): unknown {
    return this.incoming.header(key.toLowerCase());
  }
  keys(): Iterable<string> {
    return this.incoming.request.headers.keys();
  }
}

/** The query string's parameters grouped by name in one pass (a repeated one as an array), without parsing the rest of the URL. */
export function parseQuery(url: string): Map<string, string | string[]> {
  const grouped = new Map<string, string | string[]>();
  const start = url.indexOf("?");
  if (start < 0) return grouped;
  const end = url.indexOf("#", start);
  eachUrlEncoded(
    url,
    (key, value) => {
      const seen = grouped.get(key);
      if (seen === undefined) grouped.set(key, value);
      else if (typeof seen === "string") grouped.set(key, [seen, value]);
      else seen.push(value);
    },
    start + 1,
    end < 0 ? url.length : end,
  );
  return grouped;
}

/** Reads the declared fields from `source`, coercing strings; "" counts as absent. */
function extractFields(
  part: Pick<PartPlan, "fields" | "known" | "rejectUnknown"> & { name: string },
  source: Source,
  errors: ApiException[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (part.fields === null) {
    for (const key of source.keys?.() ?? []) {
      // A name that would set the object's prototype instead of a member is no value to hand on.
      if (key === "__proto__") continue;
      const value = source.value(key);
      out[key] = Array.isArray(value) ? value[0] : value;
    }
    return out;
  }
  for (const field of part.fields) {
    const value = source.value(field.key);
    if (value === null || value === "") {
      if (value === "" ? field.emptyIsNull : field.absentIsNull) out[field.key] = null;
      continue;
    }
    if (!Array.isArray(value)) {
      // One value, the common case: no arrays made.
      const coerced = coerce(value, field.scalar);
      out[field.key] = field.array ? [coerced] : coerced;
      continue;
    }
    const present = value.filter((item) => item !== "");
    if (field.array) {
      if (present.length > 0) out[field.key] = present.map((item) => coerce(item, field.scalar));
    } else if (present.length === 1) {
      out[field.key] = coerce(present[0], field.scalar);
    } else if (present.length > 1) {
      errors.push(invalidField(`Expected a single value, received ${present.length}`, [part.name, field.key]));
      // The first value stands for the field, so the schema does not add "received undefined" for a value that was sent.
      out[field.key] = coerce(present[0], field.scalar);
    }
  }
  if (part.rejectUnknown && source.keys) {
    for (const key of source.keys()) {
      if (!part.known.has(key)) {
        errors.push(invalidField(`Unknown ${part.name} parameter "${key}"`, [part.name, key]));
      }
    }
  }
  return out;
}

/** Strings are coerced; anything else (a file of a form body) is the schema's to judge. */
function coerce(value: unknown, scalar: ScalarKind): unknown {
  return typeof value === "string" ? coerceScalar(value, scalar) : value;
}
