// The headers of a tool call's request: those it takes from the MCP request, and the header parameters
// its arguments may add. What a proxy or gateway put on the MCP request stays as it is.

/**
 * Headers of the MCP request a tool call's request does not carry: hop-by-hop and framing ones, those
 * about the MCP request's own body, answer and cache state, and MCP's own. Everything else (credentials:
 * `Authorization`, `Cookie`, API-key headers; forwarding headers) is the caller's and goes along.
 */
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
  "accept",
  "accept-encoding",
  "range",
  "if-match",
  "if-none-match",
  "if-modified-since",
  "if-unmodified-since",
  "if-range",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

/** Headers a tool call sets itself (`Accept`, the body's `Content-Type`) or that frame a message: never arguments. */
const NOT_ARGUMENTS = new Set([
  "accept",
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
]);

/** RFC 9110's `token`: what a header name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What RFC 9110 lets a field value hold: visible ASCII, space, tab and obs-text (U+0080 to U+00FF). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The MCP request's headers a tool call's request carries, by lower-case name. */
export function forwardedHeaders(mcp: Headers): Headers {
  const headers = new Headers();
  mcp.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name) && !name.startsWith("content-")) headers.set(name, value);
  });
  return headers;
}

/** Whether a tool's arguments may set a declared header parameter named `name` (lower-case). */
export function argumentMaySet(name: string): boolean {
  return TOKEN.test(name) && !NOT_ARGUMENTS.has(name) && !name.startsWith("content-");
}

/** Why `value` cannot be the value of a header, as the end of a sentence about it; undefined when it can. */
export function headerValueProblem(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    return "must be a string, a number or a boolean";
  }
  if (typeof value === "string" && !FIELD_VALUE.test(value)) {
    return "holds a line break, a control character or a character beyond U+00FF, which no header value may";
  }
  return undefined;
}
