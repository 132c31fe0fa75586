/** Where a docs page loads its JavaScript and CSS from. */
export type DocsAssets =
  /** jsDelivr, pinned to the major version specroute was checked against. */
  | { kind: "cdn" }
  /** Served by the app under `baseUrl` (e.g. `/docs/assets`); see {@link docsAssetFiles}. */
  | { kind: "self-hosted"; baseUrl: string };

/** Options shared by every docs page builder. */
export interface DocsPageOptions {
  /** URL of the OpenAPI document the page renders. */
  openapiUrl: string;
  /** Text of the page's `<title>`. Default: the viewer's name ("SwaggerUI", "ReDocUI", "Scalar API Reference"). */
  title?: string;
  /** Where scripts and styles come from. Default `{ kind: "cdn" }`. */
  assets?: DocsAssets;
}

/** The docs pages specroute can build. */
export type DocsPage = "swagger-ui" | "redoc" | "scalar";

/** One file a self-hosted docs page needs: serve `package`'s `path` at `<baseUrl>/<file>`. */
export interface DocsAssetFile {
  /** Name under the self-hosted `baseUrl`; unique across all pages, so they can share one `baseUrl`. */
  file: string;
  /** npm package that ships the file. */
  package: string;
  /** Path of the file inside the package. */
  path: string;
  /** `content-type` to serve it with. */
  contentType: string;
}

/** Name of the generated Swagger UI init script under a self-hosted `baseUrl`; its body is `swaggerUiInitScript(openapiUrl)`. */
export const SWAGGER_UI_INIT_FILE = "swagger-ui-init.js";

const CSS = "text/css; charset=utf-8";
const JS = "text/javascript; charset=utf-8";
const CDN = "https://cdn.jsdelivr.net/npm";

interface PageAssets {
  package: string;
  /** Major version pinned on the CDN. */
  major: number;
  files: ReadonlyArray<{ file: string; path: string; contentType: string }>;
}

// Paths checked against swagger-ui-dist 5.35.0, redoc 2.5.4 and @scalar/api-reference 1.46.4.
const PAGE_ASSETS: Record<DocsPage, PageAssets> = {
  "swagger-ui": {
    package: "swagger-ui-dist",
    major: 5,
    files: [
      { file: "swagger-ui.css", path: "swagger-ui.css", contentType: CSS },
      { file: "swagger-ui-bundle.js", path: "swagger-ui-bundle.js", contentType: JS },
    ],
  },
  redoc: {
    package: "redoc",
    major: 2,
    files: [{ file: "redoc.standalone.js", path: "bundles/redoc.standalone.js", contentType: JS }],
  },
  scalar: {
    package: "@scalar/api-reference",
    major: 1,
    // Renamed from `standalone.js` so the file says whose it is next to the others.
    files: [{ file: "scalar-api-reference.js", path: "dist/browser/standalone.js", contentType: JS }],
  },
};

/**
 * The package files a page needs when its assets are self-hosted.
 *
 * @example
 * for (const asset of docsAssetFiles("swagger-ui")) {
 *   const body = readFileSync(require.resolve(`${asset.package}/${asset.path}`));
 *   app.get(`/docs/assets/${asset.file}`, () => new Response(body, { headers: { "content-type": asset.contentType } }));
 * }
 */
export function docsAssetFiles(page: DocsPage): DocsAssetFile[] {
  const assets = PAGE_ASSETS[page];
  if (!assets) throw new Error(`Unknown docs page ${JSON.stringify(page)}`);
  return assets.files.map((f) => ({ file: f.file, package: assets.package, path: f.path, contentType: f.contentType }));
}

/** URL of the page's asset named `file`, on the CDN or under the self-hosted base URL. */
export function assetUrl(page: DocsPage, file: string, assets: DocsAssets = { kind: "cdn" }): string {
  if (assets.kind === "self-hosted") return `${selfHostedBase(assets.baseUrl)}/${file}`;
  const { package: pkg, major, files } = PAGE_ASSETS[page];
  const entry = files.find((f) => f.file === file);
  if (!entry) throw new Error(`${page} has no asset ${JSON.stringify(file)}`);
  return `${CDN}/${pkg}@${major}/${entry.path}`;
}

/** `baseUrl` without trailing slashes, so joining with `/file` never yields `//`. */
export function selfHostedBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}
