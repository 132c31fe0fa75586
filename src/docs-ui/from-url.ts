import { redocPage } from "./redoc";
import { swaggerUiPage } from "./swagger-ui";

/**
 * HTML of a Swagger UI page (CDN assets) for the document at `schemaUrl`, chanfana's helper: repeated
 * and trailing slashes in the URL's path are dropped. Build it with `swaggerUiPage` for more options.
 *
 * @example
 * app.get("/docs", () => new Response(getSwaggerUI("/api/openapi.json"), { headers: { "content-type": "text/html" } }));
 */
export function getSwaggerUI(schemaUrl: string): string {
  return swaggerUiPage({ openapiUrl: tidyUrl(schemaUrl) });
}

/**
 * HTML of a ReDoc page (CDN assets) for the document at `schemaUrl`, chanfana's helper: repeated and
 * trailing slashes in the URL's path are dropped. Build it with `redocPage` for more options.
 *
 * @example
 * app.get("/redocs", () => new Response(getReDocUI("/api/openapi.json"), { headers: { "content-type": "text/html" } }));
 */
export function getReDocUI(schemaUrl: string): string {
  return redocPage({ openapiUrl: tidyUrl(schemaUrl) });
}

/** `/api//openapi.json/` → `/api/openapi.json`; the `//` after an absolute URL's scheme is kept. */
function tidyUrl(url: string): string {
  const origin = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? "";
  return origin + url.slice(origin.length).replace(/\/+(\/|$)/g, "$1");
}
