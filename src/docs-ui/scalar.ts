import { assetSource, type DocsPageOptions } from "./assets";
import { escapeHtml } from "./escape";
import { htmlDocument, scriptTag } from "./page";

/**
 * Scalar options that keep a self-hosted page on its own origin (checked against @scalar/api-reference
 * 1.46.4): system fonts instead of fonts.scalar.com, no "Ask AI" agent (it queries api.scalar.com
 * through proxy.scalar.com), no telemetry. No `proxyUrl`, so "Test request" calls the API directly.
 */
export const SCALAR_SELF_HOSTED_CONFIGURATION = /* @__PURE__ */ Object.freeze({
  withDefaultFonts: false,
  agent: { disabled: true },
  telemetry: false,
});

/**
 * HTML of a Scalar API reference page for the document at `openapiUrl`; it has no inline script in either
 * asset mode. A self-hosted page also turns off every Scalar feature that calls Scalar's hosted services.
 *
 * @example
 * scalarPage({ openapiUrl: "/openapi.json", title: "Pets API" });
 * scalarPage({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/docs/assets" } });
 */
export function scalarPage(options: DocsPageOptions): string {
  const bundle = assetSource("scalar", "scalar-api-reference.js", options.assets);
  const configuration =
    options.assets?.kind === "self-hosted"
      ? ` data-configuration="${escapeHtml(JSON.stringify(SCALAR_SELF_HOSTED_CONFIGURATION))}"`
      : "";
  // Scalar's HTML API: the bundle reads data-url (and data-configuration) from #api-reference; the JSON type keeps the empty element inert.
  return htmlDocument(
    options.title || "Scalar API Reference",
    "",
    `<script id="api-reference" type="application/json" data-url="${escapeHtml(options.openapiUrl)}"${configuration}></script>\n${scriptTag(bundle)}`,
    options.assets,
  );
}
