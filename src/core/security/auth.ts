import { UnauthorizedException } from "../../errors/exceptions";

/** An OpenAPI Security Requirement Object: scheme name → required scopes. */
export type SecurityRequirement = Record<string, string[]>;

/** An OpenAPI Security Scheme Object, as listed under `components.securitySchemes`. */
export interface SecuritySchemeObject {
  type: "apiKey" | "http" | "mutualTLS" | "oauth2" | "openIdConnect";
  description?: string;
  [key: string]: unknown;
}

/** What a verify function gets besides the credentials. */
export interface AuthContext {
  request: Request;
  /** The arguments the router passed for this request: Hono `[context]`, itty-router `[request, env, ctx]`. */
  // any: their types depend on the adapter the route is registered on.
  args: any[];
}

/**
 * Checks one security scheme on a request and declares that scheme for the document. Made by
 * `bearerAuth`, `basicAuth` and `apiKeyAuth`; implement it yourself for another kind of credential.
 */
export interface Authenticator<P = unknown> {
  /** Name of the scheme under `components.securitySchemes`. */
  readonly schemeName: string;
  /** The Security Scheme Object the document lists. */
  readonly scheme: SecuritySchemeObject;
  /** The `WWW-Authenticate` challenge sent when the request carries no credentials for this scheme. */
  readonly challenge: string;
  /** What a client must send, for the 401 message: "a bearer token in the Authorization header". */
  readonly expects: string;
  /**
   * The principal, or `undefined` when the request carries no credentials for this scheme. Throws an
   * `UnauthorizedException` (with its own `WWW-Authenticate`) for malformed or invalid credentials,
   * and whatever the verify function throws (a `ForbiddenException` for 403).
   */
  authenticate(request: Request, ctx: AuthContext): Promise<P | undefined>;
}

/** `auth` of a route or router: one authenticator, or alternatives tried in order. */
export type AuthOption = Authenticator<any> | readonly Authenticator<any>[];

/**
 * Runs the authenticators in order: the first that finds credentials decides (its principal, or its
 * error). When none finds any, the answer is a 401 challenging with every scheme.
 */
export async function authenticate(
  authenticators: readonly Authenticator<any>[],
  request: Request,
  ctx: AuthContext,
): Promise<unknown> {
  for (const authenticator of authenticators) {
    const principal = await authenticator.authenticate(request, ctx);
    if (principal !== undefined) return principal;
  }
  throw unauthorized(
    `Missing credentials: send ${authenticators.map((authenticator) => authenticator.expects).join(", or ")}`,
    authenticators.map((authenticator) => authenticator.challenge).join(", "),
  );
}

/** A 401 carrying its `WWW-Authenticate` challenge. */
export function unauthorized(message: string, challenge: string): UnauthorizedException {
  const exception = new UnauthorizedException(message);
  exception.headers = { "www-authenticate": challenge };
  return exception;
}
