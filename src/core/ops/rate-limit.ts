import { TooManyRequestsException } from "../../errors/exceptions";
import { seam } from "../../schema";
import type { IncomingRequest } from "../request/incoming";
import { addressKey, forwardedFor, noConnectionAddress, withoutPort } from "./client-address";
import { type DocumentedResponse, type DocumentedResponses, responsesOrDefault } from "./documented";
import { isHashedKey, storableKey } from "./hashed-key";

/** What a rate limit's key function and its store see of one request. */
export interface RateLimitContext {
  request: Request;
  /** What the route's authentication verified; undefined on a route without `auth`. */
  principal: unknown;
  /**
   * The client's address as the policy reads it (the runtime's, or the one a trusted proxy's header holds),
   * parsed: an IPv4 address, or an IPv6 address's /64 network (`2001:db8:1:2::/64`); undefined where no
   * runtime value that gives one is at hand. Read when first asked for; reading it refuses the request with
   * a 400 where the runtime serves it but names no address (the client is gone), so such a request is never
   * served uncounted.
   */
  readonly address: string | undefined;
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
  /**
   * Counts one request in `bucket` (the policy's name and the request's key: `<name>@<address>` for an
   * address, `<name>#<key>` for another key) and says whether it is allowed.
   */
  hit(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<RateLimitOutcome>;
  /**
   * Gives back one request `hit` counted in `bucket`'s current window (never below 0). On a route with
   * authentication keyed by something else than the address, each attempt is counted against the address
   * before `verify` runs, and one that authentication accepts is given back, so only failures stay.
   * Optional: without it, accepted attempts stay counted against the address too.
   */
  refund?(bucket: string, policy: RateLimitWindow, ctx: RateLimitContext): Promise<void>;
}

/** How many requests a window of how many seconds allows. */
export interface RateLimitWindow {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * Where the client's address is read behind a proxy of the app's own, which must replace whatever a client
 * sent in that header: the header the proxy sets to the address it saw (`{ header: "x-real-ip" }`), or how
 * many proxies append to `X-Forwarded-For` (`{ forwardedFor: 1 }`: its last entry, the nearest proxy's).
 * Where the header holds no address, the connection's address counts.
 */
export type TrustProxy = { header: string; forwardedFor?: undefined } | { forwardedFor: number; header?: undefined };

/** A declared rate limit: `rateLimit({...})`, on a route's `schema.rateLimit` or a router's `rateLimit` option. */
export interface RateLimitPolicy extends RateLimitWindow {
  /** The policy's name in `RateLimit-Policy`, and its buckets' prefix: routes sharing a policy share its buckets. */
  readonly name: string;
  /** The request's key (client address, API key, principal); `undefined` leaves the request uncounted. */
  readonly key: (ctx: RateLimitContext) => string | undefined;
  readonly store: RateLimitStore;
  /** `"default";q=100;w=60`, written once. */
  readonly policyHeader: string;
  /**
   * Counts the request, authenticating it with `authenticate` (on a route with authentication) in the
   * order docs/operations.md states: its principal and the state to write on its answer (none when its key
   * exempts it). A refused request rejects: a 429 carrying `Retry-After` and the headers, or
   * authentication's own refusal.
   */
  admit(incoming: IncomingRequest, env: unknown, authenticate?: () => Promise<unknown>): Promise<Admitted>;
  /** `response` with the RateLimit headers of what `admit` answered; a copy when its headers cannot be changed. */
  withHeaders(response: Response, state: RateLimitState | undefined): Response;
  /** A limited route's documented responses: each with the RateLimit headers, and the 429 added. */
  documentResponses<R extends DocumentedResponse>(
    responses: DocumentedResponses<R> | undefined,
  ): DocumentedResponses<R>;
}

/** What `admit` answers for a request it let through. */
export interface Admitted {
  principal: unknown;
  state: RateLimitState | undefined;
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** A token (letters, digits, `_-.:`); default `"default"`. */
  name?: string;
  /** Requests allowed per window. */
  limit: number;
  /** The window in seconds. */
  windowSeconds: number;
  /** The request's key; default: the client's address ({@link clientIp}). */
  key?: (ctx: RateLimitContext) => string | undefined;
  store: RateLimitStore;
  /** Read the client's address from a proxy of the app's own; default: from the runtime only. */
  trustProxy?: TrustProxy;
}

/**
 * A rate limit to declare on a route (`schema.rateLimit`) or a router (`rateLimit` option): the closest
 * declaration wins, `rateLimit: false` opts a route out. A limited request costs one `store.hit` (on a
 * route with `auth` keyed by something else than the address, one more against the address before
 * `verify`, and a `store.refund` once it succeeds); the 429 and the `RateLimit`/`RateLimit-Policy`
 * headers are in the route's document.
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
  const readAddress = addressReader(name, checkedTrustProxy(options.trustProxy));
  const keyedByAddress = options.key === undefined || options.key === clientIp;
  const buckets = bucketNames(name);
  // The policy carries what limiting does (the pipeline and the document call it), so an app that
  // declares no rate limit bundles none of it.
  const policy: RateLimitPolicy = Object.freeze({
    name,
    limit: options.limit,
    windowSeconds: options.windowSeconds,
    key: options.key ?? clientIp,
    store: options.store,
    policyHeader: `"${name}";q=${options.limit};w=${options.windowSeconds}`,
    admit: (incoming: IncomingRequest, env: unknown, authenticate?: () => Promise<unknown>) =>
      admit(policy, buckets, new LimitedRequest(readAddress, incoming, env), keyedByAddress, authenticate),
    withHeaders: withRateLimitHeaders,
    documentResponses: <R extends DocumentedResponse>(responses: DocumentedResponses<R> | undefined) =>
      withRateLimitResponses(responses, policy),
  });
  return policy;
}

/**
 * The client's address, the default key: as the runtime gives it (the socket's peer on Node, Bun's
 * `requestIP`, Deno's `remoteAddr`, `CF-Connecting-IP` on Workers), or as the policy's `trustProxy`
 * reads it; IPv6 by /64. Undefined, leaving the request uncounted, where none is known.
 */
export function clientIp(ctx: RateLimitContext): string | undefined {
  return ctx.address;
}

/** One request's counted outcome, to write its headers. */
export interface RateLimitState {
  readonly policy: RateLimitPolicy;
  readonly outcome: RateLimitOutcome;
}

/** One request as a policy counts it: its address is read (and parsed) when first asked for. */
class LimitedRequest implements RateLimitContext {
  readonly request: Request;
  readonly args: unknown[];
  principal: unknown = undefined;
  readonly #read: (incoming: IncomingRequest) => string | undefined;
  readonly #incoming: IncomingRequest;
  #address: string | undefined | null = null;

  constructor(
    read: (incoming: IncomingRequest) => string | undefined,
    incoming: IncomingRequest,
    readonly env: any,
  ) {
    this.#read = read;
    this.#incoming = incoming;
    this.request = incoming.request;
    this.args = incoming.args;
  }

  get address(): string | undefined {
    // Stryker disable next-line ConditionalExpression: equivalent, reading again reads the same runtime address (the memo spares the parse)
    if (this.#address === null) this.#address = this.#read(this.#incoming);
    return this.#address;
  }
}

/**
 * The order a limited request is taken in. Without authentication: counted by its key. With it, keyed by
 * the address: counted before `verify` runs, so every attempt counts, whatever it proves. With it, keyed
 * otherwise (a principal): counted against the address before `verify` (one atomic `hit`, so attempts
 * sent at once cannot all pass a check made before any of them failed), given back (`refund`) once
 * authentication accepts it, then counted by its key: only failures stay against the address.
 */
// Five parameters: the policy and its buckets are the route's, the rest the request's, and one object to carry them would be built per request.
async function admit(
  policy: RateLimitPolicy,
  buckets: BucketNames,
  ctx: LimitedRequest,
  keyedByAddress: boolean,
  authenticate: (() => Promise<unknown>) | undefined,
): Promise<Admitted> {
  const keyBucket = keyedByAddress ? buckets.address : buckets.key;
  if (authenticate === undefined) {
    return { principal: undefined, state: await countIn(policy, keyBucket(policy.key(ctx)), ctx) };
  }
  const addressBucket = buckets.address(ctx.address);
  const attempt = await countIn(policy, addressBucket, ctx);
  if (keyedByAddress) return { principal: await authenticate(), state: attempt };
  ctx.principal = await authenticate();
  const refunding = attempt === undefined ? undefined : policy.store.refund?.(await addressBucket!, policy, ctx);
  try {
    return { principal: ctx.principal, state: await countIn(policy, keyBucket(policy.key(ctx)), ctx) };
  } finally {
    await refunding;
  }
}

/** Counts the request in `bucket`: the state to write on its answer; a 429 over the limit; none without a bucket. */
async function countIn(
  policy: RateLimitPolicy,
  bucket: Promise<string> | string | undefined,
  ctx: RateLimitContext,
): Promise<RateLimitState | undefined> {
  if (bucket === undefined) return undefined;
  const outcome = await policy.store.hit(await bucket, policy, ctx);
  const state = { policy, outcome };
  if (outcome.allowed) return state;
  throw tooManyRequests(state);
}

function tooManyRequests(state: RateLimitState): TooManyRequestsException {
  const { policy, outcome } = state;
  const exception = new TooManyRequestsException(
    `Rate limit "${policy.name}" exceeded: ${policy.limit} requests per ${policy.windowSeconds} s`,
  );
  exception.retryAfter = Math.max(1, Math.ceil(outcome.resetSeconds ?? policy.windowSeconds));
  exception.headers = rateLimitHeaders(state);
  return exception;
}

/** A policy's two namespaces of buckets: an address's, and a key's (a principal, an API key); none without one. */
interface BucketNames {
  address(address: string | undefined): Promise<string> | string | undefined;
  key(key: string | undefined): Promise<string> | string | undefined;
}

/**
 * The buckets of the policy `name`: `<name>@<address>` for an address, `<name>#<key>` for any other key, each
 * as a store keeps it ({@link boundedBucket}). A name never holds `@` or `#`, so the
 * name and the kind are read back from the first of them: no key equals an address's bucket, nor another
 * policy's bucket, whatever its value (an account id "127.0.0.2", a header a client sets).
 */
function bucketNames(name: string): BucketNames {
  return {
    address: (address) => (address === undefined ? undefined : boundedBucket(`${name}@${address}`)),
    key: (key) => (key === undefined ? undefined : boundedBucket(`${name}#${key}`)),
  };
}

/**
 * `bucket` as a store keeps it: as it is, or hashed when a store could not keep it apart ({@link storableKey});
 * one a policy already bounded is kept, so a store may bound what it is handed without hashing twice.
 */
export function boundedBucket(bucket: string): Promise<string> | string {
  return isHashedKey(bucket) ? bucket : storableKey(bucket);
}

/** `trustProxy` checked when the policy is made: one header name, or a positive count of proxies. */
function checkedTrustProxy(trust: TrustProxy | undefined): TrustProxy | undefined {
  if (trust === undefined) return undefined;
  const { header, forwardedFor: hops } = trust;
  if (header !== undefined && hops === undefined && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
    return { header: header.toLowerCase() };
  }
  if (header === undefined && Number.isInteger(hops) && hops! >= 1) return { forwardedFor: hops! };
  throw new Error(
    "rateLimit trustProxy must be { header: <a header name> } or { forwardedFor: <how many proxies, 1 or more> }",
  );
}

/**
 * How a policy reads a request's address: from the runtime, or from what `trust` names and, where that
 * holds no address, from the runtime. Each kind of miss is logged once per policy.
 */
function addressReader(name: string, trust: TrustProxy | undefined): (incoming: IncomingRequest) => string | undefined {
  /** A warning of one kind of miss, logged the first time only. */
  const warning = () => {
    let warned = false;
    return (incoming: IncomingRequest, message: string) => {
      if (warned) return;
      warned = true;
      const { method, url } = incoming.request;
      console.warn(`[specroute] rate limit "${name}" (${method} ${url.split("?", 1)[0]}): ${message}`);
    };
  };
  const [warnGone, warnNoRuntimeAddress, warnNoProxyAddress] = [warning(), warning(), warning()];
  const fromRuntime = (incoming: IncomingRequest) => {
    const given = incoming.clientAddress();
    if (given === null) {
      warnGone(
        incoming,
        "the runtime named no address for a request's connection (the client closed it, or the server listens on " +
          "a Unix socket), so it was refused with a 400 rather than served uncounted. Behind a proxy on a Unix " +
          "socket, set trustProxy: see docs/operations.md",
      );
      throw noConnectionAddress();
    }
    const key = given === undefined ? undefined : addressKey(given);
    if (key === undefined) {
      warnNoRuntimeAddress(
        incoming,
        "the runtime gave no client address, so what this policy counts by address is left uncounted. Hand the app " +
          "the runtime's own environment (Bun.serve's server, Deno.serve's info, @hono/node-server's incoming) or set " +
          "trustProxy: see docs/operations.md",
      );
    }
    return key;
  };
  if (trust === undefined) return fromRuntime;
  const { header = "x-forwarded-for", forwardedFor: hops } = trust;
  return (incoming) => {
    const sent = incoming.header(header);
    const given = sent === null ? undefined : hops === undefined ? sent : forwardedFor(sent, hops);
    // A trusted proxy may write the client's port after its address (Azure: `ip:port`, `[v6]:port`).
    const key = given === undefined ? undefined : addressKey(withoutPort(given));
    if (key !== undefined) return key;
    warnNoProxyAddress(incoming, `${header} held no client address: counted by the connection's address instead`);
    return fromRuntime(incoming);
  };
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
