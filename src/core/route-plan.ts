import type { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import { type ApiException, InputValidationException, MultiException } from "../errors/exceptions";
import { issuesToException } from "../errors/render";
import type { AuthOption, SecurityRequirement } from "./auth";
import { type BodyPlan, compileBodyPlan, type FormValues, group, type MediaPlan, readBody } from "./body-plan";
import { coerceScalar } from "./coerce";
import { parseCookies } from "./cookies";
import type { OpenAPIRouteSchema, UnvalidatedData } from "./schema-types";
import { RouteSecurity, type SecurityLayer } from "./security";
import { fieldKind, objectShape, type ScalarKind } from "./zod-introspect";

/** The request parts that carry named string values. */
type ParameterPart = "params" | "query" | "headers" | "cookies";

/** Options that shape how a route validates, fixed when it is registered. */
interface PlanOptions {
  raiseUnknownParameters: boolean;
  maxBodySize: number;
  /** The router's own `auth` and `security`, applying to routes that declare none. */
  auth?: AuthOption;
  security?: SecurityRequirement[];
}

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

/** The outcome of validating one request. */
interface ValidationResult {
  validated: Record<string, unknown>;
  unvalidated: UnvalidatedData;
  /** What the route's authentication verified, when it has any. */
  principal?: unknown;
}

/**
 * Everything a route needs to validate a request, compiled once at registration: which parts are
 * declared, how each field is coerced, which keys are known. A request only extracts and parses.
 * A plan never changes once built; a mount under another router gets its own with `within()`.
 */
export class RoutePlan {
  readonly parts: readonly PartPlan[];
  readonly body: BodyPlan | null;
  private readonly maxBodySize: number;
  /** Who may call the route and what the document says about it, on the router this plan serves. */
  readonly security: RouteSecurity;

  constructor(schema: OpenAPIRouteSchema, options: PlanOptions) {
    const request = schema.request ?? {};
    const parts: PartPlan[] = [];
    for (const name of ["params", "query", "headers", "cookies"] as const) {
      const partSchema = request[name];
      if (partSchema) parts.push(compilePart(name, partSchema, options));
    }
    this.body = compileBodyPlan(schema);
    this.maxBodySize = options.maxBodySize;
    this.security = RouteSecurity.of(schema).within(options);
    this.parts = knowingAuthKeys(parts, this.security);
  }

  /**
   * This plan as served under one more router's `auth`/`security` (a mount): a new plan sharing
   * everything compiled but the security; this plan is left as it is.
   */
  within(layer: SecurityLayer): RoutePlan {
    const security = this.security.within(layer);
    if (security === this.security) return this;
    const derived = Object.create(RoutePlan.prototype) as RoutePlan;
    return Object.assign(derived, this, { security, parts: knowingAuthKeys(this.parts, security) });
  }

  /** Extracts, coerces and parses every declared part; throws one exception naming every bad field. */
  async validate(input: RequestInput, args: unknown[] = []): Promise<ValidationResult> {
    // Authentication comes first, so an unauthenticated request costs no parsing.
    const authenticating = this.security.authenticate(input.request, args);
    const principal = authenticating === undefined ? undefined : await authenticating;
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
      const pending = parseInto(part, part.name, raw, validated, errors);
      if (pending) await pending;
    }

    const method = input.request.method;
    if (this.body && method !== "GET" && method !== "HEAD") {
      try {
        const read = await readBody(input.request, this.body, this.maxBodySize);
        // A declared media type specroute does not read is left for handle() to read.
        if (read.media?.kind !== null) {
          const raw = read.form ? extractForm(read.media, read.form, errors) : read.value;
          unvalidated.body = raw;
          if (raw === undefined && (read.media?.required ?? this.body.required)) {
            const accepted = this.body.accepted.replace(/, /g, " or ");
            errors.push(new InputValidationException(`Request body is required (${accepted})`, ["body"]));
          } else if (read.media) {
            const pending = parseInto(read.media, "body", raw, validated, errors);
            if (pending) await pending;
          }
        }
      } catch (err) {
        if (!(err instanceof Error) || !("buildResponse" in err)) throw err;
        errors.push(err as ApiException);
      }
    }

    // Always a MultiException, as chanfana throws it, so handleError hooks can recognise validation failures.
    if (errors.length > 0)
      throw new MultiException(errors.flatMap((err) => (err instanceof MultiException ? err.errors : [err])));
    return { validated, unvalidated, principal };
  }
}

/** The parts with the query's known keys including those the route's authenticators read. */
function knowingAuthKeys(parts: readonly PartPlan[], security: RouteSecurity): PartPlan[] {
  return parts.map((part) =>
    part.name === "query"
      ? { ...part, known: new Set([...(part.fields ?? []).map((field) => field.key), ...security.queryKeys]) }
      : part,
  );
}

/** A read-only view of named values: the query string, Headers, a plain record, or a form body. */
interface Source {
  get(key: string): unknown;
  getAll?(key: string): unknown[];
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
  const grouped: FormValues = new Map();
  if (start >= 0) {
    const end = url.indexOf("#", start);
    const query = end < 0 ? url.slice(start + 1) : url.slice(start + 1, end);
    for (const [key, value] of new URLSearchParams(query)) group(grouped, key, value);
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

/**
 * A form body's values as the object its schema parses: declared members coerced like query values
 * (repeated keys make arrays, "" is absent), other members passed as sent for the schema to judge.
 */
function extractForm(media: MediaPlan, form: FormValues, errors: ApiException[]): Record<string, unknown> {
  const source: Source = {
    get: (key) => form.get(key)?.[0] ?? null,
    getAll: (key) => form.get(key) ?? [],
    keys: () => form.keys(),
  };
  const part = { name: "body", fields: media.fields, known: media.known, rejectUnknown: false };
  const out = media.fields ? extractPart(part, source, errors) : {};
  for (const [key, values] of form) {
    if (!media.known.has(key)) out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** Reads the declared fields of one part, coercing strings; "" counts as absent. */
function extractPart(
  part: Pick<PartPlan, "fields" | "known" | "rejectUnknown"> & { name: string },
  source: Source,
  errors: ApiException[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (part.fields === null) {
    for (const key of source.keys?.() ?? []) out[key] = source.get(key);
    return out;
  }
  for (const field of part.fields) {
    const values = source.getAll ? source.getAll(field.key) : single(source.get(field.key));
    const present = values.length === 1 ? (values[0] === "" ? [] : values) : values.filter((value) => value !== "");
    if (field.array) {
      if (present.length > 0) out[field.key] = present.map((value) => coerce(value, field.scalar));
    } else if (present.length === 1) {
      out[field.key] = coerce(present[0], field.scalar);
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

/** Strings are coerced; anything else (a file of a form body) is the schema's to judge. */
function coerce(value: unknown, scalar: ScalarKind): unknown {
  return typeof value === "string" ? coerceScalar(value, scalar) : value;
}

function single(value: unknown): unknown[] {
  return value === null ? [] : [value];
}

/** Parses `raw` with the part's schema, storing the output or collecting the issues under the part's path. */
function parseInto(
  plan: { schema: z.ZodType; async: boolean },
  name: string,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> | undefined {
  // Synchronous unless the schema needs async parsing: no promise (and no microtask) per part.
  if (plan.async) return parseAsyncInto(plan.schema, name, raw, validated, errors);
  let result: z.ZodSafeParseResult<unknown>;
  try {
    result = plan.schema.safeParse(raw);
  } catch (err) {
    // zod refuses async refinements in a sync parse; remember and go async for this route from now on.
    if ((err as Error)?.constructor?.name !== "$ZodAsyncError") throw err;
    plan.async = true;
    return parseAsyncInto(plan.schema, name, raw, validated, errors);
  }
  store(result, name, validated, errors);
  return undefined;
}

async function parseAsyncInto(
  schema: z.ZodType,
  name: string,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> {
  store(await schema.safeParseAsync(raw), name, validated, errors);
}

function store(
  result: z.ZodSafeParseResult<unknown>,
  name: string,
  validated: Record<string, unknown>,
  errors: ApiException[],
): void {
  if (result.success) validated[name] = result.data;
  else errors.push(issuesToException(result.error.issues as $ZodIssue[], [name]));
}
