import type { ApiException } from "./exceptions";

// An incoming id is echoed into a header, a JSON body and a log line, so only a plain token is taken.
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Whether a failure is one the client cannot be told about (a hidden 5xx, or a 5xx caused by
 * another error): it is logged server-side under a request id the response's `x-request-id` header carries.
 */
export function needsRequestId(exception: ApiException): boolean {
  return exception.status >= 500 && (!exception.isVisible || exception.cause !== undefined);
}

/** The id of a failing request: the client's `x-request-id` when it is a safe token, else a new UUID. */
export function requestIdFor(request: Request | undefined): string {
  // Request-like objects without Headers (chanfana's tests build them) get a new id.
  const incoming = typeof request?.headers?.get === "function" ? request.headers.get("x-request-id") : null;
  return incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
}
