// What the core reads of a request, and what an adapter needs to implement that over its router's request:
// the one module of core/request the adapters import (the dependency rules hold them to it).
import { readBodyBytes } from "./body";

export { bodyReadFailed, bodyTooLarge, concatBytes, cutOffError, isLength, readBodyBytes, requestOf } from "./body";
export { type MultipartEntry, multipartBlob } from "./multipart";

/**
 * One request as the core reads it. Each adapter implements it over what its router hands a handler,
 * reading only what the route declares, without building objects the request does not need.
 */
export interface IncomingRequest {
  /** The fetch Request: what authenticators, request ids and documents see. */
  readonly request: Request;
  /** The handler's arguments (Hono: `[c, next]`, itty-router: `[request, env, ctx]`), after `keep()`. */
  readonly args: unknown[];
  /** A header by lower-case name; null when absent. */
  header(name: string): string | null;
  /**
   * The client's address as the runtime serving the request gives it (a socket's peer, Bun's `requestIP`,
   * Deno's `remoteAddr`, `CF-Connecting-IP` on Workers), unparsed. `null` where the runtime serves the
   * request and names no address for it: the client is gone (Node forgets a closed socket's peer) or its
   * connection has none (a Unix socket). Undefined where no runtime value that gives one is at hand (a
   * Request handed to `app.fetch` without it). Never read from a header a client can set.
   */
  clientAddress(): string | null | undefined;
  /** The path parameters the router matched. */
  urlParams(): Record<string, string | undefined>;
  /** The query as the router parsed it (a repeated key as an array); undefined to parse it from the URL. */
  parsedQuery(): Record<string, string | string[] | undefined> | undefined;
  /**
   * The whole body, refused (413) once it passes `limit` bytes; null when the request has none. Called
   * at most once, after the declared `length` (see `declaredLength`) was checked against the limit;
   * `contentType` is the request's, as the body's reader read it.
   */
  readBytes(limit: number, length: number | null, contentType: string | null): Promise<Uint8Array | null>;
  /** The body as a stream, for a body read as it arrives (multipart); null when there is none. */
  stream(contentType: string | null): ReadableStream<Uint8Array> | null;
  /**
   * Takes the request the handler is given in place of `request` once specroute has read its body: one
   * the core built over `request` that reads that body again. The adapter puts it where its router's
   * handler reads the request (Hono's `c.req.raw`, itty-router's first argument).
   */
  keep(again: Request): void;
}

/**
 * A fetch Request read through its own API: what `validateRequest()` reads. The adapters implement
 * `IncomingRequest` themselves, over what their router hands a handler.
 */
export class FetchIncoming implements IncomingRequest {
  constructor(
    readonly request: Request,
    readonly args: unknown[],
    private readonly params: Record<string, string | undefined> = {},
  ) {}

  header(name: string): string | null {
    return this.request.headers.get(name);
  }

  /** None: what `validateRequest()` reads is never counted against a rate limit. */
  clientAddress(): undefined {
    return undefined;
  }

  urlParams(): Record<string, string | undefined> {
    return this.params;
  }

  parsedQuery(): Record<string, string | string[] | undefined> | undefined {
    return undefined;
  }

  readBytes(limit: number, length: number | null): Promise<Uint8Array | null> {
    return readBodyBytes(this.request, length, limit);
  }

  stream(): ReadableStream<Uint8Array> | null {
    return this.request.body;
  }

  keep(_again: Request): void {}
}
