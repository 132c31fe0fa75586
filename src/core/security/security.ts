import { type AuthContext, type Authenticator, type AuthOption, type SecurityRequirement, unauthorized } from "./auth";

/** Where a route's security can come from: its own schema, its router, a router it is mounted under. */
export interface SecurityLayer {
  auth?: AuthOption;
  security?: SecurityRequirement[];
}

/**
 * How one route is secured on one mount, resolved once from its layers (innermost first: the route's
 * schema, its router, then each router it is mounted under). Immutable: `within()` gives a new value.
 *
 * @example
 * const own = RouteSecurity.of({ security: [] }); // a public route...
 * own.within({ auth: bearer }).enforced; // []: ...stays public under a router with `auth`
 */
export class RouteSecurity {
  /** The authenticators a request must satisfy: the first layer naming `auth` wins, unless a closer one says `security: []`. */
  readonly enforced: readonly Authenticator<any>[];
  /** The requirements the document shows: the first layer with `security`, or else with `auth`. */
  readonly documented: SecurityRequirement[] | undefined;
  /** Query parameters the enforced authenticators read (API keys in the query string): never unknown parameters. */
  readonly queryKeys: readonly string[];

  private constructor(private readonly layers: readonly SecurityLayer[]) {
    this.enforced = enforcedAuth(layers);
    this.documented = documentedSecurity(layers);
    this.queryKeys = this.enforced.flatMap(({ scheme }) =>
      scheme.type === "apiKey" && scheme.in === "query" ? [String(scheme.name)] : [],
    );
  }

  /** A route's security from its own schema alone. */
  static of(own: SecurityLayer): RouteSecurity {
    return new RouteSecurity([{ auth: own.auth, security: own.security }]);
  }

  /** This security under one more (outer) layer; the same value when the layer declares nothing. */
  within(outer: SecurityLayer): RouteSecurity {
    if (outer.auth === undefined && outer.security === undefined) return this;
    return new RouteSecurity([...this.layers, { auth: outer.auth, security: outer.security }]);
  }

  /**
   * The principal the enforced authenticators verify, and which of them did; `undefined`, with no
   * promise, when none is enforced.
   */
  authenticate(request: Request, args: AuthContext["args"]): Promise<Authenticated> | undefined {
    return this.enforced.length > 0 ? firstToFindCredentials(this.enforced, request, { request, args }) : undefined;
  }

  /** The resolved security as one layer, for a route schema that must read the same on its own. */
  asLayer(): SecurityLayer {
    return {
      auth: this.enforced.length > 0 ? this.enforced : undefined,
      security: this.documented,
    };
  }
}

/** What authentication found: the principal, and the authenticator whose credentials the request carried. */
export interface Authenticated {
  principal: unknown;
  by: Authenticator<unknown>;
}

/**
 * Runs the authenticators in order: the first that finds credentials decides (its principal, or its
 * error). When none finds any, the answer is a 401 challenging with every scheme.
 */
async function firstToFindCredentials(
  authenticators: readonly Authenticator<any>[],
  request: Request,
  ctx: AuthContext,
): Promise<Authenticated> {
  for (const authenticator of authenticators) {
    const principal = await authenticator.authenticate(request, ctx);
    if (principal !== undefined) return { principal, by: authenticator };
  }
  throw unauthorized(
    `Missing credentials: send ${authenticators.map((authenticator) => authenticator.expects).join(", or ")}`,
    authenticators.map((authenticator) => authenticator.challenge).join(", "),
  );
}

/** `auth` as a list of alternatives. */
function authList(auth: AuthOption): readonly Authenticator<any>[] {
  return isAuthList(auth) ? auth : [auth];
}

function isAuthList(auth: AuthOption): auth is readonly Authenticator<any>[] {
  return Array.isArray(auth);
}

function enforcedAuth(layers: readonly SecurityLayer[]): readonly Authenticator<any>[] {
  for (const layer of layers) {
    if (layer.auth !== undefined) return authList(layer.auth);
    // Declaring other `security` never disables auth; only the empty list opts out.
    if (layer.security?.length === 0) return [];
  }
  return [];
}

function documentedSecurity(layers: readonly SecurityLayer[]): SecurityRequirement[] | undefined {
  for (const layer of layers) {
    if (layer.security !== undefined) return layer.security;
    if (layer.auth !== undefined) return authList(layer.auth).map((one) => ({ [one.schemeName]: [] }));
  }
  return undefined;
}
