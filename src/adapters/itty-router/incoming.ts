import { readBodyBytes } from "../../core/request/body";
import type { IncomingRequest, ReadBodyCopy } from "../../core/request/incoming";
import { multipartFormData } from "../../core/request/multipart";
import { blobOf, requestWithBody } from "../../core/request/replay";
import { requestOf } from "../../core/request/request-like";
import { type NodeIncomingMessage, nodeHeader, nodeRequestOf, readNodeBody } from "../node-request";

/** What the incoming request needs of the itty-router core. */
interface IttyCore {
  getUrlParams(args: unknown[]): Record<string, string | undefined>;
}

/**
 * An itty-router call's request: read through the fetch Request (the query as itty-router parsed it).
 * Once specroute has read the body, the handler gets a request of specroute's own in its place, which
 * reads that body again (see {@link readAgain}); the platform Request is never altered.
 */
export class IttyIncoming implements IncomingRequest {
  readonly request: Request;
  args: unknown[];
  /** The Node request under it, when @hono/node-server serves the router (see `nodeRequestOf`); looked up when first read. */
  private nodeRequest: NodeIncomingMessage | null | undefined;

  constructor(
    private readonly core: IttyCore,
    args: unknown[],
  ) {
    this.args = args;
    this.request = requestOf(args[0]);
  }

  header(name: string): string | null {
    const node = this.node();
    return node ? nodeHeader(node, name) : this.request.headers.get(name);
  }

  private node(): NodeIncomingMessage | null {
    if (this.nodeRequest === undefined) this.nodeRequest = nodeRequestOf(this.args[1], this.request) ?? null;
    return this.nodeRequest;
  }

  urlParams(): Record<string, string | undefined> {
    return this.core.getUrlParams(this.args);
  }

  /** itty-router has parsed the query string into `request.query` already: validation reads that, not the URL again. */
  parsedQuery(): Record<string, string | string[] | undefined> | undefined {
    const { query } = this.args[0] as { query?: unknown };
    // Its own object (null prototype, as itty-router 5 and 6 make it); anything else is parsed from the URL.
    return typeof query === "object" && query !== null && Object.getPrototypeOf(query) === null
      ? (query as Record<string, string | string[] | undefined>)
      : undefined;
  }

  readBytes(limit: number): Promise<Uint8Array | null> {
    return readNodeBody(this.node()) ?? readBodyBytes(this.request, this.header("content-length"), limit);
  }

  stream(): ReadableStream<Uint8Array> | null {
    return this.request.body;
  }

  keep(body: ReadBodyCopy): void {
    this.args = [readAgain(this.args[0] as Request, body), ...this.args.slice(1)];
  }
}

/** The request's body methods, answering from the body specroute read. */
function bodyMethods(body: ReadBodyCopy): Record<string, unknown> {
  const text = async () => (body.parts ? blobOf(body).text() : body.text);
  return {
    text,
    json: async () => JSON.parse(await text()),
    arrayBuffer: async () => blobOf(body).arrayBuffer(),
    bytes: async () => new Uint8Array(await blobOf(body).arrayBuffer()),
    blob: async () => blobOf(body),
    formData: async () =>
      body.parts
        ? multipartFormData(body.parts)
        : new Response(body.text, { headers: { "content-type": body.contentType ?? "" } }).formData(),
  };
}

/**
 * The request itty-router handed the handler, with a body that reads again: its body methods
 * (`json`, `text`, `arrayBuffer`, `bytes`, `blob`, `formData`, `body`) answer from what specroute read,
 * lazily, and `clone()` makes a Request with every field of the original and that body. Everything else
 * (headers, `params`, what middleware put on it) is the original's.
 */
export function readAgain(request: Request, body: ReadBodyCopy): Request {
  const methods = bodyMethods(body);
  return new Proxy(request, {
    get(target, key) {
      if (typeof key === "string" && Object.hasOwn(methods, key)) return methods[key];
      if (key === "body") return blobOf(body).stream();
      // Every body method answers again, so the body counts as unread.
      if (key === "bodyUsed") return false;
      if (key === "clone") return () => requestWithBody(target, body);
      const value = Reflect.get(target, key, target);
      // The platform's methods check that they run on a real Request: they are called on the original.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
