import { TooManyRequestsException } from "../../errors/exceptions";
import { seam } from "../../schema";
import { type DocumentedResponse, type DocumentedResponses, responsesOrDefault } from "./documented";

/** What a rate limit's key function sees of one request: it runs after authentication. */
export interface RateLimitContext {
  request: Request;
  /** What the route's authentication verified; undefined on a route without `auth`. */
  principal: unknown;
  /** The router's environment bindings (a Worker's `env`; `@hono/node-server`'s `{ incoming }`). */
  env: any;
  /** The router's handler arguments. */
  args: unknown[];
}

/** What a store answers for one counted request. */
export interface RateLimitOutcome {
  /** Whether the request is within the policy. */
  allowed: boolean;
  /** Requests left in the current window, when the store knows. */
  remaining?: number;
  /** Seconds until the window resets, when the store knows. */
  resetSeconds?: number;
}

/**
 * Where hits are counted: one call per limited request (one round trip to a shared store). Implement
 * it to count elsewhere (Redis: `INCR` + `EXPIRE` in one `MULTI`).
 *
 * @example
 * const store: RateLimitStore = { hit: async (bucket, policy) => ({ allowed: true, remaining: policy.limit - 1 }) };
 */
export interface RateLimitStore {
  /** Counts one request in `bucket` (the policy's name and the request's key) and says whether it is allowed. */
  hit(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<RateLimitOutcome>;
  /** Whether `bucket` allows one more request, counting none. */
  peek?(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<RateLimitOutcome>;
}

/** How many requests a window of how many seconds allows. */
export interface RateLimitWindow {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** A declared rate limit: `rateLimit({...})`, on a route's `schema.rateLimit` or a router's `rateLimit` option. */
export interface RateLimitPolicy extends RateLimitWindow {
  /** The policy's name in `RateLimit-Policy`, and its buckets' prefix: routes sharing a policy share its buckets. */
  readonly name: string;
  /** The request's key (client IP, API key, principal); `undefined` leaves the request uncounted. */
  readonly key: (ctx: RateLimitContext) => string | undefined;
  readonly store: RateLimitStore;
  /** `"default";q=100;w=60`, written once. */
  readonly policyHeader: string;
  /**
   * Counts the request: the state to write on its answer, or undefined when its key exempts it; a refused
   * request throws a 429 carrying `Retry-After` and the headers.
   */
  count(ctx: RateLimitContext): Promise<RateLimitState | undefined>;
  /** `response` with the RateLimit headers of what `count` answered; a copy when its headers cannot be changed. */
  withHeaders(response: Response, state: RateLimitState | undefined): Response;
  /** A limited route's documented responses: each with the RateLimit headers, and the 429 added. */
  documentResponses<R extends DocumentedResponse>(
    responses: DocumentedResponses<R> | undefined,
  ): DocumentedResponses<R>;
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** A token (letters, digits, `_-.:`); default `"default"`. */
  name?: string;
  /** Requests allowed per window. */
  limit: number;
  /** The window in seconds. */
  windowSeconds: number;
  /** The request's key; default: the client's IP address ({@link clientIp}). */
  key?: (ctx: RateLimitContext) => string | undefined;
  store: RateLimitStore;
}

/**
 * A rate limit to declare on a route (`schema.rateLimit`) or a router (`rateLimit` option): the closest
 * declaration wins, `rateLimit: false` opts a route out. A limited request costs one `store.hit`; the
 * 429 and the `RateLimit`/`RateLimit-Policy` headers are in the route's document.
 *
 * @example
 * const perKey = rateLimit({ limit: 100, windowSeconds: 60, key: ({ request }) => request.headers.get("x-api-key") ?? "anonymous", store: memoryRateLimitStore() });
 */
export function rateLimit(options: RateLimitOptions): RateLimitPolicy {
  const name = options.name ?? "default";
  if (!/^[A-Za-z*][A-Za-z0-9_\-.:%*/]*$/.test(name)) throw new Error(`rateLimit name must be a token, got ${name}`);
  for (const field of ["limit", "windowSeconds"] as const) {
    const value = options[field];
    if (!Number.isInteger(value) || value < 1) throw new Error(`rateLimit ${field} must be a positive integer`);
  }
  if (typeof options.store?.hit !== "function") throw new Error("rateLimit store must have a hit() method");
  // The policy carries what limiting does (the pipeline and the document call it), so an app that
  // declares no rate limit bundles none of it.
  const policy: RateLimitPolicy = Object.freeze({
    name,
    limit: options.limit,
    windowSeconds: options.windowSeconds,
    key: options.key ?? clientIp,
    store: options.store,
    policyHeader: `"${name}";q=${options.limit};w=${options.windowSeconds}`,
    count: (ctx: RateLimitContext) => countRequest(policy, ctx),
    withHeaders: withRateLimitHeaders,
    documentResponses: <R extends DocumentedResponse>(responses: DocumentedResponses<R> | undefined) =>
      withRateLimitResponses(responses, policy),
  });
  return policy;
}

/**
 * The client's IP address: Cloudflare's `CF-Connecting-IP`, else the socket's peer under
 * `@hono/node-server`. Behind another proxy, key by the header that proxy sets instead.
 */
export function clientIp({ request, env }: RateLimitContext): string {
  const cf = request.headers.get("cf-connecting-ip");
  if (cf) return cf;
  const address = env?.incoming?.socket?.remoteAddress;
  return typeof address === "string" ? address : "unknown";
}

/** One request's counted outcome, to write its headers. */
export interface RateLimitState {
  readonly policy: RateLimitPolicy;
  readonly outcome: RateLimitOutcome;
}

/** Counts the request against `policy` (its `count`). */
async function countRequest(policy: RateLimitPolicy, ctx: RateLimitContext): Promise<RateLimitState | undefined> {
  const key = policy.key(ctx);
  if (key === undefined) return undefined;
  const outcome = await policy.store.hit(`${policy.name}:${key}`, policy, ctx);
  const state = { policy, outcome };
  if (outcome.allowed) return state;
  const exception = new TooManyRequestsException(
    `Rate limit "${policy.name}" exceeded: ${policy.limit} requests per ${policy.windowSeconds} s`,
  );
  exception.retryAfter = Math.max(1, Math.ceil(outcome.resetSeconds ?? policy.windowSeconds));
  exception.headers = rateLimitHeaders(state);
  throw exception;
}

/** `RateLimit-Policy` always; `RateLimit` when the store told what is left (draft-ietf-httpapi-ratelimit-headers). */
function rateLimitHeaders({ policy, outcome }: RateLimitState): Record<string, string> {
  const headers: Record<string, string> = { "ratelimit-policy": policy.policyHeader };
  if (outcome.remaining !== undefined) {
    const reset = Math.max(0, Math.ceil(outcome.resetSeconds ?? policy.windowSeconds));
    headers.ratelimit = `"${policy.name}";r=${Math.max(0, outcome.remaining)};t=${reset}`;
  }
  return headers;
}

/** `response` with the rate limit headers; a copy when its headers cannot be changed (a fetched Response). */
function withRateLimitHeaders(response: Response, state: RateLimitState | undefined): Response {
  if (state === undefined) return response;
  const headers = Object.entries(rateLimitHeaders(state));
  try {
    for (const [name, value] of headers) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of headers) copy.headers.set(name, value);
    return copy;
  }
}

/**
 * Which policy limits a route: the closest layer declaring one (the route's schema, its router, then each
 * router it is mounted under); `false` opts out. Resolved by layer, so mount order never changes it.
 */
export function closestRateLimit(layers: readonly { rateLimit?: RateLimitDeclaration }[]): RateLimitPolicy | null {
  for (const layer of layers) {
    const declared = layer.rateLimit;
    if (declared === undefined) continue;
    // `boolean` only because a class field widens `false`: `true` names no policy.
    if (declared === true) throw new Error("rateLimit: true names no policy: give rateLimit({...}), or false");
    return declared === false ? null : declared;
  }
  return null;
}

/**
 * What `rateLimit` of a route or router takes: a policy, or `false` to opt out of the routers' (typed
 * `boolean` so that `schema = { rateLimit: false }` compiles as a class field; `true` is refused).
 */
export type RateLimitDeclaration = RateLimitPolicy | boolean;

/** The headers every answer of a limited route carries (draft-ietf-httpapi-ratelimit-headers). */
function documentedHeaders(policy: RateLimitPolicy): Record<string, unknown> {
  return {
    "RateLimit-Policy": {
      description: `The quota policy: \`${policy.policyHeader}\` (${policy.limit} requests per ${policy.windowSeconds} s)`,
      schema: { type: "string" },
    },
    RateLimit: {
      description: `What is left of the quota: \`"${policy.name}";r=<remaining>;t=<seconds to reset>\`, when the store counts it`,
      schema: { type: "string" },
    },
  };
}

/**
 * A limited route's responses (its policy's `documentResponses`): each written one (not a shared `$ref`,
 * nor described by a zod headers object) with the RateLimit headers, and the 429 with `Retry-After` added.
 */
function withRateLimitResponses<R extends DocumentedResponse>(
  responses: DocumentedResponses<R> | undefined,
  policy: RateLimitPolicy,
): DocumentedResponses<R> {
  const headers = documentedHeaders(policy);
  const result: DocumentedResponses<R> = {};
  for (const [status, config] of Object.entries(responsesOrDefault(responses))) {
    const plain = !seam.isSchema(config.headers) && !Object.isFrozen(config);
    result[status] = plain ? { ...config, headers: { ...headers, ...(config.headers as object | undefined) } } : config;
  }
  if (!("429" in result)) {
    const [entry] = Object.values(TooManyRequestsException.schema());
    // An exception's entry is a Response Object the document reads as it reads the route's own.
    result["429"] = {
      ...entry!,
      description: `Over the rate limit "${policy.name}": ${policy.limit} requests per ${policy.windowSeconds} s`,
      headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } }, ...headers },
    } as unknown as R;
  }
  return result;
}
