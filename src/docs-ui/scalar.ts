import { assetUrl, type DocsPageOptions } from "./assets";
import { escapeHtml } from "./escape";
import { htmlDocument, scriptTag } from "./page";

/**
 * HTML of a Scalar API reference page for the document at `openapiUrl`; it has no inline script in either asset mode.
 *
 * @example
 * scalarPage({ openapiUrl: "/openapi.json", title: "Pets API" });
 * scalarPage({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/docs/assets" } });
 */
export function scalarPage(options: DocsPageOptions): string {
  const bundle = assetUrl("scalar", "scalar-api-reference.js", options.assets);
  // Scalar's HTML API: the bundle reads data-url from #api-reference; the JSON type keeps the empty element inert.
  return htmlDocument(
    options.title || "Scalar API Reference",
    "",
    `<script id="api-reference" type="application/json" data-url="${escapeHtml(options.openapiUrl)}"></script>\n${scriptTag(bundle)}`,
  );
}
