import type { z } from "zod";
import type { $ZodIssue } from "zod/v4/core";
import {
  type ApiException,
  invalidField,
  isApiException,
  MultiException,
  withoutStackTrace,
} from "../../errors/exceptions";
import { issuesToException, problemsToException } from "../../errors/render";
import { type StandardOutcome, seam, validateStandard } from "../../schema";
import type { IdempotentRoute } from "../ops/idempotency";
import {
  closestRateLimit,
  type RateLimitDeclaration,
  type RateLimitPolicy,
  type RateLimitState,
} from "../ops/rate-limit";
import { isCutOff } from "../request/body";
import {
  type BodyPlan,
  compileBodyPlan,
  type MediaPlan,
  type PlainTextRule,
  withPlainText,
} from "../request/body-plan";
import type { IncomingRequest } from "../request/incoming";
import { compilePart, extractForm, extractPart, knowing, type PartPlan } from "../request/parts";
import { type ReadBody, readBody } from "../request/read-body";
import type { OpenAPIRouteSchema, UnvalidatedData } from "../schema-types";
import { ambientCredential, type SecurityDocument } from "../security/ambient";
import type { Authenticator, AuthOption, SecurityRequirement } from "../security/auth";
import { callerCredentials } from "../security/callers";
import { type Authenticated, RouteSecurity, type SecurityLayer } from "../security/security";
import type { Tracing } from "./tracing";

/**
 * When a request that fails validation is answered: where `handle()` asks for its data (chanfana's order,
 * so the handler's own 401 or 404 comes first), or before `handle()` runs.
 */
export type ValidationFailures = "when-asked" | "before-handle";

/**
 * `value` checked to be an order of errors (or unset), as `name` (the router option, a class's static)
 * gives it: a misspelt strict order must fail, not quietly serve the lenient one.
 */
export function checkedValidationFailures(value: unknown, name: string): ValidationFailures | undefined {
  if (value === undefined || value === "when-asked" || value === "before-handle") return value;
  throw new Error(`${name} must be "when-asked" or "before-handle", got ${JSON.stringify(value)}`);
}

/** What one router serving a route (its own, or one it is mounted under) brings to the route's plan. */
export interface RouterLayer extends SecurityLayer {
  /** `"before-handle"`: the routes it serves answer a validation failure before `handle()` runs (a mount can only make this stricter). */
  validationFailures?: ValidationFailures;
  /** The router's document fields: the security schemes its requirements name, its document-wide `security`. */
  schema?: SecurityDocument;
  /** `false`: a JSON body sent as `text/plain` or without a Content-Type is refused (415) on every route it serves. */
  readTextPlainAsJson?: boolean;
  /** How the router traces requests; a route takes its own router's, else the nearest mounting router's. */
  tracing?: Tracing;
  /** The router's path prefix: where the routes it serves are, for their `http.route`. */
  base?: string;
  /** The router's rate limit, for routes that declare none; `false` opts its routes out of an outer one. */
  rateLimit?: RateLimitDeclaration;
}

/** Options that shape how a route validates, fixed when it is compiled: its own router's. */
export interface PlanOptions extends RouterLayer {
  raiseUnknownParameters: boolean;
  maxBodySize: number;
  /** The router's own `auth` and `security`, applying to routes that declare none. */
  auth?: AuthOption;
  security?: SecurityRequirement[];
  /** A request's environment bindings, from its handler arguments: what a rate limit's key and store see. */
  bindingsOf?: (args: unknown[]) => unknown;
  /** How logs name the route: `POST /orders (CreateOrder)`. */
  label?: string;
}

/** The outcome of validating one request. */
export interface ValidationResult {
  validated: Record<string, unknown>;
  unvalidated: UnvalidatedData;
  /** What the route's authentication verified, when it has any. */
  principal?: unknown;
  /** The authenticator whose credentials the request carried (of alternatives, the one that decided). */
  authenticatedBy?: Authenticator<unknown>;
  /** The rate limit the request was counted against, and what its store answered. */
  rateLimit?: RateLimitState;
  /** The bytes of a JSON or form body as sent: what an idempotency key's fingerprint hashes. */
  bodyBytes?: Uint8Array;
}

/**
 * Everything a route needs to validate a request, compiled once: which parts are declared, how each
 * field is coerced, which keys are known, who may call it. A request only extracts and parses. A plan
 * never changes once built; a mount under another router derives its own with `within()`.
 */
export class RoutePlan {
  readonly parts: readonly PartPlan[];
  readonly body: BodyPlan | null;
  /** Who may call the route and what the document says about it, on the router this plan serves. */
  readonly security: RouteSecurity;
  private readonly maxBodySize: number;
  /** The routers serving the route, its own first: what decides how a `text/plain` body is read. */
  private readonly routers: readonly RouterLayer[];
  /** The rate limit counting the route's requests: the closest layer's (its schema's, then its routers'). */
  readonly rateLimit: RateLimitPolicy | null;
  private readonly limitLayers: readonly { rateLimit?: RateLimitDeclaration }[];
  /** A request's environment bindings, from its handler arguments. */
  readonly bindingsOf: (args: unknown[]) => unknown;
  /** Idempotency keys on this route (its schema's `idempotency`, scoped by this plan's security), or null. */
  readonly idempotency: IdempotentRoute | null;
  /**
   * Whether a validation failure (a 400) is held until `handle()` asks for its data. Never on a route with
   * idempotency keys: a request refused with a 400 must not run, so it never claims its key.
   */
  readonly raisesWhenAsked: boolean;

  constructor(schema: OpenAPIRouteSchema, options: PlanOptions) {
    const request = schema.request ?? {};
    const parts: PartPlan[] = [];
    for (const name of ["params", "query", "headers", "cookies"] as const) {
      const partSchema = request[name];
      if (partSchema) parts.push(compilePart(name, partSchema, options.raiseUnknownParameters));
    }
    this.security = RouteSecurity.of(schema).within(options);
    // A query parameter written as a Parameter Object is documented, so it is no unknown parameter.
    const written = (schema.parameters ?? []).filter((p) => p.in === "query" && typeof p.name === "string");
    const withWritten = parts.map((part) =>
      part.name === "query"
        ? knowing(
            part,
            written.map((p) => p.name as string),
          )
        : part,
    );
    this.parts = knowingAuthKeys(withWritten, this.security);
    this.routers = [options];
    const body = compileBodyPlan(schema);
    this.body = body && withPlainText(body, plainTextRule(this.security, this.routers, this.parts));
    this.maxBodySize = options.maxBodySize;
    this.limitLayers = [{ rateLimit: schema.rateLimit }, options];
    this.rateLimit = closestRateLimit(this.limitLayers);
    this.bindingsOf = options.bindingsOf ?? (() => undefined);
    const { security } = this;
    const callers = () => callerCredentials(security);
    const facts = { label: options.label ?? "a route", responses: schema.responses, callers };
    this.idempotency = schema.idempotency?.forRoute(facts) ?? null;
    this.raisesWhenAsked = options.validationFailures !== "before-handle" && this.idempotency === null;
    Object.freeze(this);
  }

  /**
   * This plan as served under one more router (a mount): a new plan sharing everything compiled but
   * what that router changes (its `auth`/`security`, how a `text/plain` body is read); this plan is
   * left as it is.
   */
  within(layer: RouterLayer): RoutePlan {
    const security = this.security.within(layer);
    const routers = [...this.routers, layer];
    const parts = security === this.security ? this.parts : knowingAuthKeys(this.parts, security);
    const body = this.body && withPlainText(this.body, plainTextRule(security, routers, parts));
    const limitLayers = [...this.limitLayers, layer];
    const rateLimit = closestRateLimit(limitLayers);
    // Keys belong to callers as this mount's security tells them apart.
    const idempotency =
      security === this.security
        ? this.idempotency
        : (this.idempotency?.scopedBy(() => callerCredentials(security)) ?? null);
    const raisesWhenAsked = this.raisesWhenAsked && layer.validationFailures !== "before-handle";
    const derived: RoutePlan = Object.create(RoutePlan.prototype);
    const changed = { security, parts, body, routers, limitLayers, rateLimit, idempotency, raisesWhenAsked };
    Object.assign(derived, this, changed);
    return Object.freeze(derived) as RoutePlan;
  }

  /**
   * Authenticates, then extracts, coerces and parses every declared part; throws (or rejects with) one
   * exception naming every bad field. Synchronous when nothing needs waiting for (no authentication, no
   * body to read, no async schema): a plain GET then costs no promise at all.
   */
  validateRequest(
    incoming: IncomingRequest,
    result: ValidationResult = { validated: {}, unvalidated: {}, principal: undefined },
    /** Whether the request counts against the route's rate limit: not when `validateRequest()` reads it again. */
    counted = true,
  ): ValidationResult | Promise<ValidationResult> {
    if (counted && this.rateLimit !== null) return this.limitThenParse(this.rateLimit, incoming, result);
    // Authentication comes first, so an unauthenticated request costs no parsing.
    const authenticating = this.security.authenticate(incoming.request, incoming.args);
    if (authenticating === undefined) return this.parseFrom(0, incoming, result, []);
    return authenticating.then(({ principal, by }) => {
      result.principal = principal;
      result.authenticatedBy = by;
      return this.parseFrom(0, incoming, result, []);
    });
  }

  // The policy authenticates and counts (failed authentication too, see `admit`), before parsing, so a refused request costs none.
  private limitThenParse(
    policy: RateLimitPolicy,
    incoming: IncomingRequest,
    result: ValidationResult,
  ): Promise<ValidationResult> {
    const authenticate =
      this.security.enforced.length > 0
        ? () =>
            (this.security.authenticate(incoming.request, incoming.args) as Promise<Authenticated>).then(
              ({ principal, by }) => {
                result.authenticatedBy = by;
                return principal;
              },
            )
        : undefined;
    return policy.admit(incoming, this.bindingsOf(incoming.args), authenticate).then(({ principal, state }) => {
      result.principal = principal;
      result.rateLimit = state;
      return this.parseFrom(0, incoming, result, []);
    });
  }

  /** Parses the parts from `index` on (resuming after one whose schema parses asynchronously), then the body. */
  private parseFrom(
    index: number,
    incoming: IncomingRequest,
    result: ValidationResult,
    errors: ApiException[],
  ): ValidationResult | Promise<ValidationResult> {
    for (let i = index; i < this.parts.length; i++) {
      const part = this.parts[i]!;
      const raw = extractPart(part, incoming, errors);
      result.unvalidated[part.name] = raw;
      const pending = parseInto(part, raw, result.validated, errors);
      if (pending) return pending.then(() => this.parseFrom(i + 1, incoming, result, errors));
    }
    const { body } = this;
    if (body === null || !hasBody(incoming.request.method)) return settle(result, errors);
    return readBody(incoming, body, this.maxBodySize).then(
      (read) => {
        const pending = parseBody(read, body, result, errors);
        return pending ? pending.then(() => settle(result, errors)) : settle(result, errors);
      },
      (err) => {
        refuseBody(err, errors);
        return settle(result, errors);
      },
    );
  }
}

/**
 * Whether a JSON body sent as `text/plain` (or without a Content-Type) is read: not where a router says
 * no, nor on a route that reads cookies or whose security a browser sends on its own, since a page on
 * another site can send either with them (and no CORS preflight).
 */
function plainTextRule(
  security: RouteSecurity,
  routers: readonly RouterLayer[],
  parts: readonly PartPlan[],
): PlainTextRule {
  const refusing = routers.findIndex((router) => router.readTextPlainAsJson === false);
  if (refusing !== -1) {
    const router = refusing === 0 ? "its router" : "a router it is mounted under";
    return { read: false, because: `${router} sets readTextPlainAsJson: false` };
  }
  if (parts.some((part) => part.name === "cookies")) return { read: false, because: "it reads cookies" };
  const because = ambientCredential(
    security,
    routers.map((router) => router.schema ?? {}),
  );
  return because === null ? { read: true } : { read: false, because };
}

/** Whether a request of `method` may carry a body specroute reads. */
function hasBody(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/** The parts with the query's known keys including those the route's authenticators read. */
function knowingAuthKeys(parts: readonly PartPlan[], security: RouteSecurity): PartPlan[] {
  return parts.map((part) => (part.name === "query" ? knowing(part, security.queryKeys) : part));
}

/** The validation result, or the one exception naming every bad field. */
function settle(result: ValidationResult, errors: ApiException[]): ValidationResult {
  if (errors.length === 0) return result;
  // Always a MultiException, as chanfana throws it, so handleError hooks can recognise validation failures;
  // its stack would name only this function.
  throw withoutStackTrace(
    () => new MultiException(errors.flatMap((err) => (err instanceof MultiException ? err.errors : [err]))),
  );
}

/**
 * A body refused by an exception of the framework (413, 415, 400) joins the request's errors; anything
 * else is thrown, and so is a body cut off part-way: it is answered before the handler, never held for it.
 */
function refuseBody(err: unknown, errors: ApiException[]): void {
  if (!isApiException(err) || isCutOff(err)) throw err;
  errors.push(err);
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
  if (read.bytes) result.bodyBytes = read.bytes;
  try {
    const raw = read.form
      ? extractForm(read.media, read.form, errors)
      : read.value !== undefined && read.media?.jsonValues
        ? read.media.jsonValues(read.value)
        : read.value;
    result.unvalidated.body = raw;
    if (raw === undefined && (read.media?.required ?? body.required)) {
      const accepted = body.accepted.replace(/, /g, " or ");
      errors.push(invalidField(`Request body is required (${accepted})`, ["body"]));
      return undefined;
    }
    if (raw === undefined)
      return parseAbsentBody(read.media ?? body.media.find((media) => media.kind !== null), result);
    return parseInto(read.media!, raw, result.validated, errors)?.catch((err) => refuseBody(err, errors));
  } catch (err) {
    refuseBody(err, errors);
    return undefined;
  }
}

/**
 * An optional body that was not sent: the handler runs. It reads what the schema makes of `{}` when the
 * schema accepts that (chanfana parses an absent body as `{}`, so `data.body.title` reads undefined
 * instead of throwing), else of `undefined` (a default applies), else `undefined`.
 */
function parseAbsentBody(media: MediaPlan | undefined, result: ValidationResult): Promise<void> | undefined {
  if (media === undefined) return undefined;
  const tryParse = (raw: unknown, otherwise: () => Promise<void> | undefined): Promise<void> | undefined => {
    const refused: ApiException[] = [];
    const pending = parseInto(media, raw, result.validated, refused);
    const next = () => (refused.length > 0 ? otherwise() : undefined);
    return pending ? pending.then(next, otherwise) : next();
  };
  return tryParse({}, () => tryParse(undefined, () => undefined));
}

// Schemas found to need async parsing (async refinements): parsed asynchronously from then on. A cache
// of what a schema is, keyed by the schema, so no plan changes once compiled.
const asyncSchemas = new WeakSet<z.ZodType>();

/** What a part's or a body's plan gives parsing: where the output goes (`body`, `query`, ...) and its schema. */
type ParsePlan = Pick<PartPlan | MediaPlan, "name" | "schema" | "standard">;

/** Parses `raw` with the plan's schema, storing the output or collecting the issues under the part's path. */
function parseInto(
  plan: ParsePlan,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> | undefined {
  if (plan.standard) return parseStandardInto(plan, raw, validated, errors);
  const { schema } = plan;
  // Synchronous unless the schema needs async parsing: no promise (and no microtask) per part.
  if (asyncSchemas.has(schema)) return parseAsyncInto(plan, raw, validated, errors);
  let result: z.ZodSafeParseResult<unknown>;
  try {
    result = schema.safeParse(raw);
  } catch (err) {
    // zod refuses async refinements in a sync parse; remember and go async for this schema from now on.
    if (!seam.isAsyncParseError(err)) throw err;
    asyncSchemas.add(schema);
    return parseAsyncInto(plan, raw, validated, errors);
  }
  store(result, plan.name, validated, errors);
  return undefined;
}

async function parseAsyncInto(
  plan: ParsePlan,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> {
  store(await plan.schema.safeParseAsync(raw), plan.name, validated, errors);
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

/** Validates `raw` with the plan's Standard Schema (valibot, ArkType): its problems become the same 400 zod's issues do. */
function parseStandardInto(
  plan: ParsePlan,
  raw: unknown,
  validated: Record<string, unknown>,
  errors: ApiException[],
): Promise<void> | undefined {
  const outcome = validateStandard(plan.standard!, raw);
  if (!(outcome instanceof Promise)) return storeStandard(outcome, plan.name, validated, errors);
  return outcome.then((settled) => storeStandard(settled, plan.name, validated, errors));
}

function storeStandard(
  outcome: StandardOutcome,
  name: string,
  validated: Record<string, unknown>,
  errors: ApiException[],
): undefined {
  if (outcome.ok) validated[name] = outcome.value;
  else errors.push(problemsToException(outcome.problems, [name]));
  return undefined;
}
