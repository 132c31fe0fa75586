import type { Authenticator } from "./auth";
import type { RouteSecurity } from "./security";

/**
 * Who sent an authenticated request, as the scheme that authenticated it tells (`by`, which
 * `RouteSecurity.authenticate` reports): its name and what its `caller` reads, as JSON
 * (`["bearerAuth","<token>"]`); undefined when `caller` finds nothing.
 */
export type CallerCredentials = (request: Request, by: Authenticator<unknown>) => string | undefined;

/**
 * How a route's callers are told apart: by what the scheme that authenticated each request says of its
 * credentials (a bearer token, an API key, a Basic user and password). Undefined on a route without
 * authentication. Throws, when the route compiles, for a scheme that cannot tell (no `caller`: an
 * `Authenticator` of the app's own).
 *
 * @example
 * const callerOf = callerCredentials(RouteSecurity.of({ auth: bearer }))!;
 * callerOf(request, bearer); // '["bearerAuth","<token>"]'
 */
export function callerCredentials(security: RouteSecurity): CallerCredentials | undefined {
  const { enforced } = security;
  if (enforced.length === 0) return undefined;
  const silent = enforced.find((authenticator) => typeof authenticator.caller !== "function");
  if (silent !== undefined) {
    throw new Error(`security scheme "${silent.schemeName}" does not tell its callers apart (it has no caller())`);
  }
  return readCaller;
}

function readCaller(request: Request, by: Authenticator<unknown>): string | undefined {
  // Stryker disable next-line OptionalChaining: equivalent, callerCredentials refused any authenticator without caller() when the route compiled
  const credential = by.caller?.(request);
  // As JSON, so no scheme name and credential read as another pair.
  return credential === undefined ? undefined : JSON.stringify([by.schemeName, credential]);
}
