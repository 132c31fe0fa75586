import type { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import {
  type ApiException,
  InputValidationException,
  MultiException,
  UnsupportedMediaTypeException,
} from "../errors/exceptions";
import { issuesToException } from "../errors/render";
import { DEFAULT_MAX_BODY_SIZE, decodeUtf8, parseJsonBody, readBodyBytes } from "./body";
import { coerceScalar } from "./coerce";
import type { OpenAPIRouteSchema, UnvalidatedData } from "./schema-types";
import { acceptsUndefined, fieldKind, objectShape, type ScalarKind } from "./zod-introspect";

/** The request parts that carry named string values. */
export type ParameterPart = "params" | "query" | "headers" | "cookies";

/** Options that shape how a route validates, fixed when it is registered. */
export interface PlanOptions {
  raiseUnknownParameters: boolean;
  maxBodySize: number;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = { raiseUnknownParameters: true, maxBodySize: DEFAULT_MAX_BODY_SIZE };

/** What a request offers to validation: the fetch Request and the router's URL parameters. */
export interface RequestInput {
  request: Request;
  urlParams: Record<string, string | undefined> | undefined;
}

interface FieldPlan {
  key: string;
  scalar: ScalarKind;
  array: boolean;
}

interface PartPlan {
  name: ParameterPart;
  schema: z.ZodType;
  /** Declared members, or null when the part's schema is not an object we can see into. */
  fields: FieldPlan[] | null;
  known: ReadonlySet<string>;
  rejectUnknown: boolean;
  /** Set once the schema turns out to need async parsing (async refinements). */
  async: boolean;
}

interface BodyPlan {
  schema: z.ZodType;
  mediaType: string;
  required: boolean;
  async: boolean;
}

/** The outcome of validating one request. */
export interface ValidationResult {
  validated: Record<string, unknown>;
  unvalidated: UnvalidatedData;
}

/**
 * Everything a route needs to validate a request, compiled once at registration: which parts are
 * declared, how each field is coerced, which keys are known. A request only extracts and parses.
 */
export class RoutePlan {
  readonly parts: PartPlan[];
  readonly body: BodyPlan | null;
  private readonly maxBodySize: number;

  constructor(schema: OpenAPIRouteSchema, options: PlanOptions) {
    const request = schema.request ?? {};
    this.parts = [];
    for (const name of ["params", "query", "headers", "cookies"] as const) {
      const partSchema = request[name];
      if (partSchema) this.parts.push(compilePart(name, partSchema, options));
    }
    this.body = compileBody(schema);
    this.maxBodySize = options.maxBodySize;
  }

  /** Extracts, coerces and parses every declared part; throws one exception naming every bad field. */
  async validate(input: RequestInput): Promise<ValidationResult> {
    const validated: Record<string, unknown> = {};
    const unvalidated: Record<string, unknown> = {};
    const errors: ApiException[] = [];
    let cookies: Map<string, string> | undefined;

    for (const part of this.parts) {
      let source: Source;
      if (part.name === "params") source = recordSource(input.urlParams ?? {});
      else if (part.name === "query") source = querySource(input.request.url);
      else if (part.name === "headers") source = headerSource(input.request.headers);
      else {
        cookies ??= parseCookies(input.request.headers.get("cookie"));
        source = mapSource(cookies);
      }
      const raw = extractPart(part, source, errors);
      unvalidated[part.name] = raw;
      await parseInto(part, part.name, raw, validated, errors);
    }

    const method = input.request.method;
    if (this.body && method !== "GET" && method !== "HEAD") {
      try {
        const raw = await this.readBody(input.request, this.body);
        unvalidated.body = raw;
        if (raw === undefined && this.body.required) {
          errors.push(new InputValidationException(`Request body is required (${this.body.mediaType})`, ["body"]));
        } else {
          await parseInto(this.body, "body", raw, validated, errors);
        }
      } catch (err) {
        if (!(err instanceof Error) || !("buildResponse" in err)) throw err;
        errors.push(err as ApiException);
      }
    }

    if (errors.length > 0) throw errors.length === 1 ? errors[0]! : new MultiException(errors);
    return { validated, unvalidated };
  }

  private async readBody(request: Request, body: BodyPlan): Promise<unknown> {
    const contentType = request.headers.get("content-type");
    const bytes = await readBodyBytes(request, this.maxBodySize);
    if (bytes === null || bytes.byteLength === 0) return undefined;
    if (contentType !== null && !isJsonMediaType(contentType)) {
      throw new UnsupportedMediaTypeException(
        `Unsupported Content-Type "${contentType.slice(0, 100)}": this endpoint accepts ${body.mediaType}`,
      );
    }
    return parseJsonBody(decodeUtf8(bytes));
  }
}

/** A read-only view of named string values: URLSearchParams, Headers, or a plain record. */
interface Source {
  get(key: string): string | null;
  getAll?(key: string): string[];
  keys?(): Iterable<string>;
}

function recordSource(record: Record<string, string | undefined>): Source {
  return {
    get: (key) => (Object.hasOwn(record, key) ? (record[key] ?? null) : null),
    keys: () => Object.keys(record),
  };
}

/** The query string's parameters grouped by name in one pass, without parsing the rest of the URL. */
function querySource(url: string): Source {
  const start = url.indexOf("?");
  const grouped = new Map<string, string[]>();
  if (start >= 0) {
    const end = url.indexOf("#", start);
    for (const [key, value] of new URLSearchParams(end < 0 ? url.slice(start + 1) : url.slice(start + 1, end))) {
      const values = grouped.get(key);
      if (values) values.push(value);
      else grouped.set(key, [value]);
    }
  }
  return {
    get: (key) => grouped.get(key)?.[0] ?? null,
    getAll: (key) => grouped.get(key) ?? [],
    keys: () => grouped.keys(),
  };
}

// Headers.getAll exists on some runtimes only for Set-Cookie (workerd throws otherwise), so only get() is used.
function headerSource(headers: Headers): Source {
  return { get: (key) => headers.get(key) };
}

function mapSource(map: Map<string, string>): Source {
  return { get: (key) => map.get(key) ?? null };
}

function compilePart(name: ParameterPart, schema: z.ZodType, options: PlanOptions): PartPlan {
  const shape = objectShape(schema);
  const fields = shape ? Object.entries(shape).map(([key, member]) => ({ key, ...fieldKind(member) })) : null;
  return {
    name,
    schema,
    fields,
    known: new Set(fields?.map((field) => field.key) ?? []),
    // Only the query string is closed: headers and cookies always carry more than an API declares.
    rejectUnknown: options.raiseUnknownParameters && name === "query" && fields !== null,
    async: false,
  };
}

function compileBody(schema: OpenAPIRouteSchema): BodyPlan | null {
  const body = schema.request?.body;
  if (!body?.content) return null;
  const [mediaType, media] = Object.entries(body.content).find(([type]) => isJsonMediaType(type)) ?? [];
  if (!mediaType || !media?.schema) return null;
  return {
    schema: media.schema,
    mediaType,
    required: body.required ?? !acceptsUndefined(media.schema),
    async: false,
  };
}

function isJsonMediaType(contentType: string): boolean {
  const essence = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return essence === "application/json" || (essence.startsWith("application/") && essence.endsWith("+json"));
}

/** Reads the declared fields of one part, coercing strings; "" counts as absent. */
function extractPart(part: PartPlan, source: Source, errors: ApiException[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (part.fields === null) {
    for (const key of source.keys?.() ?? []) out[key] = source.get(key);
    return out;
  }
  for (const field of part.fields) {
    const values = source.getAll ? source.getAll(field.key) : single(source.get(field.key));
    const present = values.length === 1 ? (values[0] === "" ? [] : values) : values.filter((value) => value !== "");
    if (field.array) {
      if (present.length > 0) out[field.key] = present.map((value) => coerceScalar(value, field.scalar));
    } else if (present.length === 1) {
      out[field.key] = coerceScalar(present[0]!, field.scalar);
    } else if (present.length > 1) {
      errors.push(
        new InputValidationException(`Expected a single value, received ${present.length}`, [part.name, field.key]),
      );
    }
  }
  if (part.rejectUnknown && source.keys) {
    for (const key of source.keys()) {
      if (!part.known.has(key)) {
        errors.push(new InputValidationException(`Unknown ${part.name} parameter "${key}"`, [part.name, key]));
      }
    }
  }
  return out;
}

function single(value: string | null): string[] {
  return value === null ? [] : [value];
}

/** Parses `raw` with the part's schema, storing the output or collecting the issues under the part's path. */
async function parseInto(
  plan: { schema: z.ZodType; async: boolean },
  name: string,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> {
  let result: z.ZodSafeParseResult<unknown>;
  if (plan.async) result = await plan.schema.safeParseAsync(raw);
  else {
    try {
      result = plan.schema.safeParse(raw);
    } catch (err) {
      // zod refuses async refinements in a sync parse; remember and go async for this route from now on.
      if ((err as Error)?.constructor?.name !== "$ZodAsyncError") throw err;
      plan.async = true;
      result = await plan.schema.safeParseAsync(raw);
    }
  }
  if (result.success) validated[name] = result.data;
  else errors.push(issuesToException(result.error.issues as $ZodIssue[], [name]));
}

/** Parses a Cookie header into name → value (first occurrence wins, values percent-decoded when valid). */
export function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    if (!name || cookies.has(name)) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // Keep the raw value: a malformed escape is the client's data, not our error.
    }
    cookies.set(name, value);
  }
  return cookies;
}
