import { assetSource, type DocsPageOptions, SWAGGER_UI_INIT_FILE, selfHostedBase } from "./assets";
import { scriptString } from "./escape";
import { htmlDocument, scriptTag, stylesheetTag } from "./page";

/**
 * JavaScript that starts Swagger UI on `#swagger-ui` for the document at `openapiUrl`.
 * A self-hosted page loads it from `<baseUrl>/swagger-ui-init.js` (`SWAGGER_UI_INIT_FILE`), so serve it there.
 *
 * @example
 * app.get("/docs/assets/swagger-ui-init.js", () =>
 *   new Response(swaggerUiInitScript("/openapi.json"), { headers: { "content-type": "text/javascript" } }));
 */
export function swaggerUiInitScript(openapiUrl: string): string {
  return `window.ui = SwaggerUIBundle({
  url: ${scriptString(openapiUrl)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  tryItOutEnabled: false,
  persistAuthorization: true,
});
`;
}

/**
 * HTML of a Swagger UI page for the document at `openapiUrl`.
 *
 * @example
 * swaggerUiPage({ openapiUrl: "/openapi.json", title: "Pets API" });
 * swaggerUiPage({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/docs/assets" } });
 */
export function swaggerUiPage(options: DocsPageOptions): string {
  const { assets } = options;
  const css = assetSource("swagger-ui", "swagger-ui.css", assets);
  const bundle = assetSource("swagger-ui", "swagger-ui-bundle.js", assets);
  // Self-hosted pages load the init code as a file, so a CSP without 'unsafe-inline' still works.
  const init =
    assets?.kind === "self-hosted"
      ? scriptTag({ url: `${selfHostedBase(assets.baseUrl)}/${SWAGGER_UI_INIT_FILE}` })
      : `<script>\n${swaggerUiInitScript(options.openapiUrl)}</script>`;
  return htmlDocument(
    options.title || "SwaggerUI",
    stylesheetTag(css),
    `<div id="swagger-ui"></div>\n${scriptTag(bundle)}\n${init}`,
    assets,
  );
}
