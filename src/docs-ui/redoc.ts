import { assetSource, type DocsPageOptions } from "./assets";
import { escapeHtml } from "./escape";
import { htmlDocument, scriptTag } from "./page";

/**
 * HTML of a ReDoc page for the document at `openapiUrl`; it has no inline script in either asset mode.
 *
 * @example
 * redocPage({ openapiUrl: "/openapi.json", title: "Pets API" });
 * redocPage({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/docs/assets" } });
 */
export function redocPage(options: DocsPageOptions): string {
  const bundle = assetSource("redoc", "redoc.standalone.js", options.assets);
  // The standalone bundle finds the <redoc> element and reads spec-url itself, so no init code is needed.
  return htmlDocument(
    options.title || "ReDocUI",
    "",
    `<redoc spec-url="${escapeHtml(options.openapiUrl)}"></redoc>\n${scriptTag(bundle)}`,
    options.assets,
  );
}
