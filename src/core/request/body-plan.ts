// A route's body: the media types it may come in (compiled once), the one a request chose, read and
// parsed, and the copy the handler's request reads again. Reading bytes, bounded, is body.ts's.
import { z } from "zod";
import { invalidField, UnsupportedMediaTypeException } from "../../errors/exceptions";
import { type FileConstraints, type ScalarKind, type StandardJsonSchema, seam, standardSchemaOf } from "../../schema";
import type { OpenAPIRouteSchema } from "../schema-types";
import { declaredLength, declaredTooLarge, decodeUtf8, discardRest, forbiddenProtoKey, parseJsonBody } from "./body";
import type { IncomingRequest, ReadBodyCopy } from "./incoming";
import { multipartBlob, multipartFormData, readMultipart } from "./multipart";
import { eachUrlEncoded } from "./urlencoded";

/** How a body of one media type is read: JSON, a URL-encoded form, or multipart form data. */
type MediaKind = "json" | "form" | "multipart";

/** A member of a form body: how its string values are coerced, and its limits when it holds files. */
interface FormField {
  key: string;
  scalar: ScalarKind;
  array: boolean;
  file: FileConstraints | null;
}

/** One declared media type of a request body, compiled at registration. */
export interface MediaPlan {
  /** How it is read; null for a declared type specroute leaves unread for `handle()` to read. */
  kind: MediaKind | null;
  /** The media type as declared. */
  mediaType: string;
  /** Its lower-case `type/subtype`, parameters dropped. */
  essence: string;
  schema: z.ZodType;
  /** The schema as a Standard Schema when another library validates it (valibot, ArkType), else null (zod). */
  standard: StandardJsonSchema | null;
  required: boolean;
  /** Declared members of a form body, or null when its schema is not an object we can see into. */
  fields: FormField[] | null;
  /** The same members by name, for the multipart reader's per-part limits. */
  fieldsByName: ReadonlyMap<string, FormField>;
  known: ReadonlySet<string>;
}

/** Every media type a route's body may come in. */
export interface BodyPlan {
  media: MediaPlan[];
  /** The declared media types, for messages: "application/json, multipart/form-data". */
  accepted: string;
  /** Whether a request without a body is refused. */
  required: boolean;
  /**
   * The declared JSON a `text/plain` body is read as when no declared type takes it, as chanfana reads
   * any body as JSON; null when the route refuses it (see `withPlainText`).
   */
  plainTextAs: MediaPlan | null;
  /**
   * Why the route refuses a JSON body sent as `text/plain` or without a Content-Type (both reach it from
   * another site with the user's credentials), for the 415's message; null where it reads them.
   */
  plainTextRefused: string | null;
}

/** Whether a route reads a `text/plain` body as its JSON: yes, or no (`because`, a clause for the 415). */
export type PlainTextRule = { read: true } | { read: false; because: string };

/** Values of a form body grouped by name, in arrival order; `undefined` marks a dropped file. */
export type FormValues = Map<string, unknown[]>;

/** What reading a body gave: the media type it matched (null when there was no body) and its value. */
export type ReadBody = (
  | { media: MediaPlan | null; value: unknown; form?: undefined }
  | { media: MediaPlan; value?: undefined; form: FormValues | undefined }
) & {
  /** The bytes of a JSON or form body, as sent (what an idempotency key's fingerprint hashes). */
  bytes?: Uint8Array;
};

const FORM = "application/x-www-form-urlencoded";
const ANY_VALUE: z.ZodType = z.unknown();
const MULTIPART = "multipart/form-data";
const TEXT = "text/plain";

/** Compiles `schema.request.body`; null when it declares no media type specroute reads. */
export function compileBodyPlan(schema: OpenAPIRouteSchema): BodyPlan | null {
  const body = schema.request?.body;
  if (!body?.content) return null;
  const media: MediaPlan[] = [];
  for (const [mediaType, config] of Object.entries(body.content)) {
    if (!config?.schema) continue;
    const essence = essenceOf(mediaType);
    const kind = kindOf(essence);
    // A plain JSON Schema object is documented as written and lets any value through, as in chanfana.
    const schema = seam.isSchema(config.schema) ? config.schema : ANY_VALUE;
    const plain = schema === ANY_VALUE;
    const shape = kind === "form" || kind === "multipart" ? seam.objectShape(schema) : null;
    const fields = shape
      ? Object.entries(shape).map(([key, member]) => ({
          key,
          ...seam.fieldKind(member),
          file: seam.fileConstraints(member),
        }))
      : null;
    media.push({
      kind,
      mediaType,
      essence,
      schema,
      standard: standardSchemaOf(schema),
      required: body.required ?? (plain || !seam.acceptsUndefined(schema)),
      fields,
      fieldsByName: new Map(fields?.map((field) => [field.key, field])),
      known: new Set(fields?.map((field) => field.key) ?? []),
    });
  }
  if (!media.some((plan) => plan.kind !== null)) return null;
  const plan: BodyPlan = {
    media,
    accepted: media.map((plan) => plan.mediaType).join(", "),
    required: media.some((plan) => plan.required),
    plainTextAs: null,
    plainTextRefused: null,
  };
  return withPlainText(plan, { read: true });
}

/**
 * `plan` reading a `text/plain` body by `rule`: as its declared JSON, or refused with a 415. Only a plan
 * that declares JSON, and no type that takes `text/plain` itself, has such a body to read.
 */
export function withPlainText(plan: BodyPlan, rule: PlainTextRule): BodyPlan {
  const json = plan.media.find((media) => media.kind === "json");
  const taken = plan.media.some((media) => media.essence === TEXT || wildcardMatches(media.essence, TEXT));
  if (json === undefined || taken) return plan;
  const plainTextAs = rule.read ? json : null;
  const plainTextRefused = rule.read ? null : rule.because;
  if (plan.plainTextAs === plainTextAs && plan.plainTextRefused === plainTextRefused) return plan;
  return { ...plan, plainTextAs, plainTextRefused };
}

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
  incoming.keep({ text, bytes, contentType });
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
  incoming.keep({ parts: entries ?? [], contentType });
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
    plan.plainTextRefused !== null && essenceOf(contentType) === TEXT
      ? `; it does not read ${TEXT} as JSON, because ${plan.plainTextRefused} and a form on another site can post ${TEXT} with the user's credentials`
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
  return wildcard ?? (essence === TEXT ? plan.plainTextAs : null);
}

function kindOf(essence: string): MediaKind | null {
  if (isJsonEssence(essence)) return "json";
  if (essence === FORM) return "form";
  if (essence === MULTIPART) return "multipart";
  return null;
}

/** A media type's lower-case `type/subtype`, parameters dropped. */
export function essenceOf(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/** Whether an essence is JSON: `application/json` or any `application/*+json`. */
export function isJsonEssence(essence: string): boolean {
  return essence === "application/json" || (essence.startsWith("application/") && essence.endsWith("+json"));
}

/** `*\/*` and `image/*` declared types match any type, or any subtype. */
function wildcardMatches(declared: string, given: string): boolean {
  if (declared === "*/*") return true;
  return declared.endsWith("/*") && given.startsWith(declared.slice(0, -1));
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
    const { done, value } = await reader.read();
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
export function group(form: FormValues, key: string, value: unknown): void {
  const values = form.get(key);
  if (values) values.push(value);
  else form.set(key, [value]);
}

// The body as the handler reads it: a Request of specroute's own that reads the copy again.

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
export function blobOf(body: ReadBodyCopy): Blob {
  return body.parts
    ? multipartBlob(body.parts, body.contentType)
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
    if (copy.parts) return multipartFormData(copy.parts);
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
