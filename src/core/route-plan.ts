import type { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import { type ApiException, InputValidationException, MultiException } from "../errors/exceptions";
import { issuesToException } from "../errors/render";
import type { AuthOption, SecurityRequirement } from "./auth";
import { type BodyPlan, compileBodyPlan, type FormValues, type MediaPlan, type ReadBody, readBody } from "./body-plan";
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

/** What a request offers to validation: the fetch Request and what its router already parsed of it. */
export interface RequestInput {
  request: Request;
  urlParams: Record<string, string | undefined> | undefined;
  /** The query string as the router parsed it (a repeated key as an array), so it is not parsed twice. */
  query?: Record<string, string | string[] | undefined>;
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
export interface ValidationResult {
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
  /** Whether the route declares path parameters: a route without them never asks the router for its own. */
  readonly readsUrlParams: boolean;
  /** Whether the route declares a query: a route without one never asks the router for its parsed query. */
  readonly readsQuery: boolean;
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
    this.readsUrlParams = parts.some((part) => part.name === "params");
    this.readsQuery = parts.some((part) => part.name === "query");
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

  /**
   * Extracts, coerces and parses every declared part; throws (or rejects with) one exception naming
   * every bad field. Synchronous when nothing needs waiting for (no authentication, no body to read, no
   * async schema): a plain GET then costs no promise at all.
   */
  validate(input: RequestInput, args: unknown[] = []): ValidationResult | Promise<ValidationResult> {
    if (this.security.enforced.length > 0 || this.parts.some((part) => part.async))
      return this.validateAsync(input, args);
    const result: ValidationResult = { validated: {}, unvalidated: {}, principal: undefined };
    const errors: ApiException[] = [];
    for (const part of this.parts) {
      const raw = extractPart(part, sourceOf(part, input), errors);
      result.unvalidated[part.name] = raw;
      // A schema found to need async parsing (once per route): the request starts over on the async path.
      if (parseInto(part, part.name, raw, result.validated, errors)) return this.validateAsync(input, args);
    }
    if (!this.readsBody(input.request)) return settle(result, errors);
    // One step once the body has arrived: parsed, and the outcome settled.
    return readBody(
      input.request,
      this.body!,
      this.maxBodySize,
      (read) => {
        const pending = parseBodyInto(read, this.body!, result, errors);
        return pending ? pending.then(() => settle(result, errors)) : settle(result, errors);
      },
      (err) => {
        refuseBody(err, errors);
        return settle(result, errors);
      },
    );
  }

  private async validateAsync(input: RequestInput, args: unknown[]): Promise<ValidationResult> {
    // Authentication comes first, so an unauthenticated request costs no parsing.
    const authenticating = this.security.authenticate(input.request, args);
    const principal = authenticating === undefined ? undefined : await authenticating;
    const result: ValidationResult = { validated: {}, unvalidated: {}, principal };
    const errors: ApiException[] = [];
    for (const part of this.parts) {
      const raw = extractPart(part, sourceOf(part, input), errors);
      result.unvalidated[part.name] = raw;
      const pending = parseInto(part, part.name, raw, result.validated, errors);
      if (pending) await pending;
    }
    if (this.readsBody(input.request)) await this.readInto(input.request, this.body!, result, errors);
    return settle(result, errors);
  }

  private readsBody(request: Request): boolean {
    return this.body !== null && request.method !== "GET" && request.method !== "HEAD";
  }

  /** Reads the body in its declared media type and parses it into `result`; a refused body joins `errors`. */
  private readInto(request: Request, body: BodyPlan, result: ValidationResult, errors: ApiException[]): Promise<void> {
    return readBody(
      request,
      body,
      this.maxBodySize,
      (read) => parseBodyInto(read, body, result, errors),
      (err) => refuseBody(err, errors),
    );
  }
}

/** A body refused by an exception of the framework (413, 415, 400) joins the request's errors; anything else is thrown. */
function refuseBody(err: unknown, errors: ApiException[]): void {
  if (!(err instanceof Error) || !("buildResponse" in err)) throw err;
  errors.push(err as ApiException);
}

/** `parseBody`, with what it throws or rejects with refusing the body. */
function parseBodyInto(
  read: ReadBody,
  body: BodyPlan,
  result: ValidationResult,
  errors: ApiException[],
): Promise<void> | undefined {
  try {
    return parseBody(read, body, result, errors)?.catch((err) => refuseBody(err, errors));
  } catch (err) {
    refuseBody(err, errors);
    return undefined;
  }
}

/** Stores the body `readBody` gave, parsed by its media type's schema (a promise only for an async schema). */
function parseBody(
  read: ReadBody,
  body: BodyPlan,
  result: ValidationResult,
  errors: ApiException[],
): Promise<void> | undefined {
  // A declared media type specroute does not read is left for handle() to read.
  if (read.media?.kind === null) return undefined;
  const raw = read.form ? extractForm(read.media, read.form, errors) : read.value;
  result.unvalidated.body = raw;
  if (raw === undefined && (read.media?.required ?? body.required)) {
    const accepted = body.accepted.replace(/, /g, " or ");
    errors.push(new InputValidationException(`Request body is required (${accepted})`, ["body"]));
    return undefined;
  }
  return read.media ? parseInto(read.media, "body", raw, result.validated, errors) : undefined;
}

/** Where one part's values come from. */
function sourceOf(part: PartPlan, input: RequestInput): Source {
  if (part.name === "params") return new RecordSource(input.urlParams ?? {});
  if (part.name === "query") {
    // The router's parsed query groups repeated keys as the declared fields read them; an opaque schema
    // reads each key's first value as sent, which only the query string itself keeps.
    return input.query && part.fields !== null
      ? new RecordSource(input.query)
      : new MapSource(parseQuery(input.request.url));
  }
  if (part.name === "headers") return new HeaderSource(input.request.headers);
  return new CookieSource(parseCookies(input.request.headers.get("cookie")));
}

/** The validation result, or the one exception naming every bad field. */
function settle(result: ValidationResult, errors: ApiException[]): ValidationResult {
  // Always a MultiException, as chanfana throws it, so handleError hooks can recognise validation failures.
  if (errors.length > 0)
    throw new MultiException(errors.flatMap((err) => (err instanceof MultiException ? err.errors : [err])));
  return result;
}

/** The parts with the query's known keys including those the route's authenticators read. */
function knowingAuthKeys(parts: readonly PartPlan[], security: RouteSecurity): PartPlan[] {
  return parts.map((part) =>
    part.name === "query"
      ? { ...part, known: new Set([...(part.fields ?? []).map((field) => field.key), ...security.queryKeys]) }
      : part,
  );
}

/**
 * A read-only view of named values: the query string, Headers, a plain record, or a form body.
 * `value` gives null when the name is absent, the value, or an array when the name came more than once.
 */
interface Source {
  value(key: string): unknown;
  keys?(): Iterable<string>;
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

/** Cookies: only the declared ones are read, as from headers. */
class CookieSource implements Source {
  constructor(private readonly cookies: ReadonlyMap<string, string>) {}
  value(key: string): unknown {
    return this.cookies.get(key) ?? null;
  }
}

// Headers.getAll exists on some runtimes only for Set-Cookie (workerd throws otherwise), so only get() is used.
class HeaderSource implements Source {
  constructor(private readonly headers: Headers) {}
  value(key: string): unknown {
    return this.headers.get(key);
  }
}

/** The query string's parameters grouped by name in one pass (a repeated one as an array), without parsing the rest of the URL. */
function parseQuery(url: string): Map<string, string | string[]> {
  const grouped = new Map<string, string | string[]>();
  const start = url.indexOf("?");
  if (start < 0) return grouped;
  const end = url.indexOf("#", start);
  const query = end < 0 ? url.slice(start + 1) : url.slice(start + 1, end);
  for (const [key, value] of new URLSearchParams(query)) {
    const seen = grouped.get(key);
    if (seen === undefined) grouped.set(key, value);
    else if (typeof seen === "string") grouped.set(key, [seen, value]);
    else seen.push(value);
  }
  return grouped;
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
  const source = new MapSource(
    new Map([...form].map(([key, values]) => [key, values.length === 1 ? values[0] : values])),
  );
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
    for (const key of source.keys?.() ?? []) {
      const value = source.value(key);
      out[key] = Array.isArray(value) ? value[0] : value;
    }
    return out;
  }
  for (const field of part.fields) {
    const value = source.value(field.key);
    if (value === null || value === "") continue;
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
