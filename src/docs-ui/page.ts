import { DOCS_FAVICON_FILE, DOCS_FAVICON_SVG, type DocsAssets, selfHostedBase } from "./assets";
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

/** A `<script src>` element. */
export function scriptTag(src: string): string {
  return `<script src="${escapeHtml(src)}"></script>`;
}

/** A `<link rel="stylesheet">` element. */
export function stylesheetTag(href: string): string {
  return `<link rel="stylesheet" href="${escapeHtml(href)}">`;
}

/** A `<link rel="icon">` to specroute's icon: the self-hosted file, else a `data:` URL. */
function faviconTag(assets: DocsAssets = { kind: "cdn" }): string {
  const href =
    assets.kind === "self-hosted"
      ? `${selfHostedBase(assets.baseUrl)}/${DOCS_FAVICON_FILE}`
      : `data:image/svg+xml,${encodeURIComponent(DOCS_FAVICON_SVG)}`;
  return `<link rel="icon" type="image/svg+xml" href="${escapeHtml(href)}">`;
}
