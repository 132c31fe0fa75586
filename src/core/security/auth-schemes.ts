import { parseCookies } from "../request/cookies";
import { type AuthContext, type Authenticator, type SecuritySchemeObject, unauthorized } from "./auth";

/** A verify function: the principal for valid credentials, `null` (or `undefined`) for invalid ones. */
export type Verify<C, P> = (credentials: C, ctx: AuthContext) => P | null | undefined | Promise<P | null | undefined>;

interface CommonOptions {
  /** Name of the scheme under `components.securitySchemes`. */
  schemeName?: string;
  /** Description of the scheme in the document. */
  description?: string;
  /** `realm` of the `WWW-Authenticate` challenge. */
  realm?: string;
}

export interface BearerAuthOptions<P> extends CommonOptions {
  /** Checks the token. Throw a `ForbiddenException` to answer 403. */
  verify: Verify<string, P>;
  /** A hint for the document, e.g. "JWT". */
  bearerFormat?: string;
}

export interface BasicCredentials {
  username: string;
  password: string;
}

export interface BasicAuthOptions<P> extends CommonOptions {
  /** Checks the user name and password. Throw a `ForbiddenException` to answer 403. */
  verify: Verify<BasicCredentials, P>;
}

export interface ApiKeyAuthOptions<P> extends CommonOptions {
  /** Where the key travels. */
  in: "header" | "query" | "cookie";
  /** Name of the header, query parameter or cookie. */
  name: string;
  /** Checks the key. Throw a `ForbiddenException` to answer 403. */
  verify: Verify<string, P>;
}

// RFC 6750 b64token.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Requires `Authorization: Bearer <token>`, checked by `verify`; the scheme is documented as HTTP bearer.
 *
 * @example
 * const bearer = bearerAuth({ verify: async (token) => (await sessions.get(token)) ?? null });
 * class Me extends OpenAPIRoute {
 *   schema = { auth: bearer, responses: {} };
 *   async handle() {
 *     return await this.getPrincipal();
 *   }
 * }
 */
export function bearerAuth<P>(options: BearerAuthOptions<P>): Authenticator<P> {
  const scheme: SecuritySchemeObject = { type: "http", scheme: "bearer" };
  if (options.bearerFormat !== undefined) scheme.bearerFormat = options.bearerFormat;
  if (options.description !== undefined) scheme.description = options.description;
  const realm = options.realm === undefined ? "" : ` realm=${quote(options.realm)}`;
  const challenge = `Bearer${realm}`;
  const fail = (message: string, error: string) =>
    unauthorized(message, `Bearer${realm ? `${realm},` : ""} error="${error}"`);
  return {
    schemeName: options.schemeName ?? "bearerAuth",
    scheme,
    challenge,
    expects: "a bearer token in the Authorization header",
    caller: (request) => authorization(request, "bearer") || undefined,
    async authenticate(request, ctx) {
      const credentials = authorization(request, "bearer");
      if (credentials === undefined) return undefined;
      if (!B64TOKEN.test(credentials)) {
        throw fail('Malformed Authorization header: expected "Bearer <token>"', "invalid_request");
      }
      const principal = await options.verify(credentials, ctx);
      if (principal === null || principal === undefined) throw fail("Invalid bearer token", "invalid_token");
      return principal;
    },
  };
}

/**
 * Requires `Authorization: Basic <base64 of user:password>`, checked by `verify`.
 *
 * @example
 * const basic = basicAuth({
 *   verify: ({ username, password }) => (username === "admin" && password === process.env.ADMIN_PASSWORD ? { username } : null),
 * });
 */
export function basicAuth<P>(options: BasicAuthOptions<P>): Authenticator<P> {
  const scheme: SecuritySchemeObject = { type: "http", scheme: "basic" };
  if (options.description !== undefined) scheme.description = options.description;
  // RFC 7617 requires a realm on Basic challenges.
  const challenge = `Basic realm=${quote(options.realm ?? "api")}, charset="UTF-8"`;
  // Every scheme answers the same Authenticator shape as bearerAuth's; only how it reads and checks credentials differs.
  return {
    schemeName: options.schemeName ?? "basicAuth",
    scheme,
    challenge,
    expects: "a user name and password in the Authorization header (Basic)",
    // The whole credential, as a bearer token or an API key is: clients sharing a user name (`api:<key>`)
    // are told apart by the password, and an empty user name (`-u :<token>`) is a credential like any other.
    caller(request) {
      const encoded = authorization(request, "basic");
      const credentials = encoded === undefined ? null : decodeBasic(encoded);
      return credentials === null ? undefined : `${credentials.username}:${credentials.password}`;
    },
    async authenticate(request, ctx) {
      const encoded = authorization(request, "basic");
      if (encoded === undefined) return undefined;
      const credentials = decodeBasic(encoded);
      if (!credentials) {
        throw unauthorized('Malformed Authorization header: expected "Basic <base64 of user:password>"', challenge);
      }
      const principal = await options.verify(credentials, ctx);
      if (principal === null || principal === undefined) throw unauthorized("Invalid user name or password", challenge);
      return principal;
    },
  };
}

/**
 * Requires an API key in a header, query parameter or cookie, checked by `verify`.
 *
 * @example
 * const apiKey = apiKeyAuth({ in: "header", name: "X-API-Key", verify: (key) => keys.get(key) ?? null });
 */
export function apiKeyAuth<P>(options: ApiKeyAuthOptions<P>): Authenticator<P> {
  const scheme: SecuritySchemeObject = { type: "apiKey", in: options.in, name: options.name };
  if (options.description !== undefined) scheme.description = options.description;
  const realm = options.realm === undefined ? "" : ` realm=${quote(options.realm)},`;
  // API keys have no registered HTTP scheme; this challenge names where the key goes.
  const challenge = `ApiKey${realm} in=${quote(options.in)}, name=${quote(options.name)}`;
  const where = { header: "header", query: "query parameter", cookie: "cookie" }[options.in];
  const read = apiKeyReader(options.in, options.name);
  return {
    schemeName: options.schemeName ?? "apiKeyAuth",
    scheme,
    challenge,
    expects: `an API key in the ${options.name} ${where}`,
    caller: (request) => read(request) || undefined,
    async authenticate(request, ctx) {
      const key = read(request);
      if (key === null || key === "") return undefined;
      const principal = await options.verify(key, ctx);
      if (principal === null || principal === undefined) throw unauthorized("Invalid API key", challenge);
      return principal;
    },
  };
}

function apiKeyReader(location: ApiKeyAuthOptions<unknown>["in"], name: string): (request: Request) => string | null {
  switch (location) {
    case "header":
      return (request) => request.headers.get(name);
    case "query":
      return (request) => new URL(request.url).searchParams.get(name);
    case "cookie":
      return (request) => parseCookies(request.headers.get("cookie")).get(name) ?? null;
  }
}

/**
 * The credentials of an `Authorization` header using `scheme`; undefined when there is no such header
 * or it uses another scheme (another authenticator may accept it).
 */
function authorization(request: Request, scheme: string): string | undefined {
  const header = request.headers.get("authorization");
  if (header === null) return undefined;
  const trimmed = header.trim();
  const space = trimmed.search(/\s/);
  // -1: no white space, so the header is a scheme's name alone.
  const given = space === -1 ? trimmed : trimmed.slice(0, space);
  if (given.toLowerCase() !== scheme) return undefined;
  return space === -1 ? "" : trimmed.slice(space).trim();
}

function decodeBasic(encoded: string): { username: string; password: string } | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  let text: string;
  try {
    const binary = atob(encoded);
    text = utf8.decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return null;
  }
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** An RFC 9110 quoted-string. */
function quote(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}
