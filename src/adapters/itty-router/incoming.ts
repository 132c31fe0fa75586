import { type IncomingRequest, requestOf } from "../../core/request/incoming";
import { NodeBackedIncoming } from "../node-request";

/** A request as itty-router hands it to handlers: the fetch Request with `params` and `query`. */
export type IttyRequest = Request & { params?: Record<string, string>; query?: Record<string, string | string[]> };

/** An itty-router call's request, as the core reads it (the router core's `incomingOf`). */
export function ittyIncoming(args: unknown[]): IttyIncoming {
  return new IttyIncoming(args);
}

/**
 * An itty-router call's request: read through the fetch Request (the query as itty-router parsed it).
 * Once specroute has read the body, the handler gets the request the core hands back in its place, which
 * reads that body again (see `keep`); the platform Request is never altered.
 */
export class IttyIncoming extends NodeBackedIncoming implements IncomingRequest {
  readonly request: Request;
  args: unknown[];

  constructor(args: unknown[]) {
    super();
    this.args = args;
    this.request = requestOf(args[0]);
  }

  protected bindings(): unknown {
    return this.args[1];
  }

  urlParams(): Record<string, string | undefined> {
    return ittyUrlParams(this.args);
  }

  /** itty-router has parsed the query string into `request.query` already: validation reads that, not the URL again. */
  parsedQuery(): Record<string, string | string[] | undefined> | undefined {
    const { query } = this.args[0] as { query?: unknown };
    // Its own object (null prototype, as itty-router 5 and 6 make it); anything else is parsed from the URL.
    return typeof query === "object" && query !== null && Object.getPrototypeOf(query) === null
      ? (query as Record<string, string | string[] | undefined>)
      : undefined;
  }

  readBytes(limit: number, length: number | null): Promise<Uint8Array | null> {
    return this.readOwnBytes(limit, length);
  }

  stream(): ReadableStream<Uint8Array> | null {
    return this.request.body;
  }

  keep(again: Request): void {
    this.args = [again, ...this.args.slice(1)];
  }
}

/** itty-router leaves path parameters percent-encoded; they are decoded as Hono does (malformed ones kept as sent). */
export function ittyUrlParams(args: unknown[]): Record<string, string | undefined> {
  const request = args[0] as IttyRequest;
  const { params } = request;
  if (!params) return {};
  // Nothing to decode in a URL without a percent sign: the router's own object is read as it is.
  if (!request.url.includes("%")) return params;
  let decoded: Record<string, string | undefined> | undefined;
  for (const key in params) {
    const value = params[key];
    if (value === undefined || !value.includes("%")) continue;
    // Copied only when something needs decoding: validation never writes to the router's own object.
    decoded ??= { ...params };
    decoded[key] = decodeParam(value);
  }
  return decoded ?? params;
}

/** A percent-encoded path parameter, decoded; a malformed one is kept as sent. */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
