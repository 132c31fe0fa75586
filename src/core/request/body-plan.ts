import { z } from "zod";
import { InputValidationException, UnsupportedMediaTypeException } from "../../errors/exceptions";
import { type FileConstraints, type ScalarKind, seam } from "../../schema";
import type { OpenAPIRouteSchema } from "../schema-types";
import { declaredLength, declaredTooLarge, decodeUtf8, discardRest, forbiddenProtoKey, parseJsonBody } from "./body";
import type { IncomingRequest } from "./incoming";
import { readMultipart } from "./multipart";
import { isRequestLike } from "./request-like";

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
   * another site with the user's credentials), for the 415's message; null to say nothing more.
   */
  plainTextRefused: string | null;
}

/** Whether a route reads a `text/plain` body as its JSON: yes, or no (`because`, a clause for the 415). */
export type PlainTextRule = { read: true } | { read: false; because?: string };

/** Values of a form body grouped by name, in arrival order; `undefined` marks a dropped file. */
export type FormValues = Map<string, unknown[]>;

/** What reading a body gave: the media type it matched (null when there was no body) and its value. */
export type ReadBody =
  | { media: MediaPlan | null; value: unknown; form?: undefined }
  | { media: MediaPlan; value?: undefined; form: FormValues | undefined };

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
  const plainTextRefused = rule.read ? null : (rule.because ?? null);
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
  if (media.kind === "json") return { media, value: text === "" ? undefined : parseJsonBody(text) };
  return { media, form: text === "" ? undefined : groupForm(new URLSearchParams(text)) };
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
    throw new InputValidationException(`Request body is not valid JSON: ${(err as Error)?.message}`, ["body"]);
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

function groupForm(params: URLSearchParams): FormValues {
  const form: FormValues = new Map();
  for (const [key, value] of params) {
    if (key === "__proto__") throw forbiddenProtoKey();
    group(form, key, value);
  }
  return form;
}

/** Adds one value under its name, keeping arrival order. */
export function group(form: FormValues, key: string, value: unknown): void {
  const values = form.get(key);
  if (values) values.push(value);
  else form.set(key, [value]);
}
