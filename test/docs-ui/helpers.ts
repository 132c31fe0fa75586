/** Every start and end tag name in order: escaped text and attribute values contribute none. */
export function tagSkeleton(html: string): string[] {
  return html.match(/<\/?[a-zA-Z][^\s>/]*/g) ?? [];
}

/** Value of the first `name="..."` attribute, with the entities the builders emit decoded. */
export function attribute(html: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(html);
  return match ? decodeEntities(match[1]) : undefined;
}

/** Text between `<title>` and `</title>`, decoded. */
export function titleText(html: string): string | undefined {
  const match = /<title>([^<]*)<\/title>/.exec(html);
  return match ? decodeEntities(match[1]) : undefined;
}

/** `src` of every `<script src>` and `href` of every stylesheet, in order. */
export function assetRefs(html: string): string[] {
  return [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]*)"/g)].map((m) => decodeEntities(m[1]));
}

/** Bodies of the inline scripts (those without `src` or a non-JS type). */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
}

/** Runs Swagger UI init code against a stub `SwaggerUIBundle` and returns the config it was given. */
export function swaggerConfig(script: string): Record<string, unknown> {
  let config: Record<string, unknown> | undefined;
  const window: Record<string, unknown> = {};
  new Function("window", "SwaggerUIBundle", script)(window, (c: Record<string, unknown>) => {
    config = c;
    return "ui";
  });
  if (!config) throw new Error("init script did not call SwaggerUIBundle");
  return config;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
