import { type AssetSource, DOCS_FAVICON_FILE, DOCS_FAVICON_SVG, type DocsAssets, selfHostedBase } from "./assets";
import { escapeHtml } from "./escape";

/**
 * The HTML shell shared by every docs page; `head` and `body` must already be escaped. It links the
 * icon from `assets` (self-hosted: the app's file; CDN: inline), so the browser requests no `/favicon.ico`.
 */
export function htmlDocument(title: string, head: string, body: string, assets?: DocsAssets): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${faviconTag(assets)}
${head ? `${head}\n` : ""}</head>
<body>
${body}
</body>
</html>
`;
}

/** A `<script src>` element, checked against the source's integrity hash when it has one. */
export function scriptTag(source: AssetSource): string {
  return `<script src="${escapeHtml(source.url)}"${integrityAttributes(source)}></script>`;
}

/** A `<link rel="stylesheet">` element, checked against the source's integrity hash when it has one. */
export function stylesheetTag(source: AssetSource): string {
  return `<link rel="stylesheet" href="${escapeHtml(source.url)}"${integrityAttributes(source)}>`;
}

/** `integrity` and `crossorigin="anonymous"` (a cross-origin file is only checked when fetched with CORS, without cookies). */
function integrityAttributes({ integrity }: AssetSource): string {
  return integrity === undefined ? "" : ` integrity="${escapeHtml(integrity)}" crossorigin="anonymous"`;
}

/** A `<link rel="icon">` to specroute's icon: the self-hosted file, else a `data:` URL. */
function faviconTag(assets: DocsAssets = { kind: "cdn" }): string {
  const href =
    assets.kind === "self-hosted"
      ? `${selfHostedBase(assets.baseUrl)}/${DOCS_FAVICON_FILE}`
      : `data:image/svg+xml,${encodeURIComponent(DOCS_FAVICON_SVG)}`;
  return `<link rel="icon" type="image/svg+xml" href="${escapeHtml(href)}">`;
}
