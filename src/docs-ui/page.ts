import { escapeHtml } from "./escape";

/** The HTML shell shared by every docs page; `head` and `body` must already be escaped. */
export function htmlDocument(title: string, head: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
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
