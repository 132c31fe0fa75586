/** Where a docs page loads its JavaScript and CSS from. */
export type DocsAssets =
  /**
   * jsDelivr, at the exact version specroute was checked against, each tag with the Subresource Integrity
   * hash of that version's file: a file the CDN changed is refused by the browser.
   */
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
  /**
   * Absolute URLs the file loads at run time, each mapped to the file under `baseUrl` that replaces it
   * when self-hosted (see {@link selfHostedAsset}), so the page asks no other origin.
   */
  localUrls?: Readonly<Record<string, string>>;
}

/** Name of the generated Swagger UI init script under a self-hosted `baseUrl`; its body is `swaggerUiInitScript(openapiUrl)`. */
export const SWAGGER_UI_INIT_FILE = "swagger-ui-init.js";

/** Name of the docs pages' icon under a self-hosted `baseUrl`; its body is {@link DOCS_FAVICON_SVG}. */
export const DOCS_FAVICON_FILE = "favicon.svg";

/** specroute's own small icon, linked from every docs page so the browser asks for no `/favicon.ico`. */
export const DOCS_FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f6f5c"/>' +
  '<path d="M9 11h14M9 16h14M9 21h9" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/></svg>';

const CSS = "text/css; charset=utf-8";
const JS = "text/javascript; charset=utf-8";
const CDN = "https://cdn.jsdelivr.net/npm";

interface PageAssets {
  package: string;
  /** Exact version on the CDN: the integrity hashes are of its files (test/docs-ui/integrity.test.ts checks them). */
  version: string;
  files: ReadonlyArray<{
    file: string;
    path: string;
    contentType: string;
    /** Subresource Integrity of the file in `version`, as the CDN serves it. */
    integrity: string;
    localUrls?: Record<string, string>;
  }>;
}

// The devDependencies' versions: upgrading one means new hashes here (sha384, base64 of the file's bytes).
const PAGE_ASSETS: Record<DocsPage, PageAssets> = {
  "swagger-ui": {
    package: "swagger-ui-dist",
    version: "5.35.0",
    files: [
      {
        file: "swagger-ui.css",
        path: "swagger-ui.css",
        contentType: CSS,
        integrity: "sha384-WlYgdmXYOOBWL5apwjDEZwN+U3HmXSSu5R6V5aGxEcf7z+KuRNwBhoxKVN1i3D5I",
      },
      {
        file: "swagger-ui-bundle.js",
        path: "swagger-ui-bundle.js",
        contentType: JS,
        integrity: "sha384-gjRm0bEPMeTmMh5jT2cHccIwCUZSTd8YC+j0d0sXw0MdGEfScduGpSyF3ZSSLkX9",
      },
    ],
  },
  redoc: {
    package: "redoc",
    version: "2.5.4",
    files: [
      {
        file: "redoc.standalone.js",
        path: "bundles/redoc.standalone.js",
        contentType: JS,
        integrity: "sha384-w447zOpYfw/1Tv/5AK9NfHTlQIqE3RVR6KY62jCyy9zNDgO64cMwGGP1Fj0zJVf5",
        // The sidebar's "API docs by Redocly" logo, which Redoc has no option to turn off.
        localUrls: { "https://cdn.redoc.ly/redoc/logo-mini.svg": DOCS_FAVICON_FILE },
      },
    ],
  },
  scalar: {
    package: "@scalar/api-reference",
    version: "1.46.4",
    files: [
      {
        // Renamed from `standalone.js` so the file says whose it is next to the others.
        file: "scalar-api-reference.js",
        path: "dist/browser/standalone.js",
        contentType: JS,
        integrity: "sha384-BbTs28WithFYxTDCiH0YPK5tv3MflhBVpABoMjfb9UqXa/hegSE9I4THoddKejMF",
      },
    ],
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
  return assets.files.map(({ integrity: _, ...f }) => ({ ...f, package: assets.package }));
}

/**
 * The body a self-hosted `asset` is served with: `content` as loaded, with each of its `localUrls`
 * pointed at the app's own file under `baseUrl`.
 *
 * @example
 * selfHostedAsset(asset, await load(asset), "/docs-assets"); // Redoc's logo URL becomes /docs-assets/favicon.svg
 */
export function selfHostedAsset(
  asset: DocsAssetFile,
  content: Uint8Array | string,
  baseUrl: string,
): Uint8Array | string {
  const urls = Object.entries(asset.localUrls ?? {});
  if (urls.length === 0) return content;
  let text = typeof content === "string" ? content : new TextDecoder().decode(content);
  for (const [from, file] of urls) {
    // Inside a JavaScript string literal, so the replacement is escaped as one.
    text = text.split(from).join(JSON.stringify(`${selfHostedBase(baseUrl)}/${file}`).slice(1, -1));
  }
  return text;
}

/** Where a page loads one file from: its URL and, from the CDN, the file's integrity hash. */
export interface AssetSource {
  url: string;
  integrity?: string;
}

/**
 * Where the page's asset named `file` comes from: under the self-hosted base URL (the app's own files,
 * whatever version it installed, so no hash), or the pinned version on the CDN with its integrity hash.
 */
export function assetSource(page: DocsPage, file: string, assets: DocsAssets = { kind: "cdn" }): AssetSource {
  if (assets.kind === "self-hosted") return { url: `${selfHostedBase(assets.baseUrl)}/${file}` };
  const { package: pkg, version, files } = PAGE_ASSETS[page];
  const entry = files.find((f) => f.file === file);
  if (!entry) throw new Error(`${page} has no asset ${JSON.stringify(file)}`);
  return { url: `${CDN}/${pkg}@${version}/${entry.path}`, integrity: entry.integrity };
}

/** `baseUrl` without trailing slashes, so joining with `/file` never yields `//`. */
export function selfHostedBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}
