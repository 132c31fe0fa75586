import {
  ConflictException,
  InputValidationException,
  invalidField,
  UnprocessableEntityException,
} from "../../errors/exceptions";
import { readWithin } from "../request/body";
import { type DocumentedResponse, type DocumentedResponses, responsesOrDefault } from "./documented";

/** An answer as stored for a key: replayed to every retry of the same request. */
export interface StoredAnswer {
  status: number;
  /** The headers kept: `content-type` and those the policy names, lower-case. */
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

/**
 * Where keys and their answers are kept. `claim` must let exactly one of any number of racing callers
 * (in any process) win a key: an insert only one wins. The SQL store (`sqlIdempotencyStore`) is one.
 */
export interface IdempotencyStore {
  /** Claims `key` for a request of `fingerprint` until `expiresAt` (ms), or says what holds it. */
  claim(key: string, fingerprint: string, expiresAt: number, ctx: IdempotencyContext): Promise<IdempotencyClaim>;
  /** Stores the answer of the request that claimed `key`. */
  complete(key: string, fingerprint: string, answer: StoredAnswer, ctx: IdempotencyContext): Promise<void>;
  /** Frees a claimed key whose request failed, so a retry runs it again. */
  release(key: string, fingerprint: string, ctx: IdempotencyContext): Promise<void>;
}

/** A route's opt-in to idempotency keys: `idempotency({...})` on `schema.idempotency` or an auto endpoint's `idempotency` field. */
export interface IdempotencyPolicy {
  readonly store: IdempotencyStore;
  readonly expiresSeconds: number;
  /** Lower-case names of the response headers stored and replayed besides `content-type`. */
  readonly keepHeaders: readonly string[];
  readonly maxAnswerBytes: number;
  /** Whether a request without `Idempotency-Key` is refused (400). */
  readonly required: boolean;
  /**
   * Runs `execute` at most once per key: claims the key, runs, stores the answer; or answers from what the
   * key holds. Without a key the request runs as it is (400 when the policy requires one).
   */
  run(request: IdempotentRequest, execute: () => Response | Promise<Response>): Promise<Response>;
  /** The `Idempotency-Key` header parameter of a route that takes one (draft-ietf-httpapi-idempotency-key-header). */
  documentParameter(): Record<string, unknown>;
  /** A route's documented responses with the answers its `Idempotency-Key` may bring (400, 409, 422), where it declares none. */
  documentResponses<R extends DocumentedResponse>(
    responses: DocumentedResponses<R> | undefined,
  ): DocumentedResponses<R>;
}

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** How long a key and its answer are kept, in seconds. Default 86 400 (a day). */
  expiresSeconds?: number;
  /** Response headers stored and replayed besides `content-type` (e.g. `location`, `etag`). */
  keepHeaders?: string[];
  /** Largest answer body stored, in bytes; a larger one is replayed without its body. Default 64 KiB. */
  maxAnswerBytes?: number;
  /** Refuse a request without `Idempotency-Key` (400). Default false: it runs as a plain request. */
  required?: boolean;
}

/** Longest `Idempotency-Key` accepted. */
export const MAX_IDEMPOTENCY_KEY = 200;

/**
 * Idempotency keys for a write (draft-ietf-httpapi-idempotency-key-header): the first request with a key
 * runs and its answer is stored with a fingerprint of the request (method, path, body bytes); a retry of
 * the same request gets the stored answer, the same key on another request a 422, and one still in flight
 * a 409. A failure (an exception, or a 5xx) frees the key.
 *
 * @example
 * const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["location"] });
 * class CreateOrder extends OpenAPIRoute { schema = { idempotency: once, responses: {} }; }
 */
export function idempotency(options: IdempotencyOptions): IdempotencyPolicy {
  const expiresSeconds = options.expiresSeconds ?? 86_400;
  const maxAnswerBytes = options.maxAnswerBytes ?? 64 * 1024;
  if (!(expiresSeconds > 0)) throw new Error("idempotency expiresSeconds must be positive");
  if (!Number.isInteger(maxAnswerBytes) || maxAnswerBytes < 0)
    throw new Error("idempotency maxAnswerBytes must be a non-negative integer");
  if (typeof options.store?.claim !== "function")
    throw new Error("idempotency store must have claim(), complete() and release()");
  // The policy carries what idempotency keys do (the pipeline and the document call it), so an app that
  // declares none bundles none of it.
  const policy: IdempotencyPolicy = Object.freeze({
    store: options.store,
    expiresSeconds,
    keepHeaders: Object.freeze((options.keepHeaders ?? []).map((name) => name.toLowerCase())),
    maxAnswerBytes,
    required: options.required ?? false,
    run: (request: IdempotentRequest, execute: () => Response | Promise<Response>) =>
      runIdempotent(policy, request, execute),
    documentParameter: () => idempotencyParameter(policy),
    documentResponses: withIdempotencyResponses,
  });
  return policy;
}

/** What the pipeline hands a policy's `run` of one validated request. */
export interface IdempotentRequest {
  key: string | null;
  request: Request;
  bodyBytes: Uint8Array | undefined;
  env: unknown;
}

/** Runs `execute` at most once per key (the policy's `run`). */
async function runIdempotent(
  policy: IdempotencyPolicy,
  { key, request, bodyBytes, env }: IdempotentRequest,
  execute: () => Response | Promise<Response>,
): Promise<Response> {
  if (key === null) {
    if (policy.required) throw missingKey();
    return execute();
  }
  if (key === "" || key.length > MAX_IDEMPOTENCY_KEY) throw invalidKey();
  const ctx = { env };
  const fingerprint = await fingerprintOf(request, bodyBytes);
  const claim = await policy.store.claim(key, fingerprint, Date.now() + policy.expiresSeconds * 1000, ctx);
  if (claim.state !== "claimed") return answerFromClaim(claim, fingerprint);
  let response: Response;
  try {
    response = await execute();
  } catch (thrown) {
    await policy.store.release(key, fingerprint, ctx);
    throw thrown;
  }
  if (response.status >= 500) {
    await policy.store.release(key, fingerprint, ctx);
    return response;
  }
  const answer = await storedAnswer(response, policy);
  await policy.store.complete(key, fingerprint, answer, ctx);
  return replay(answer);
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
async function fingerprintOf(request: Request, bodyBytes: Uint8Array | undefined): Promise<string> {
  const url = new URL(request.url);
  const head = new TextEncoder().encode(`${request.method}\n${url.pathname}${url.search}\n`);
  const bytes = new Uint8Array(head.length + (bodyBytes?.length ?? 0));
  bytes.set(head);
  if (bodyBytes) bytes.set(bodyBytes, head.length);
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The answer as stored: its status, kept headers, and body (bounded: read no further than the bound). */
async function storedAnswer(response: Response, policy: IdempotencyPolicy): Promise<StoredAnswer> {
  const headers: [string, string][] = [];
  for (const name of ["content-type", ...policy.keepHeaders]) {
    const value = response.headers.get(name);
    if (value !== null) headers.push([name, value]);
  }
  const body = await readBounded(response, policy.maxAnswerBytes);
  if (body === null) return { status: response.status, headers, body: "", truncated: true };
  return { status: response.status, headers, body: toBase64(body) };
}

/** The body's bytes, or null past `limit` (the rest is not read). */
async function readBounded(response: Response, limit: number): Promise<Uint8Array | null> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const bytes = await readWithin(reader, limit);
  if (bytes === null) await reader.cancel();
  return bytes;
}

/** A Response of a stored answer. */
export function replay(answer: StoredAnswer): Response {
  const body = answer.body === "" || answer.status === 204 || answer.status === 304 ? null : fromBase64(answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The `Idempotency-Key` header parameter (the policy's `documentParameter`). */
function idempotencyParameter(policy: IdempotencyPolicy): Record<string, unknown> {
  return {
    name: "Idempotency-Key",
    in: "header",
    required: policy.required,
    description: `Makes a retry safe: a retry with the same key and the same request gets the first answer (kept ${policy.expiresSeconds} s); the same key on another request is a 422, one still being processed a 409.`,
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
