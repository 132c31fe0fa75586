import { UnauthorizedException } from "../../errors/exceptions";
import type {
  AuthContext,
  Authenticator,
  AuthOption,
  SecurityRequirement,
  SecuritySchemeObject,
} from "../schema-types";

export type { AuthContext, Authenticator, AuthOption, SecurityRequirement, SecuritySchemeObject };

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
