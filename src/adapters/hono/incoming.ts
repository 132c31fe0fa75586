import type { Context } from "hono";
import {
  bodyReadFailed,
  bodyTooLarge,
  type IncomingRequest,
  type MultipartEntry,
  multipartBlob,
} from "../../core/request/incoming";
import { NodeBackedIncoming } from "../node-request";

/** Hono's cache of read bodies on its request wrapper (`c.req.bodyCache`), keyed by body method. */
type BodyCache = Record<string, Promise<unknown> | undefined>;

/** A body a middleware already read through `c.req`: its bytes, or the parts of a multipart form. */
type CachedBody = { bytes: Uint8Array; parts?: undefined } | { bytes?: undefined; parts: MultipartEntry[] };

const encoder = new TextEncoder();

/** A Hono call's request, as the core reads it (the router core's `incomingOf`). */
export function honoIncoming(args: unknown[]): HonoIncoming {
  return new HonoIncoming(args);
}

/**
 * A Hono call's request. Once specroute has read the body, `c.req.raw` is the request the core hands
 * back, whose body reads again (see `keep`), so `c.req.raw.json()`, `clone()`, `body` and Hono's own
 * `c.req.json()`, `c.req.parseBody()` and the rest read it as it arrived. The platform Request is
 * never altered. A body a middleware read through `c.req` first is read from Hono's body cache.
 */
export class HonoIncoming extends NodeBackedIncoming implements IncomingRequest {
  readonly request: Request;
  private readonly c: Context;
  /** What a middleware read through `c.req` before the endpoint; specroute then reads that copy. */
  private cached: Promise<CachedBody> | undefined;

  constructor(readonly args: unknown[]) {
    super();
    this.c = args[0] as Context;
    this.request = this.c.req.raw;
  }

  protected bindings(): unknown {
    return this.c.env;
  }

  urlParams(): Record<string, string | undefined> {
    return this.c.req.param() as Record<string, string | undefined>;
  }

  parsedQuery(): undefined {
    return undefined;
  }

  readBytes(limit: number, length: number | null, contentType: string | null): Promise<Uint8Array | null> {
    const cached = this.fromCache(contentType);
    if (cached === undefined) return this.readOwnBytes(limit, length);
    return cached.then((body) => {
      const bytes = body.bytes ?? encoder.encode(new URLSearchParams(partsAsStrings(body.parts)).toString());
      if (bytes.byteLength > limit) throw bodyTooLarge(limit);
      return bytes;
    });
  }

  stream(contentType: string | null): ReadableStream<Uint8Array> | null {
    const cached = this.fromCache(contentType);
    if (cached === undefined) return this.request.body;
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        const body = await cached;
        const bytes = body.bytes ?? new Uint8Array(await multipartBlob(body.parts, contentType ?? "").arrayBuffer());
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
    });
  }

  keep(again: Request): void {
    // A public field of Hono's request wrapper, which apps read and assign; c.req.json() and the rest read through it.
    this.c.req.raw = again;
  }

  /** The body a middleware read through `c.req`, when one did; undefined when the body is unread. */
  private fromCache(contentType: string | null): Promise<CachedBody> | undefined {
    if (this.cached !== undefined) return this.cached;
    const cache = this.c.req.bodyCache as BodyCache;
    for (const key of CACHE_KEYS) {
      const read = cache[key];
      if (read === undefined) continue;
      // The middleware's read of a body cut off part-way fails as specroute's own read would.
      this.cached = read.then((value) => cachedBody(value, contentType), bodyReadFailed);
      return this.cached;
    }
    return undefined;
  }
}

/** Which of Hono's cached reads to take, most exact first. */
const CACHE_KEYS = ["arrayBuffer", "text", "blob", "json", "formData"] as const;

async function cachedBody(value: unknown, contentType: string | null): Promise<CachedBody> {
  if (typeof value === "string") return { bytes: encoder.encode(value) };
  if (value instanceof ArrayBuffer) return { bytes: new Uint8Array(value) };
  if (value instanceof Blob) return { bytes: new Uint8Array(await value.arrayBuffer()) };
  if (value instanceof FormData) {
    const parts = [...value].map(([name, part]) => ({ name, value: part }));
    if (contentType !== null && /^\s*multipart\/form-data/i.test(contentType)) return { parts };
    return { bytes: encoder.encode(new URLSearchParams(partsAsStrings(parts)).toString()) };
  }
  // A parsed JSON value: written back as JSON, as Hono itself does to serve another method.
  return { bytes: encoder.encode(JSON.stringify(value)) };
}

function partsAsStrings(parts: readonly MultipartEntry[]): Array<[string, string]> {
  return parts.map(({ name, value }) => [name, typeof value === "string" ? value : (value?.name ?? "")]);
}
