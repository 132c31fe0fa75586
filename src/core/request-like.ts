/**
 * The request as specroute reads it. A fetch `Request` is returned as it is; a request-like object
 * (chanfana-style tests pass `{ method, url, json }`) gets real `Headers` built from its `headers`
 * (a plain record, or none), inheriting everything else, so validation never trips over its shape.
 */
export function requestOf(value: unknown): Request {
  const request = value as Request;
  if (typeof request.headers?.get === "function") return request;
  return Object.create(request, { headers: { value: headersOf(request.headers) } }) as Request;
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

/** Whether a request carries no body stream but a `json()` of its own to ask (a request-like, never a fetch Request). */
export function hasJsonMethodOnly(request: Request): boolean {
  return request.body === undefined && typeof request.json === "function";
}
