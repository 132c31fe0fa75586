const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML element content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "'": "\\'",
  "\n": "\\n",
  "\r": "\\r",
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * A JavaScript string literal for `text` that is also safe inside an inline `<script>` element;
 * single-quoted, as chanfana's page writes the document URL (`url: '/openapi.json'`).
 */
export function scriptString(text: string): string {
  // `<` escaped so `</script>` or `<!--` in the value cannot end or confuse the script element.
  return `'${text.replace(/[\\'\n\r<>&\u2028\u2029]/g, (char) => SCRIPT_ESCAPES[char]!)}'`;
}
