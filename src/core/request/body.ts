import { InputValidationException, invalidField, PayloadTooLargeException } from "../../errors/exceptions";

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
  if (isLength(length)) return request.arrayBuffer().then((buffer) => checkedBytes(buffer, limit));
  return readStream(request, limit);
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
    const { done, value } = await reader.read();
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
