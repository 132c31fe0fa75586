import type { DocumentContext } from "../core/schema-types";
import {
  DOCS_FAVICON_FILE,
  DOCS_FAVICON_SVG,
  type DocsAssetFile,
  docsAssetFiles,
  redocPage,
  SWAGGER_UI_INIT_FILE,
  scalarPage,
  selfHostedAsset,
  swaggerUiInitScript,
  swaggerUiPage,
} from "../docs-ui";
import type { ResolvedRouterOptions } from "./options";
import type { ServedDocument } from "./served-document";

/** A document or docs route: answers, or returns undefined to let the router try the next route. */
export type DocsHandler = (args: unknown[]) => Response | undefined | Promise<Response | undefined>;

/** What the docs routes read of their router. */
export interface DocsSource {
  readonly options: ResolvedRouterOptions;
  readonly document: ServedDocument;
  contextOf(args: unknown[]): DocumentContext;
}

const JSON_TYPE = "application/json;charset=UTF-8";
const YAML_TYPE = "text/yaml;charset=UTF-8";
const HTML_TYPE = "text/html;charset=UTF-8";

/**
 * The handlers of the document and docs routes, keyed by path relative to `base`; the adapter registers
 * them. The pages link to `base` + their URLs, read when first served (Hono settles `base` late).
 */
export function docsRoutes(router: DocsSource): Array<[string, DocsHandler]> {
  const { options, document } = router;
  const { openapi_url, docs_url, redoc_url, scalar_url, docsAssets } = options;
  if (openapi_url === null) return [];
  const contextOf = (args: unknown[]) => () => router.contextOf(args);
  const serve = (body: (args: unknown[]) => string, type: string) => (args: unknown[]) =>
    new Response(body(args), { headers: { "content-type": type } });
  const routes: Array<[string, DocsHandler]> = [
    [openapi_url, serve((args) => document.get(options.openapiVersion, contextOf(args)).json, JSON_TYPE)],
    [yamlUrl(openapi_url), serve((args) => document.yaml(options.openapiVersion, contextOf(args)), YAML_TYPE)],
  ];
  const page = (args: unknown[]) => {
    const { base } = options;
    const assets =
      docsAssets.kind === "self-hosted"
        ? { kind: "self-hosted" as const, baseUrl: base + docsAssets.baseUrl }
        : docsAssets;
    const title = options.schemaFor
      ? document.get(options.openapiVersion, contextOf(args)).doc.info?.title
      : options.schema.info?.title;
    return { openapiUrl: base + openapi_url, title, assets };
  };
  const pages: Array<[string | null, (args: unknown[]) => string]> = [
    [docs_url, (args) => swaggerUiPage(page(args))],
    [redoc_url, (args) => redocPage(page(args))],
    [scalar_url, (args) => scalarPage(page(args))],
  ];
  for (const [url, html] of pages) {
    if (url === null) continue;
    let cached: string | undefined;
    // A page titled from a `schema` function is rendered per request; otherwise once.
    const body = options.schemaFor ? html : (args: unknown[]) => (cached ??= html(args));
    routes.push([url, serve(body, HTML_TYPE)]);
  }
  if (docsAssets.kind === "self-hosted") routes.push(...assetRoutes(options, docsAssets));
  const { docsEnabled } = options;
  if (!docsEnabled) return routes;
  // Disabled for a request, a docs route answers as if absent: the router tries its next route.
  return routes.map(([path, handler]) => [
    path,
    (args: unknown[]) => (docsEnabled(router.contextOf(args), path) ? handler(args) : undefined),
  ]);
}

/** Routes serving the docs pages' files from the app, each read once and kept. */
function assetRoutes(
  options: ResolvedRouterOptions,
  assets: Extract<ResolvedRouterOptions["docsAssets"], { kind: "self-hosted" }>,
): Array<[string, DocsHandler]> {
  const prefix = assets.baseUrl.replace(/\/+$/, "");
  const files: DocsAssetFile[] = (["swagger-ui", "redoc", "scalar"] as const).flatMap((page) => docsAssetFiles(page));
  const routes: Array<[string, DocsHandler]> = files.map((asset) => {
    let body: Promise<Uint8Array | string | null> | undefined;
    const handler: DocsHandler = async () => {
      body ??= assets.load(asset).then((loaded) => loaded && selfHostedAsset(asset, loaded, options.base + prefix));
      const content = await body;
      if (content === null) return undefined;
      return new Response(content as BodyInit, {
        headers: { "content-type": asset.contentType, "cache-control": "public, max-age=86400" },
      });
    };
    return [`${prefix}/${asset.file}`, handler];
  });
  let init: string | undefined;
  routes.push([
    `${prefix}/${SWAGGER_UI_INIT_FILE}`,
    () => {
      init ??= swaggerUiInitScript(options.base + options.openapi_url);
      return new Response(init, { headers: { "content-type": "text/javascript; charset=utf-8" } });
    },
  ]);
  routes.push([
    `${prefix}/${DOCS_FAVICON_FILE}`,
    () =>
      new Response(DOCS_FAVICON_SVG, {
        headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" },
      }),
  ]);
  return routes;
}

function yamlUrl(openapiUrl: string): string {
  return openapiUrl.endsWith(".json") ? `${openapiUrl.slice(0, -5)}.yaml` : `${openapiUrl}.yaml`;
}
