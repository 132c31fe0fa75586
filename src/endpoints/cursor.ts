import type { z } from "zod";
import { InputValidationException } from "../errors/exceptions";
import { membersOf, seam } from "../schema";
import type { ResolvedMeta } from "./meta";
import { bareField } from "./schema-helpers";
import type { FilterCondition, ListCursor, OrderByDirection } from "./types";

/** How a list endpoint pages: by page number (chanfana's, the default), by cursor, or both. */
export type Pagination = "page" | "cursor" | "both";

/** The order a listing follows, as a cursor is bound to it: a field (or none: primary keys) and a direction. */
export interface ListOrder {
  field: string | undefined;
  direction: OrderByDirection;
}

const VERSION = 1;

/** Checks one decoded key value against its field, as a filter value on that field is checked. */
interface KeyField {
  name: string;
  /** The field's schema without optional/default/nullable wrappers (what a filter on it accepts). */
  value: z.ZodType;
  nullable: boolean;
}

/**
 * Turns the last (or first) object of a page into an opaque cursor and a cursor back into the key
 * it names, for one list endpoint: compiled at registration from the model, used per request.
 *
 * A cursor is base64url JSON `[version, "n"|"p", tag, [order value?, ...primary key values]]`. It is
 * not signed: every value is checked against its field's schema, so any cursor that decodes names a
 * well-typed position in the same listing, and `tag` (a hash of the order and the filters) binds it to
 * the request it was made for.
 */
export class CursorCodec {
  readonly #fields: ReadonlyMap<string, KeyField>;
  readonly #primaryKeys: readonly string[];

  constructor(meta: ResolvedMeta, orderByFields: string[]) {
    const fields = new Map<string, KeyField>();
    for (const name of new Set([...meta.model.primaryKeys, ...orderByFields])) {
      const schema = membersOf(meta.columns)[name];
      if (!schema) throw new Error(`Cursor pagination: "${name}" is not a field of the model`);
      const value = bareField(schema);
      if (!seam.isOrderable(value)) {
        throw new Error(`Cursor pagination cannot order on "${name}": its values are not comparable scalars`);
      }
      const isKey = meta.model.primaryKeys.includes(name);
      fields.set(name, { name, value, nullable: !isKey && seam.mayBeNull(schema) });
    }
    this.#fields = fields;
    this.#primaryKeys = [...meta.model.primaryKeys];
  }

  /** The fields a cursor holds, in order: the order field (when there is one), then the primary keys not already named. */
  keyFields(order: ListOrder): string[] {
    const keys = this.#primaryKeys.filter((name) => name !== order.field);
    return order.field === undefined ? keys : [order.field, ...keys];
  }

  /** The cursor naming `row`'s position, to go on past it (`next`) or back before it (`prev`). */
  encode(row: Record<string, unknown>, direction: ListCursor["direction"], order: ListOrder, tag: string): string {
    const values = this.keyFields(order).map((name) => {
      // An optional field left out of an object is its NULL.
      const value = row[name] === undefined && this.#fields.get(name)?.nullable ? null : row[name];
      if (value === undefined) {
        throw new Error(
          `Cursor pagination: a listed object has no "${name}"; list() must return the order field and primary keys`,
        );
      }
      return encodeValue(value);
    });
    return toBase64Url(JSON.stringify([VERSION, direction === "next" ? "n" : "p", tag, values]));
  }

  /**
   * The key a cursor names, or a 400 (`path` names the parameter) for one that does not decode,
   * holds a value its field would refuse, or was made for another order or other filters.
   */
  decode(text: string, order: ListOrder, tag: string, path: string[]): ListCursor {
    const invalid = (message: string) => new InputValidationException(message, path);
    let payload: unknown;
    try {
      payload = JSON.parse(fromBase64Url(text));
    } catch {
      throw invalid("Invalid cursor");
    }
    if (!Array.isArray(payload) || payload.length !== 4 || payload[0] !== VERSION) throw invalid("Invalid cursor");
    const [, way, madeFor, values] = payload as [number, unknown, unknown, unknown];
    if ((way !== "n" && way !== "p") || typeof madeFor !== "string" || !Array.isArray(values)) {
      throw invalid("Invalid cursor");
    }
    if (madeFor !== tag) throw invalid("This cursor belongs to another order or other filters");
    const names = this.keyFields(order);
    if (values.length !== names.length) throw invalid("Invalid cursor");
    const key: Record<string, unknown> = {};
    names.forEach((name, index) => {
      const field = this.#fields.get(name)!;
      const value = decodeValue(values[index]);
      if (value === null) {
        if (!field.nullable) throw invalid("Invalid cursor");
        key[name] = null;
        return;
      }
      const checked = value === INVALID ? undefined : checkedValue(field.value, value);
      if (!checked) throw invalid("Invalid cursor");
      key[name] = checked.value;
    });
    return { direction: way === "n" ? "next" : "prev", key };
  }
}

/**
 * A short hash of the route, the order and the conditions of a listing: what a cursor is bound to.
 * Not a secret (anyone can compute it); it turns a cursor reused with another `order_by`, filter or
 * route into a 400.
 */
export function listingTag(route: string | undefined, order: ListOrder, filters: FilterCondition[]): string {
  const text = JSON.stringify([
    route ?? null,
    order.field ?? null,
    order.direction,
    filters.map((condition) => [condition.field, condition.operator, canonical(condition.value)]),
  ]);
  return hash53(text).toString(36);
}

/**
 * The `Link` header (RFC 8288) of a cursor page: the request's own query with the cursor replaced
 * (and a page number dropped), as a relative reference that resolves against the request URL.
 */
export function linkHeader(
  requestUrl: string,
  cursorParameter: string,
  pageParameter: string,
  links: { next: string | null; prev: string | null },
): string | undefined {
  const parts: string[] = [];
  for (const rel of ["next", "prev"] as const) {
    const cursor = links[rel];
    if (cursor === null) continue;
    const query = new URLSearchParams(new URL(requestUrl).search);
    query.delete(pageParameter);
    query.set(cursorParameter, cursor);
    parts.push(`<?${query}>; rel="${rel}"`);
  }
  return parts.length > 0 ? parts.join(", ") : undefined;
}

const INVALID = Symbol("invalid");

/** JSON for a key value: dates and bigints tagged so they come back as such; plain objects refused. */
function encodeValue(value: unknown): unknown {
  if (value instanceof Date) return { d: value.toISOString() };
  if (typeof value === "bigint") return { n: value.toString() };
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new Error(`Cursor pagination cannot encode a ${typeof value} key value`);
}

function decodeValue(value: unknown): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number") {
    return value;
  }
  if (typeof value !== "object" || Array.isArray(value)) return INVALID;
  const entries = Object.entries(value);
  if (entries.length !== 1 || typeof entries[0]![1] !== "string") return INVALID;
  const [tag, text] = entries[0]! as [string, string];
  if (tag === "d") {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? INVALID : date;
  }
  if (tag === "n" && /^-?\d{1,400}$/.test(text)) return BigInt(text);
  return INVALID;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Date) return { d: value.toISOString() };
  if (typeof value === "bigint") return { n: value.toString() };
  return value ?? null;
}

// cyrb53: a fast 53-bit string hash; collisions only let a mistaken cursor through as a valid position.
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error("not base64url");
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/**
 * `value` as its field's schema yields it, or undefined when the schema refuses it. A schema that only
 * answers asynchronously (an async refinement on a key field) takes it as decoded: the value is bound,
 * never spliced, and the cursor's tag already ties it to this listing.
 */
function checkedValue(schema: z.ZodType, value: unknown): { value: unknown } | undefined {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) return { value };
  return result.issues ? undefined : { value: result.value };
}
