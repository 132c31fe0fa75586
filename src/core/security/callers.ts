import type { RouteSecurity } from "./security";

/**
 * Tells one caller of a route from another by the credentials that authenticated the request: the
 * scheme's name and what its `caller` reads (`["bearerAuth","<token>"]`), or undefined when the request
 * carries none.
 */
export type CallerCredentials = (request: Request) => string | undefined;

/**
 * Who sent a request to a route, as its enforced schemes tell it: the first scheme whose credentials the
 * request carries (as authentication takes the first that finds credentials). Undefined on a route
 * without authentication. Throws when a scheme has no `caller` (an `Authenticator` of the app's own).
 *
 * @example
 * callerCredentials(RouteSecurity.of({ auth: bearerAuth({ verify }) }))!(request); // '["bearerAuth","<token>"]'
 */
export function callerCredentials(security: RouteSecurity): CallerCredentials | undefined {
  const { enforced } = security;
  if (enforced.length === 0) return undefined;
  const silent = enforced.find((authenticator) => typeof authenticator.caller !== "function");
  if (silent !== undefined) {
    throw new Error(`security scheme "${silent.schemeName}" does not tell its callers apart (it has no caller())`);
  }
  return (request) => {
    for (const authenticator of enforced) {
      const credential = authenticator.caller!(request);
      // As JSON, so no scheme name and credential read as another pair.
      if (credential !== undefined) return JSON.stringify([authenticator.schemeName, credential]);
    }
    return undefined;
  };
}
