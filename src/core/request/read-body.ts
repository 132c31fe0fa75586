// Reading one request's body by its route's body plan: the declared media type its Content-Type
// selects, read within the limit and parsed, and handed back to the adapter to read again. Reading bytes,
// bounded, and the request that reads them again are body.ts's.
import { invalidField, UnsupportedMediaTypeException } from "../../errors/exceptions";
import { essenceOf, isJsonEssence, TEXT_PLAIN, wildcardMatches } from "../media-type";
import {
  declaredLength,
  declaredTooLarge,
  decodeUtf8,
  discardRest,
  forbiddenProtoKey,
  isRequestLike,
  parseJsonBody,
  readChunk,
  requestReadingAgain,
} from "./body";
import type { BodyPlan, FormValues, MediaPlan } from "./body-plan";
import type { IncomingRequest } from "./incoming";
import { partsReadAgain, readMultipart } from "./multipart";
import { eachUrlEncoded } from "./urlencoded";

/** What reading a body gave: the media type it matched (null when there was no body) and its value. */
export type ReadBody = (
  | { media: MediaPlan | null; value: unknown; form?: undefined }
  | { media: MediaPlan; value?: undefined; form: FormValues | undefined }
) & {
  /** The bytes of a JSON or form body, as sent (what an idempotency key's fingerprint hashes). */
  bytes?: Uint8Array;
};
/**
 * Reads the body in the declared media type its Content-Type names, within `maxBodySize`, and hands a
 * copy back to `incoming` (see `keep`). A body of an undeclared type is a 415 naming the accepted
 * ones; without a Content-Type, JSON is assumed when declared (not where `text/plain` is refused as JSON). An
 * empty body reads as `undefined`.
 * Rejects with the 400, 413 or 415 that refused the body.
 */
export function readBody(incoming: IncomingRequest, plan: BodyPlan, maxBodySize: number): Promise<ReadBody> {
  try {
    const contentType = incoming.header("content-type");
    const media = selectMedia(plan, contentType);
    if (isRequestLike(incoming.request)) return readRequestLike(incoming.request, media);
    // The request's declared length, read here once: every reader below is handed it.
    const length = declaredLength(incoming.header("content-length"));
    // No Content-Type is also what a page on another site sends with a Blob body: refused where text/plain is.
    const unlabelledRefused = contentType === null && plan.plainTextRefused !== null;
    if (media === null || unlabelledRefused) return refuseUndeclared(incoming, plan, contentType, length);
    if (media.kind === null) return Promise.resolve({ media, value: undefined });
    const tooLarge = declaredTooLarge(length, maxBodySize);
    if (tooLarge) return Promise.reject(tooLarge);
    if (media.kind === "multipart") return readMultipartBody(incoming, media, contentType!, maxBodySize);
    // One step once the runtime has the bytes: decoded, parsed and kept.
    return incoming
      .readBytes(maxBodySize, length, contentType)
      .then((bytes) => textBody(incoming, media, bytes, contentType));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** A JSON or form body's bytes, decoded (400 for invalid UTF-8), parsed, and kept for the handler. */
function textBody(
  incoming: IncomingRequest,
  media: MediaPlan,
  bytes: Uint8Array | null,
  contentType: string | null,
): ReadBody {
  if (bytes === null) return media.kind === "json" ? { media, value: undefined } : { media, form: undefined };
  const text = decodeUtf8(bytes);
  incoming.keep(requestReadingAgain(incoming.request, { text, bytes, contentType }));
  if (media.kind === "json") return { media, bytes, value: text === "" ? undefined : parseJsonBody(text) };
  return { media, bytes, form: text === "" ? undefined : groupForm(text) };
}

async function readMultipartBody(
  incoming: IncomingRequest,
  media: MediaPlan,
  contentType: string,
  maxBodySize: number,
): Promise<ReadBody> {
  const entries = await readMultipart(incoming.stream(contentType), contentType, {
    maxBodySize,
    partLimit(name, isFile) {
      if (media.fields === null) return Number.POSITIVE_INFINITY;
      const field = media.fieldsByName.get(name);
      // An undeclared file would be stripped by the schema anyway: it is not kept in memory.
      if (!field) return isFile ? null : Number.POSITIVE_INFINITY;
      return field.file?.maxSize ?? Number.POSITIVE_INFINITY;
    },
  });
  // An empty stream was still consumed: the handler reads an empty body.
  incoming.keep(
    requestReadingAgain(incoming.request, { parts: partsReadAgain(entries ?? [], contentType), contentType }),
  );
  if (entries === undefined) return { media, form: undefined };
  const form: FormValues = new Map();
  for (const { name, value } of entries) group(form, name, value);
  return { media, form };
}

/** A body of a media type the route does not declare: a 415, unless the body is empty after all. */
async function refuseUndeclared(
  incoming: IncomingRequest,
  plan: BodyPlan,
  contentType: string | null,
  length: number | null,
): Promise<ReadBody> {
  if (!(await isEmpty(incoming, contentType, length))) throw unsupported(plan, contentType);
  return { media: null, value: undefined };
}

/** The 415 naming the accepted types; for JSON the route refuses as `text/plain`, also why. */
function unsupported(plan: BodyPlan, contentType: string | null): UnsupportedMediaTypeException {
  if (contentType === null) {
    const why =
      plan.plainTextRefused === null
        ? ""
        : `; it does not read a body without one as JSON, because ${plan.plainTextRefused} and a page on another site can send one with the user's credentials`;
    return new UnsupportedMediaTypeException(`Missing Content-Type: this endpoint accepts ${plan.accepted}${why}`);
  }
  const why =
    plan.plainTextRefused !== null && essenceOf(contentType) === TEXT_PLAIN
      ? `; it does not read ${TEXT_PLAIN} as JSON, because ${plan.plainTextRefused} and a form on another site can post ${TEXT_PLAIN} with the user's credentials`
      : "";
  return new UnsupportedMediaTypeException(
    `Unsupported Content-Type "${contentType.slice(0, 100)}": this endpoint accepts ${plan.accepted}${why}`,
  );
}

/**
 * A request-like object (chanfana-style tests pass `{ method, url, json }`) has no stream to read: its
 * own `json()` gives a JSON body, and one that throws is a body that is not JSON, as for a real request.
 */
async function readRequestLike(request: Request, media: MediaPlan | null): Promise<ReadBody> {
  if (media === null || media.kind === null) return { media, value: undefined };
  if (media.kind !== "json") return { media, form: undefined };
  if (typeof request.json !== "function") return { media, value: undefined };
  try {
    return { media, value: await request.json() };
  } catch (err) {
    throw invalidField(`Request body is not valid JSON: ${(err as Error)?.message}`, ["body"]);
  }
}

/** The declared media type a Content-Type selects, or null. */
function selectMedia(plan: BodyPlan, contentType: string | null): MediaPlan | null {
  if (contentType === null) return plan.media.find((media) => media.kind === "json") ?? null;
  // A Content-Type that is already a bare essence ("application/json") needs no parsing.
  for (const media of plan.media) if (media.essence === contentType) return media;
  const essence = essenceOf(contentType);
  const exact = plan.media.find((media) => media.essence === essence);
  if (exact) return exact;
  if (isJsonEssence(essence)) {
    const json = plan.media.find((media) => media.kind === "json");
    if (json) return json;
  }
  const wildcard = plan.media.find((media) => media.kind === null && wildcardMatches(media.essence, essence));
  // What a browser's fetch labels a string body: JSON as chanfana reads it, where the route allows.
  return wildcard ?? (essence === TEXT_PLAIN ? plan.plainTextAs : null);
}

/** Whether the request has no body, reading at most its first bytes to find out. */
async function isEmpty(incoming: IncomingRequest, contentType: string | null, length: number | null): Promise<boolean> {
  // A declared length answers without touching the stream (on @hono/node-server, touching it builds
  // a web stream that holds the socket paused, so the server could no longer drain the refused body).
  if (length !== null) return length === 0;
  const body = incoming.stream(contentType);
  if (body === null) return true;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) return true;
    if (value.byteLength > 0) {
      discardRest(reader);
      return false;
    }
  }
}

function groupForm(text: string): FormValues {
  const form: FormValues = new Map();
  eachUrlEncoded(text, (key, value) => {
    if (key === "__proto__") throw forbiddenProtoKey();
    group(form, key, value);
  });
  return form;
}

/** Adds one value under its name, keeping arrival order. */
function group(form: FormValues, key: string, value: unknown): void {
  const values = form.get(key);
  if (values) values.push(value);
  else form.set(key, [value]);
}
