import {
  ConflictException,
  InputValidationException,
  invalidField,
  UnprocessableEntityException,
} from "../../errors/exceptions";
import { seam } from "../../schema";
import { readWithin } from "../request/body";
import { type DocumentedResponse, type DocumentedResponses, responsesOrDefault } from "./documented";
import { sha256Hex } from "./hashed-key";

/** An answer as stored for a key: replayed to every retry of the same request by the same caller. */
export interface StoredAnswer {
  status: number;
  /**
   * The headers a replay gives back, lower-case: `content-type`, those the route's document lists for
   * this answer's status, and the policy's `keepHeaders`.
   */
  headers: [string, string][];
  /** The body, base64; empty when it was over the policy's `maxAnswerBytes` (then `truncated`). */
  body: string;
  truncated?: boolean;
}

/** What claiming a key found. */
export type IdempotencyClaim =
  | { state: "claimed" }
  | { state: "in-flight"; fingerprint: string }
  | { state: "done"; fingerprint: string; answer: StoredAnswer };

/** What a store's calls see of the request: its router's environment (a Worker's `env`). */
export interface IdempotencyContext {
  env: any;
}

/** One request's claim on a key: what `claim` is given, and what `complete` and `release` act on. */
export interface IdempotencyHold {
  /**
   * The key as stored: a SHA-256 (hex) of the caller's scope and the client's `Idempotency-Key`, so one
   * caller's key never finds or blocks another's, and neither the key nor a credential is stored as sent.
   */
  readonly key: string;
  /** SHA-256 (hex) of the request: its method, path with query, and body bytes. */
  readonly fingerprint: string;
  /**
   * When the claim lapses unless completed (ms since the epoch): a request whose process died frees its key
   * then. A later claim of the key ends later, so this also tells one claim from the one that took over
   * the key after it lapsed.
   */
  readonly leaseEnds: number;
}

/**
 * Where keys and their answers are kept. `claim` must let exactly one of any number of racing callers
 * (in any process) win a key: an insert only one wins, also when they race to take over a lapsed claim.
 * The SQL store (`sqlIdempotencyStore`) is one; docs/operations.md shows one of your own.
 *
 * @example
 * const once = idempotency({ store: sqlIdempotencyStore(driver) }); // or any object with these three methods
 */
export interface IdempotencyStore {
  /**
   * Claims `hold.key` for its request until `hold.leaseEnds`, or says what holds it. A key whose claim
   * lapsed (its lease ended before `complete`) or whose answer expired is free again.
   */
  claim(hold: IdempotencyHold, ctx: IdempotencyContext): Promise<IdempotencyClaim>;
  /** Stores the answer of the request holding `hold`, kept until `expiresAt` (ms); nothing once another claim took the key. */
  complete(hold: IdempotencyHold, answer: StoredAnswer, expiresAt: number, ctx: IdempotencyContext): Promise<void>;
  /** Frees the key `hold` claimed, when its request failed, so a retry runs it again; nothing once another claim took the key. */
  release(hold: IdempotencyHold, ctx: IdempotencyContext): Promise<void>;
}

/** What a policy's `scope` sees of one request: it runs after authentication. */
export interface IdempotencyScopeContext {
  request: Request;
  /** What the route's authentication verified; undefined on a route without `auth`. */
  principal: unknown;
  /** The router's environment bindings (a Worker's `env`; `@hono/node-server`'s `{ incoming }`). */
  env: any;
  /** The router's handler arguments. */
  args: unknown[];
}

/** A route's opt-in to idempotency keys: `idempotency({...})` on `schema.idempotency` or an auto endpoint's `idempotency` field. */
export interface IdempotencyPolicy {
  readonly store: IdempotencyStore;
  readonly expiresSeconds: number;
  /** How long a claimed key is held for a request still running, in seconds. */
  readonly leaseSeconds: number;
  /** Lower-case names of the response headers a replay gives back besides those the route documents. */
  readonly keepHeaders: readonly string[];
  readonly maxAnswerBytes: number;
  /** Whether a request without `Idempotency-Key` is refused (400). */
  readonly required: boolean;
  /** Whose keys a request's are, when the app says; undefined: the caller's credentials (see {@link IdempotencyOptions.scope}). */
  readonly scope: ((ctx: IdempotencyScopeContext) => string) | undefined;
  /**
   * The policy as one route applies it, made when the route compiles: whose keys its requests use (the
   * policy's `scope`, else the credentials its security reads; warned once when it has none), which
   * headers each of its answers' replays give back.
   */
  forRoute(route: RouteFacts): IdempotentRoute;
  /** The `Idempotency-Key` header parameter of a route that takes one (draft-ietf-httpapi-idempotency-key-header). */
  documentParameter(): Record<string, unknown>;
  /** A route's documented responses with the answers its `Idempotency-Key` may bring (400, 409, 422), where it declares none. */
  documentResponses<R extends DocumentedResponse>(
    responses: DocumentedResponses<R> | undefined,
  ): DocumentedResponses<R>;
}

/** What a route tells a policy when it compiles. */
export interface RouteFacts {
  /** How logs name the route: `POST /orders (CreateOrder)`. */
  label: string;
  /** The route's documented responses, by status. */
  responses: DocumentedResponses<DocumentedResponse> | undefined;
  /**
   * How the route tells its callers apart (`callerCredentials`): who a request's credentials name, given
   * the authenticator that verified them; undefined when the route has no authentication. Called only
   * when the policy has no `scope`; throws when a scheme cannot tell.
   */
  // any: an Authenticator, whose type is the endpoint contract's, which imports this file's.
  callers: () => ((request: Request, authenticatedBy: any) => string | undefined) | undefined;
}

/** A policy compiled for one route as one router serves it: immutable. */
export interface IdempotentRoute {
  /**
   * Runs `execute` at most once per key of the caller: claims the key, runs, stores the answer; or answers
   * from what the key holds. Without a key the request runs as it is (400 when the policy requires one).
   */
  run(request: IdempotentRequest, execute: () => Response | Promise<Response>): Promise<Response>;
  /** The route under other security (a mount adding `auth`): its keys scoped by those callers. */
  scopedBy(callers: RouteFacts["callers"]): IdempotentRoute;
}

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a key and its answer are kept, in seconds. Default 86 400 (a day). */
  expiresSeconds?: number;
  /**
   * How long a request still running holds its key, in seconds: a request whose process died frees it
   * then, and a retry runs. Set it above the route's slowest run: a retry after it runs alongside. Default 60.
   */
  leaseSeconds?: number;
  /** Response headers a replay gives back besides `content-type` and those the route documents for the answer. */
  keepHeaders?: string[];
  /** Largest answer body stored, in bytes; a larger one is replayed without its body. Default 64 KiB. */
  maxAnswerBytes?: number;
  /** Refuse a request without `Idempotency-Key` (400). Default false: it runs as a plain request. */
  required?: boolean;
  /**
   * Whose keys a request's are: requests of one scope share keys, other scopes never see them. Default:
   * the credentials that authenticated the request (its scheme and bearer token, API key or Basic user
   * and password, stored only hashed with the key); on a route without `auth`, one scope for every client
   * (warned once when the route compiles). Return the principal's account, say, to keep keys across
   * rotated tokens: `({ principal }) => principal.accountId`.
   */
  scope?: (ctx: IdempotencyScopeContext) => string;
}

/** Longest `Idempotency-Key` accepted. */
export const MAX_IDEMPOTENCY_KEY = 200;

/**
 * Idempotency keys for a write (draft-ietf-httpapi-idempotency-key-header): the first request with a key
 * runs and its answer is stored with a fingerprint of the request (method, path, body bytes); a retry of
 * the same request by the same caller gets the stored answer, the same key on another request a 422, and
 * one still in flight a 409. A failure (an exception, or a 5xx) frees the key, as does a crash once its
 * lease ends. Keys are scoped by caller: one caller's key never finds or blocks another's.
 *
 * @example
 * const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["location"] });
 * class CreateOrder extends OpenAPIRoute { schema = { idempotency: once, responses: {} }; }
 */
export function idempotency(options: IdempotencyOptions): IdempotencyPolicy {
  const expiresSeconds = options.expiresSeconds ?? 86_400;
  const leaseSeconds = options.leaseSeconds ?? 60;
  const maxAnswerBytes = options.maxAnswerBytes ?? 64 * 1024;
  if (!(expiresSeconds > 0)) throw new Error("idempotency expiresSeconds must be positive");
  if (!(leaseSeconds > 0)) throw new Error("idempotency leaseSeconds must be positive");
  if (!Number.isInteger(maxAnswerBytes) || maxAnswerBytes < 0)
    throw new Error("idempotency maxAnswerBytes must be a non-negative integer");
  if (typeof options.store?.claim !== "function")
    throw new Error("idempotency store must have claim(), complete() and release()");
  if (options.scope !== undefined && typeof options.scope !== "function")
    throw new Error("idempotency scope must be a function of the request");
  // The policy carries what idempotency keys do (the pipeline and the document call it), so an app that
  // declares none bundles none of it.
  const policy: IdempotencyPolicy = Object.freeze({
    store: options.store,
    expiresSeconds,
    leaseSeconds,
    keepHeaders: Object.freeze((options.keepHeaders ?? []).map((name) => name.toLowerCase())),
    maxAnswerBytes,
    required: options.required ?? false,
    scope: options.scope,
    forRoute: (route: RouteFacts) =>
      idempotentRoute(policy, route.label, replayedHeaders(policy, route.responses), route.callers),
    documentParameter: () => idempotencyParameter(policy),
    documentResponses: withIdempotencyResponses,
  });
  return policy;
}

/** What the pipeline hands a route's `run` of one validated request. */
export interface IdempotentRequest {
  key: string | null;
  request: Request;
  bodyBytes: Uint8Array | undefined;
  /** What the route's authentication verified. */
  principal: unknown;
  /** The authenticator that verified it (of alternatives, the one whose credentials the request carried). */
  authenticatedBy: unknown;
  env: unknown;
  args: unknown[];
}

/** The headers a replay gives back for an answer of `status`: looked up in a table made once per route. */
type ReplayedHeaders = (status: number) => readonly string[];

/** Whose keys a request's are: a string the lookup key is hashed from. */
type ScopeOf = (request: IdempotentRequest) => string;

/** The route's compiled policy (the policy's `forRoute`). */
function idempotentRoute(
  policy: IdempotencyPolicy,
  label: string,
  replayed: ReplayedHeaders,
  callers: RouteFacts["callers"],
): IdempotentRoute {
  const scopeOf = scopeFor(policy, label, callers);
  return Object.freeze({
    run: (request: IdempotentRequest, execute: () => Response | Promise<Response>) =>
      runIdempotent(policy, scopeOf, replayed, request, execute),
    scopedBy: (other: RouteFacts["callers"]) => idempotentRoute(policy, label, replayed, other),
  });
}

/** Policies and routes already warned about keys shared by every client: each route once. */
const warnedShared = new WeakMap<IdempotencyPolicy, Set<string>>();

/** How a route's requests are scoped: by the policy's `scope`, else by their credentials, else one scope for all. */
function scopeFor(policy: IdempotencyPolicy, label: string, callers: RouteFacts["callers"]): ScopeOf {
  const { scope } = policy;
  if (scope !== undefined) {
    return ({ request, principal, env, args }) => {
      const scoped = scope({ request, principal, env, args });
      if (typeof scoped !== "string") throw new TypeError(`${label}: idempotency scope must return a string`);
      return scoped;
    };
  }
  let credentials: ReturnType<RouteFacts["callers"]>;
  try {
    credentials = callers();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`idempotency keys are scoped by their caller, and ${why}: give idempotency({ scope })`, {
      cause: err,
    });
  }
  if (credentials === undefined) {
    const warned = warnedShared.get(policy) ?? new Set<string>();
    warnedShared.set(policy, warned);
    if (!warned.has(label)) {
      warned.add(label);
      console.warn(
        `[specroute] ${label} takes an Idempotency-Key without authentication, so every client shares one set of keys: a client sending another's key and request gets its stored answer. Give idempotency({ scope }) to scope keys by caller (a session, a tenant), or auth to the route.`,
      );
    }
    // Stryker disable next-line ArrowFunction,StringLiteral: equivalent, any constant is the one scope every client shares
    return () => "";
  }
  return ({ request, authenticatedBy }) => {
    const credential = credentials(request, authenticatedBy);
    // Authentication passed, so the credential is there unless a custom scheme reads another place than it documents.
    if (credential === undefined) {
      throw new Error(
        `${label}: no credential of the route's security schemes to scope its Idempotency-Key by: give idempotency({ scope })`,
      );
    }
    return credential;
  };
}

/** Runs `execute` at most once per key of the caller (an `IdempotentRoute`'s `run`). */
// Five parameters: three are the route's compiled parts and two the request's, and one object to carry them would be built per request.
async function runIdempotent(
  policy: IdempotencyPolicy,
  scopeOf: ScopeOf,
  replayed: ReplayedHeaders,
  request: IdempotentRequest,
  execute: () => Response | Promise<Response>,
): Promise<Response> {
  const { key } = request;
  if (key === null) {
    if (policy.required) throw missingKey();
    return execute();
  }
  if (key === "" || key.length > MAX_IDEMPOTENCY_KEY) throw invalidKey();
  const ctx = { env: request.env };
  const [storedKey, fingerprint] = await Promise.all([
    sha256Hex(new TextEncoder().encode(JSON.stringify([scopeOf(request), key]))),
    fingerprintOf(request.request, request.bodyBytes),
  ]);
  const hold: IdempotencyHold = { key: storedKey, fingerprint, leaseEnds: Date.now() + policy.leaseSeconds * 1000 };
  const claim = await policy.store.claim(hold, ctx);
  if (claim.state !== "claimed") return answerFromClaim(claim, fingerprint);
  let response: Response;
  try {
    response = await execute();
  } catch (thrown) {
    await policy.store.release(hold, ctx);
    throw thrown;
  }
  if (response.status >= 500) {
    await policy.store.release(hold, ctx);
    return response;
  }
  const { answer, bytes } = await storedAnswer(response, replayed(response.status), policy.maxAnswerBytes);
  await policy.store.complete(hold, answer, Date.now() + policy.expiresSeconds * 1000, ctx);
  return firstAnswer(response, bytes);
}

function missingKey(): InputValidationException {
  return invalidField("The Idempotency-Key header is required", ["headers", "Idempotency-Key"]);
}

function invalidKey(): InputValidationException {
  const message = `Idempotency-Key must be a string of 1 to ${MAX_IDEMPOTENCY_KEY} characters`;
  return invalidField(message, ["headers", "Idempotency-Key"]);
}

function answerFromClaim(claim: Exclude<IdempotencyClaim, { state: "claimed" }>, fingerprint: string): Response {
  if (claim.fingerprint !== fingerprint) {
    throw new UnprocessableEntityException("This Idempotency-Key was used for another request");
  }
  if (claim.state === "in-flight") {
    throw new ConflictException("A request with this Idempotency-Key is still being processed: retry later");
  }
  return replay(claim.answer);
}

/** SHA-256 of the method, the path with its query, and the body's bytes, in hex. */
function fingerprintOf(request: Request, bodyBytes: Uint8Array | undefined): Promise<string> {
  const url = new URL(request.url);
  const head = new TextEncoder().encode(`${request.method}\n${url.pathname}${url.search}\n`);
  const bytes = new Uint8Array(head.length + (bodyBytes?.length ?? 0));
  bytes.set(head);
  if (bodyBytes) bytes.set(bodyBytes, head.length);
  return sha256Hex(bytes);
}

/**
 * Which headers a replay of each of a route's answers gives back: `content-type`, the policy's
 * `keepHeaders`, and those its document lists for the answer's status (`201`, else `2XX`, else
 * `default`). Made once, when the route compiles.
 */
function replayedHeaders(
  policy: IdempotencyPolicy,
  responses: DocumentedResponses<DocumentedResponse> | undefined,
): ReplayedHeaders {
  const always = Object.freeze(["content-type", ...policy.keepHeaders]);
  const byStatus = new Map<string, readonly string[]>();
  for (const [status, config] of Object.entries(responses ?? {})) {
    const documented = documentedHeaderNames(config?.headers).map((name) => name.toLowerCase());
    // The body a replay carries may be empty (over maxAnswerBytes): its length is the runtime's to write.
    const names = [...always, ...documented].filter((name) => name !== "content-length");
    byStatus.set(status.toUpperCase(), Object.freeze([...new Set(names)]));
  }
  return (status) =>
    byStatus.get(String(status)) ?? byStatus.get(`${Math.floor(status / 100)}XX`) ?? byStatus.get("DEFAULT") ?? always;
}

/** The header names a Response Object documents: its `headers` record's keys, or a headers schema's members. */
function documentedHeaderNames(headers: unknown): string[] {
  if (typeof headers !== "object" || headers === null) return [];
  if (seam.isSchema(headers)) return Object.keys(seam.objectShape(headers) ?? {});
  return Object.keys(headers);
}

/** The answer as stored (its status, the headers a replay gives back, and its body, bounded), and the body's bytes. */
async function storedAnswer(
  response: Response,
  replayed: readonly string[],
  maxAnswerBytes: number,
): Promise<{ answer: StoredAnswer; bytes: Uint8Array | null }> {
  const headers: [string, string][] = [];
  for (const name of replayed) {
    // Each Set-Cookie stays apart: joined with commas, as get() joins them, it is no cookie at all.
    if (name === "set-cookie") for (const cookie of response.headers.getSetCookie()) headers.push([name, cookie]);
    else {
      const value = response.headers.get(name);
      if (value !== null) headers.push([name, value]);
    }
  }
  const bytes = await readBounded(response, maxAnswerBytes);
  if (bytes === null) return { answer: { status: response.status, headers, body: "", truncated: true }, bytes };
  return { answer: { status: response.status, headers, body: toBase64(bytes) }, bytes };
}

/** The body's bytes, or null past `limit` (the rest is not read). */
async function readBounded(response: Response, limit: number): Promise<Uint8Array | null> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const bytes = await readWithin(reader, limit);
  // Past the limit the stream is cancelled; read to its end, cancelling it does nothing.
  await reader.cancel();
  return bytes;
}

/** The first answer: every header the route gave, and the body as stored (empty past `maxAnswerBytes`). */
function firstAnswer(response: Response, bytes: Uint8Array | null): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(bodyOf(bytes), { status: response.status, headers });
}

/**
 * The body of an answer: none when it is empty, as a 204's or a 304's always is (a Response of those
 * statuses cannot have one, and a stored answer's body is what its Response had).
 */
function bodyOf(bytes: Uint8Array | null): BodyInit | null {
  if (bytes === null || bytes.length === 0) return null;
  // A response stream's chunks, and what joins them, are views of plain ArrayBuffers.
  return bytes as Uint8Array<ArrayBuffer>;
}

/** A Response of a stored answer. */
export function replay(answer: StoredAnswer): Response {
  return new Response(bodyOf(fromBase64(answer.body)), { status: answer.status, headers: answer.headers });
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // Stryker disable next-line EqualityOperator: equivalent, one more pass at the end adds an empty chunk
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  // atob's characters are bytes, each one UTF-16 unit.
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** The `Idempotency-Key` header parameter (the policy's `documentParameter`). */
function idempotencyParameter(policy: IdempotencyPolicy): Record<string, unknown> {
  return {
    name: "Idempotency-Key",
    in: "header",
    required: policy.required,
    description: `Makes a retry safe: a retry with the same key and the same request, by the same caller, gets the first answer (kept ${policy.expiresSeconds} s); the same key on another request is a 422, one still being processed a 409.`,
    schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY },
  };
}

/** A route's responses with the answers its key may bring (the policy's `documentResponses`). */
function withIdempotencyResponses<R extends DocumentedResponse>(
  responses: DocumentedResponses<R> | undefined,
): DocumentedResponses<R> {
  const result = { ...responsesOrDefault(responses) };
  const [conflict] = Object.values(ConflictException.schema());
  const [unprocessable] = Object.values(UnprocessableEntityException.schema());
  // Exceptions' entries are Response Objects the document reads as it reads the route's own.
  const added = {
    ...InputValidationException.schema(),
    "409": { ...conflict!, description: "A request with this Idempotency-Key is still being processed" },
    "422": { ...unprocessable!, description: "This Idempotency-Key was used for another request" },
  } as unknown as DocumentedResponses<R>;
  for (const [status, config] of Object.entries(added)) if (!(status in result)) result[status] = config;
  return result;
}
