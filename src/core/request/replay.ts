import type { ReadBodyCopy } from "./incoming";
import { multipartBlob } from "./multipart";

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
