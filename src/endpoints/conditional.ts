/**
 * Conditional requests (RFC 9110 §13) for the auto endpoints: entity tags, the `If-Match` and
 * `If-None-Match` headers, and what an opted-in endpoint documents. Nothing here runs for an endpoint
 * that did not opt in.
 */
import { z } from "zod";
import type { ResponseConfig } from "../core/schema-types";
import { invalidField, PreconditionFailedException, PreconditionRequiredException } from "../errors/exceptions";

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
// Written as literals (not built with `new RegExp` at load) so a bundle that reads none of them drops them.
const TAG = /(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"/g;
// `*`, or a comma-separated list of entity tags (Headers joins repeated fields with ", ").
const TAG_LIST = /^(?:\*|(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"(?:[ \t]*,[ \t]*(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*")*)$/;
const STRONG_TAG = /^"[\x21\x23-\x7E\x80-\xFF]*"$/;

const TAG_LIST_MESSAGE = 'must be * or a comma-separated list of quoted entity tags, e.g. "v2", W/"x"';

/**
 * A sent `If-Match` / `If-None-Match` value checked against the list syntax: undefined when not sent
 * (or empty), a 400 naming the header when malformed.
 *
 * @example
 * checkedTagList('"v2", W/"x"', "If-Match") // '"v2", W/"x"'
 */
export function checkedTagList(sent: string, name: string): string | undefined {
  if (sent === "") return undefined;
  if (!TAG_LIST.test(sent)) throw invalidField(TAG_LIST_MESSAGE, ["headers", name]);
  return sent;
}

/** The `If-Match` request header as an opted-in Update or Delete declares it. */
export function ifMatchHeader(required: boolean) {
  return z
    .string()
    .regex(TAG_LIST, TAG_LIST_MESSAGE)
    .optional()
    .describe(
      `Write only if the stored object's ETag is one of these (strong comparison), or \`*\` for any; otherwise 412 and nothing is written.${required ? " Required: without it the answer is 428." : ""}`,
    );
}

/** The `If-None-Match` request header as an opted-in Read declares it. */
export function ifNoneMatchHeader() {
  return z
    .string()
    .regex(TAG_LIST, TAG_LIST_MESSAGE)
    .optional()
    .describe("Answer 304 without a body when the object's ETag is one of these (weak comparison), or `*` for any.");
}

/** A parsed `If-Match` / `If-None-Match` value: `*`, or the listed tags as sent (`W/"x"`, `"y"`). */
export type EntityTagList = "*" | string[];

/**
 * The tags of a header value already checked against the list syntax.
 *
 * @example
 * parseEntityTags('"a", W/"b"') // ['"a"', 'W/"b"']
 */
export function parseEntityTags(value: string): EntityTagList {
  return value.trim() === "*" ? "*" : (value.match(TAG) ?? []);
}

/** Strong comparison (RFC 9110 §8.8.3.2): both tags strong and their opaque parts equal. */
export function strongMatch(list: EntityTagList, current: string): boolean {
  return list === "*" || list.includes(current);
}

/** Weak comparison: the opaque parts equal, whether either tag is weak or not. */
export function weakMatch(list: EntityTagList, current: string): boolean {
  if (list === "*") return true;
  const opaque = current.startsWith("W/") ? current.slice(2) : current;
  return list.some((tag) => (tag.startsWith("W/") ? tag.slice(2) : tag) === opaque);
}

/** Checks a tag an endpoint's `etag()` produced: a strong entity tag, quotes included. */
export function assertStrongTag(tag: string): string {
  if (!STRONG_TAG.test(tag)) throw new TypeError(`etag() must return a strong entity tag in quotes, got ${tag}`);
  return tag;
}

/**
 * The default strong ETag of a stored object: `"v<n>"` from its version column when the model names
 * one, else the first 128 bits of SHA-256 (Web Crypto, on every runtime) over a canonical JSON encoding
 * of the object (keys sorted, dates as ISO text, bigints tagged), base64url.
 *
 * @example
 * await entityTagOf({ id: 1, version: 3 }, "version") // '"v3"'
 */
export async function entityTagOf(obj: object, versionField?: string): Promise<string> {
  if (versionField !== undefined) {
    const version = (obj as Record<string, unknown>)[versionField];
    return `"v${version === null || version === undefined ? 0 : String(version)}"`;
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(obj)));
  return `"${base64url(new Uint8Array(digest, 0, 16))}"`;
}

/**
 * A deterministic JSON text of a value: object keys sorted, `undefined` members left out, Dates as
 * ISO strings, bigints as `"<digits>n"` strings.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return JSON.stringify(`${value}n`);
  if (value instanceof Date) return JSON.stringify(Number.isNaN(value.getTime()) ? null : value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (ArrayBuffer.isView(value))
    return canonicalJson(Array.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)));
  if (typeof value === "object") {
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const etagHeader = { description: "Strong entity tag of the object as stored", schema: { type: "string" } };

/** A success response config with the `ETag` header documented. */
export function withETagHeader(config: ResponseConfig): ResponseConfig {
  return { ...config, headers: { ...(config.headers as Record<string, unknown> | undefined), ETag: etagHeader } };
}

/** The 304 an opted-in Read answers when `If-None-Match` matches. */
export const notModifiedResponse: Record<string, ResponseConfig> = {
  "304": {
    description: "Not Modified: the object's ETag is one If-None-Match lists; no body",
    headers: { ETag: etagHeader },
  },
};

/** The 412 (and, when `If-Match` is required, 428) an opted-in Update or Delete answers. */
export function preconditionResponses(required: boolean): Record<string, ResponseConfig> {
  const failed = Object.values(PreconditionFailedException.schema())[0]!;
  const responses: Record<string, ResponseConfig> = {
    "412": {
      ...failed,
      description: "Precondition Failed: If-Match does not match the stored object, or it is gone; nothing was written",
    },
  };
  if (required) {
    const missing = Object.values(PreconditionRequiredException.schema())[0]!;
    responses["428"] = { ...missing, description: "Precondition Required: send If-Match with the object's ETag" };
  }
  return responses;
}

/** A 304 Not Modified carrying the current tag, without a body. */
export function notModified(tag: string): Response {
  return new Response(null, { status: 304, headers: { ETag: tag } });
}
