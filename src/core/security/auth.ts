import { UnauthorizedException } from "../../errors/exceptions";
import type {
  AuthContext,
  Authenticator,
  AuthOption,
  SecurityRequirement,
  SecuritySchemeObject,
} from "../schema-types";

export type { AuthContext, Authenticator, AuthOption, SecurityRequirement, SecuritySchemeObject };

/** A 401 carrying its `WWW-Authenticate` challenge. */
export function unauthorized(message: string, challenge: string): UnauthorizedException {
  const exception = new UnauthorizedException(message);
  exception.headers = { "www-authenticate": challenge };
  return exception;
}
