// Request-like objects requestOf() wrapped; readBody() asks their own json() instead of reading a stream.
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
