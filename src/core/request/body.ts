// A request body as bytes, whatever route reads it: read within a limit, decoded, parsed as JSON with
// guards, and read again by the handler through a Request of specroute's own; and `requestOf`, which
// reads a request-like object (chanfana-style tests) as a Request. The media type and schema a route
// reads it by are read-body.ts's.
import {
  InputValidationException,
  invalidField,
  isApiException,
  PayloadTooLargeException,
} from "../../errors/exceptions";

/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_SIZE = 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A fetch Request's whole body within `limit` bytes; null when it has none. A body of declared length
 * is taken whole by the runtime's own (often much faster) reader, since the HTTP layer holds it to its
 * length, and its size is checked after; a streamed one is refused as soon as it passes the limit
 * (its rest is then read and dropped, see {@link discardRest}).
 */
export function readBodyBytes(request: Request, length: number | null, limit: number): Promise<Uint8Array | null> {
  // (`request.body` is not touched first: on @hono/node-server that would build a second Request.)
  if (isLength(length)) {
    // A body read before is the app's doing: the platform's TypeError (a 500) says so.
    const cutOff = request.bodyUsed ? undefined : bodyReadFailed;
    return request.arrayBuffer().then((buffer) => checkedBytes(buffer, limit), cutOff);
  }
  return readStream(request, limit);
}

/**
 * What a failed read of the body is answered with: the 400 of a body cut off part-way when the failure is
 * the connection's (the client closed it, or sent fewer bytes than its Content-Length), so never a 500 to
 * the app's error handler; the failure itself otherwise (a bug in code that transforms the body is the
 * app's, and is logged); an exception of the framework (a 413) as it is.
 */
export function bodyReadFailed(cause: unknown): never {
  throw isApiException(cause) || !isConnectionFailure(cause) ? cause : cutOffError(cause);
}

// The 400s of bodies cut off, told apart from a body that came whole and failed its schema.
const cutOffs = new WeakSet<object>();

/** The 400 of a body cut off part-way, for a read whose source says the client went (`cause` kept). */
export function cutOffError(cause: unknown): unknown {
  if (isApiException(cause)) return cause;
  const refused = invalidField("Request body ended before it was whole: the connection closed part-way", ["body"]);
  if (cause !== undefined) (refused as Error).cause = cause;
  cutOffs.add(refused);
  return refused;
}

/** Whether `err` is the 400 of a body cut off part-way (see `cutOffError`). */
export function isCutOff(err: unknown): boolean {
  return typeof err === "object" && err !== null && cutOffs.has(err);
}

// How runtimes name a connection that went away mid-body: Node's `aborted` (ECONNRESET), undici's
// `terminated` (UND_ERR_SOCKET), a premature close, a reset or lost connection.
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "UND_ERR_SOCKET",
]);
const CONNECTION_MESSAGE = /^(aborted|terminated)$|premature close|connection (was )?(closed|reset|lost)/i;

/** Whether `err` (or an error it was caused by) says the connection went away. */
function isConnectionFailure(err: unknown): boolean {
  for (let at = err, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const { code } = at as { code?: unknown };
    if ((typeof code === "string" && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGE.test(at.message)) return true;
  }
  return false;
}

/** The next chunk of a request body (see `bodyReadFailed` for a read that fails). */
export function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  return reader.read().catch(bodyReadFailed);
}

/**
 * A Content-Length header as a number: null when absent or blank, NaN when it is no number. The one
 * place a request's declared length is read; what reads the body is handed this number.
 */
export function declaredLength(contentLength: string | null): number | null {
  return contentLength === null || contentLength.trim() === "" ? null : Number(contentLength);
}

/** Whether a declared length is a length at all (a malformed one leaves the body to be streamed). */
export function isLength(length: number | null): length is number {
  return length !== null && Number.isSafeInteger(length) && length >= 0;
}

/** The 413 for a declared length over `limit`, or null when the declared length (if any) fits. */
export function declaredTooLarge(length: number | null, limit: number): PayloadTooLargeException | null {
  return length !== null && length > limit ? bodyTooLarge(limit) : null;
}

/** The bytes of a body read whole, refused when larger than `limit` after all. */
function checkedBytes(buffer: ArrayBuffer, limit: number): Uint8Array {
  if (buffer.byteLength > limit) throw bodyTooLarge(limit);
  return new Uint8Array(buffer);
}

async function readStream(request: Request, limit: number): Promise<Uint8Array | null> {
  if (request.body === null) return null;
  const reader = request.body.getReader();
  const bytes = await readWithin(reader, limit);
  if (bytes !== null) return bytes;
  discardRest(reader);
  throw bodyTooLarge(limit);
}

/**
 * What `reader` gives, joined, when it ends within `limit` bytes; null as soon as it passes the limit,
 * the rest left unread for the caller to drop or cancel.
 */
export async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) return concatBytes(chunks, size);
    size += value.byteLength;
    if (size > limit) return null;
    chunks.push(value);
  }
}

/** Most bytes of a refused body read and dropped after the refusal, before the body is cancelled: 16 MiB. */
export const DISCARD_LIMIT = 16 * 1024 * 1024;

/**
 * Reads and drops the rest of a refused body in the background, up to `DISCARD_LIMIT` bytes, then
 * cancels it. Cancelling at once would make a server close the connection under a client that is
 * still sending, and that client would see a reset instead of the answer.
 */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, limit = DISCARD_LIMIT): void {
  const drop = async () => {
    let dropped = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
      if (dropped > limit) return reader.cancel();
    }
  };
  // A runtime may end the body once the answer is sent: the read then fails, and nothing is left to drop.
  drop().catch(() => {});
}

/** Joins byte chunks whose total length is `size` (one chunk is returned as it is). */
export function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The 413 for a body over the limit. */
export function bodyTooLarge(limit: number): PayloadTooLargeException {
  return new PayloadTooLargeException(`Request body is larger than the limit of ${limit} bytes`);
}

/** Decodes UTF-8, answering 400 for bytes that are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw invalidField("Request body is not valid UTF-8", ["body"]);
  }
}

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 256;

// JSON.parse keeps "__proto__" as an own key, but later assignment-based copies would turn it into a
// prototype; such keys (also spelled with \u escapes) are refused outright.
const MAYBE_PROTO_KEY = /__proto__|\\u/;

/** Parses a JSON body: invalid JSON, excessive nesting and `__proto__` keys are 400s, never a crash. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = MAYBE_PROTO_KEY.test(text) ? JSON.parse(text, refuseProtoKey) : JSON.parse(text);
  } catch (err) {
    if (err instanceof InputValidationException) throw err;
    throw invalidField(`Request body is not valid JSON: ${(err as Error).message}`, ["body"]);
  }
  // Nesting deeper than the limit needs at least two characters a level, so short bodies skip the walk.
  if (
    text.length > 2 * MAX_JSON_DEPTH &&
    typeof value === "object" &&
    value !== null &&
    nestingExceeds(value, MAX_JSON_DEPTH)
  ) {
    throw invalidField(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, ["body"]);
  }
  return value;
}

function refuseProtoKey(this: unknown, key: string, value: unknown): unknown {
  if (key === "__proto__") throw forbiddenProtoKey();
  return value;
}

/** The 400 for a body member named `__proto__`, in JSON, a form or multipart parts alike. */
export function forbiddenProtoKey(): InputValidationException {
  return invalidField('Request body contains the forbidden key "__proto__"', ["body"]);
}

/** Whether arrays and objects nest deeper than `limit` levels in `root`; iterative, so a hostile value cannot overflow the stack here. */
export function nestingExceeds(root: object, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === "object" && item !== null) stack.push([item, depth + 1]);
    } else {
      for (const key in node as object) {
        const item = (node as Record<string, unknown>)[key];
        if (typeof item === "object" && item !== null) stack.push([item, depth + 1]);
      }
    }
  }
  return false;
}

// The body as the handler reads it: a Request of specroute's own that reads the copy again, built by the
// core and handed to the adapter (`IncomingRequest.keep`). The platform Request is never altered.

/**
 * What specroute read of a request body, kept for the handler to read again: the bytes of a JSON or
 * form body and their text (they were valid UTF-8), or the parts of a multipart body streamed in (whose
 * raw bytes were never held).
 */
export type ReadBodyCopy =
  | { text: string; bytes: Uint8Array; parts?: undefined; contentType: string | null }
  | { text?: undefined; parts: MultipartParts; contentType: string };

/** A multipart body's parts as the handler may read them again, rebuilt only when it does (multipart.ts). */
export interface MultipartParts {
  /** The whole body, written again around the parts' Files. */
  blob(): Blob;
  formData(): FormData;
}

/** Fields of a request a copy takes over, where the runtime has them (Workers leaves several out). */
const INIT_FIELDS = ["cache", "credentials", "integrity", "keepalive", "mode", "referrer", "referrerPolicy", "cf"];

/**
 * Every field of `request` as a RequestInit, read through whatever wraps it (itty-router's AutoRouter
 * hands handlers a Proxy, which the runtime's Request constructor does not take as a Request).
 */
function initOf(request: Request): RequestInit {
  const init: Record<string, unknown> = {
    method: request.method,
    headers: request.headers,
    redirect: request.redirect,
    signal: request.signal,
  };
  for (const field of INIT_FIELDS) {
    const value = (request as unknown as Record<string, unknown>)[field];
    // A navigation's mode cannot be given to a constructor; the copy is then a plain request.
    if (value !== undefined && !(field === "mode" && value === "navigate")) init[field] = value;
  }
  return init;
}

/** The body specroute read, as one Blob: its bytes, or a multipart body rebuilt around its parts' Files. */
function blobOf(body: ReadBodyCopy): Blob {
  return body.parts
    ? body.parts.blob()
    : new Blob([body.bytes as Uint8Array<ArrayBuffer>], { type: body.contentType ?? "" });
}

/**
 * A new Request with every field of `request` and the body specroute read of it, which reads like the
 * body as it arrived: what a handler is given in place of a request whose body was consumed. The
 * platform Request itself is never altered. A GET or HEAD gets no body: a Request cannot have one.
 */
export function requestWithBody(request: Request, body: ReadBodyCopy): Request {
  const init = initOf(request);
  if (request.method === "GET" || request.method === "HEAD") return new Request(request.url, init);
  return new Request(request.url, { ...init, body: blobOf(body) });
}

/**
 * `request` with a body that reads again, as many times as asked: its body members (`json`, `text`,
 * `arrayBuffer`, `bytes`, `blob`, `formData`, `body`, `bodyUsed`) answer from what specroute read, and
 * `clone()` makes a Request with every field of the original and that body. Everything else (headers,
 * URL, signal, what a router or middleware put on it) is the original's, which is left as it is. Costs
 * one object until something reads the body.
 *
 * @example
 * const again = requestReadingAgain(request, { text, bytes, contentType });
 * await again.json(); await again.text(); // both answer
 */
export function requestReadingAgain(request: Request, body: ReadBodyCopy): Request {
  return new Proxy(request, new ReadingAgain(body));
}

/** The proxy handler behind `requestReadingAgain`; body members are made when read, not per request. */
class ReadingAgain implements ProxyHandler<Request> {
  constructor(private readonly copy: ReadBodyCopy) {}

  get(target: Request, key: string | symbol): unknown {
    switch (key) {
      case "text":
        return () => this.text();
      case "json":
        return () => this.text().then(JSON.parse);
      case "arrayBuffer":
        return () => blobOf(this.copy).arrayBuffer();
      case "bytes":
        return async () => new Uint8Array(await blobOf(this.copy).arrayBuffer());
      case "blob":
        return async () => blobOf(this.copy);
      case "formData":
        return () => this.formData();
      case "body":
        return blobOf(this.copy).stream();
      // Every body member answers again, so the body counts as unread.
      case "bodyUsed":
        return false;
      case "clone":
        return () => requestWithBody(target, this.copy);
    }
    const value = Reflect.get(target, key, target);
    // The platform's methods check that they run on a real Request: they are called on the original.
    return typeof value === "function" ? value.bind(target) : value;
  }

  private async text(): Promise<string> {
    return this.copy.parts ? blobOf(this.copy).text() : this.copy.text;
  }

  private async formData(): Promise<FormData> {
    const { copy } = this;
    if (copy.parts) return copy.parts.formData();
    return new Response(copy.bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": copy.contentType ?? "" },
    }).formData();
  }
}

// Request-like objects (chanfana-style tests pass `{ method, url, json }`), read as Requests.
// Those requestOf() wrapped; readBody() asks their own json() instead of reading a stream.
const requestLikes = new WeakSet<object>();

/**
 * The request as specroute reads it. A fetch `Request` is returned as it is; a request-like object
 * (chanfana-style tests pass `{ method, url, json }`) gets real `Headers` built from its `headers`
 * (a plain record, or none), inheriting everything else, so validation never trips over its shape.
 */
export function requestOf(value: unknown): Request {
  const request = value as Request;
  // A real Request first, without reading `headers`: on @hono/node-server that read builds the Headers.
  if (typeof Request !== "undefined" && request instanceof Request) return request;
  // `in`, not a property read: itty-router's Proxy would bind a new function on every read.
  if (typeof request.headers?.get === "function" && "arrayBuffer" in request) return request;
  const like = Object.create(request, { headers: { value: headersOf(request.headers) } }) as Request;
  requestLikes.add(like);
  return like;
}

/** Whether `requestOf()` found a request-like object rather than a fetch Request. */
export function isRequestLike(request: Request): boolean {
  return requestLikes.has(request);
}

/** Headers from whatever a request-like holds; a name or value no Headers accepts is left out, never a 500. */
function headersOf(init: unknown): Headers {
  try {
    return new Headers(init as HeadersInit | undefined);
  } catch {
    const headers = new Headers();
    if (typeof init !== "object" || init === null) return headers;
    for (const [name, value] of Object.entries(init)) {
      try {
        headers.append(name, String(value));
      } catch {}
    }
    return headers;
  }
}
