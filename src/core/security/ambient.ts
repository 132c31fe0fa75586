import type { SecurityRequirement } from "./auth";
import type { RouteSecurity } from "./security";

/** What a router's document says about security: the schemes it names, and its document-wide `security`. */
export interface SecurityDocument {
  components?: { securitySchemes?: Record<string, unknown> };
  security?: SecurityRequirement[];
}

/**
 * Why a browser would send the credentials of a route's security on its own, with any request to it
 * (a form posted from another site included): the reason as a clause, or null when it would not. Reads
 * the enforced authenticators, then the schemes the documented requirements name (the route's own, else
 * each router's document-wide `security`), looked up in the authenticators and in `documents`. A name
 * found nowhere counts, since it may be a cookie.
 *
 * @example
 * ambientCredential(RouteSecurity.of({ auth: apiKeyAuth({ in: "cookie", name: "sid", verify }) }), []);
 * // 'its security reads the "sid" cookie'
 */
export function ambientCredential(security: RouteSecurity, documents: readonly SecurityDocument[]): string | null {
  for (const { scheme } of security.enforced) {
    const credential = ambientIn(scheme);
    if (credential !== null) return `its security ${credential}`;
  }
  const requirements = security.documented ?? documents.flatMap((document) => document.security ?? []);
  for (const name of new Set(requirements.flatMap((requirement) => Object.keys(requirement)))) {
    const schemes = [
      ...security.enforced.filter((one) => one.schemeName === name).map((one) => one.scheme),
      ...documents.flatMap((document) => document.components?.securitySchemes?.[name] ?? []),
    ];
    if (schemes.length === 0) return `its security names "${name}", a scheme it declares nowhere specroute can see`;
    for (const scheme of schemes) {
      const credential = ambientIn(scheme);
      if (credential !== null) return `its security ${credential}`;
    }
  }
  return null;
}

// HTTP schemes whose credentials a browser caches and sends again by itself, by lower-case name.
const BROWSER_HTTP_SCHEMES = new Map([
  ["basic", "Basic"],
  ["digest", "Digest"],
  ["negotiate", "Negotiate"],
  ["ntlm", "NTLM"],
]);

/** What a Security Scheme Object makes a browser send on its own, as a verb phrase; null for nothing. */
function ambientIn(scheme: unknown): string | null {
  const { type, in: where, name, scheme: http } = (scheme ?? {}) as Record<string, unknown>;
  if (type === "apiKey" && (where === "header" || where === "query")) return null;
  if (type === "apiKey" && where === "cookie") return `reads the "${name}" cookie`;
  if (type === "http") {
    const browser = BROWSER_HTTP_SCHEMES.get(String(http).toLowerCase());
    return browser === undefined ? null : `accepts HTTP ${browser} credentials`;
  }
  if (type === "mutualTLS") return "accepts a TLS client certificate";
  if (type === "oauth2" || type === "openIdConnect") return null;
  // A `$ref` or anything else specroute cannot read may be a cookie.
  return "names a scheme specroute cannot read";
}
