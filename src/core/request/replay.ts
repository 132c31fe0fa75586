import type { ReadBodyCopy } from "./incoming";
import { multipartBlob, multipartFormData } from "./multipart";

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
