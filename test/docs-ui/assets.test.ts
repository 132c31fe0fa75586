import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DOCS_FAVICON_FILE,
  type DocsPage,
  docsAssetFiles,
  SWAGGER_UI_INIT_FILE,
  selfHostedAsset,
} from "../../src/docs-ui";

const PAGES: DocsPage[] = ["swagger-ui", "redoc", "scalar"];
// The UI packages are not dependencies; point DOCS_UI_PACKAGES at a node_modules that has them to check real files.
const packagesDir = process.env.DOCS_UI_PACKAGES ?? join(process.cwd(), "node_modules");

describe("docsAssetFiles", () => {
  it("lists the files of each page's package", () => {
    expect(docsAssetFiles("swagger-ui")).toEqual([
      {
        file: "swagger-ui.css",
        package: "swagger-ui-dist",
        path: "swagger-ui.css",
        contentType: "text/css; charset=utf-8",
      },
      {
        file: "swagger-ui-bundle.js",
        package: "swagger-ui-dist",
        path: "swagger-ui-bundle.js",
        contentType: "text/javascript; charset=utf-8",
      },
    ]);
    expect(docsAssetFiles("redoc")).toEqual([
      {
        file: "redoc.standalone.js",
        package: "redoc",
        path: "bundles/redoc.standalone.js",
        contentType: "text/javascript; charset=utf-8",
        localUrls: { "https://cdn.redoc.ly/redoc/logo-mini.svg": DOCS_FAVICON_FILE },
      },
    ]);
    expect(docsAssetFiles("scalar")).toEqual([
      {
        file: "scalar-api-reference.js",
        package: "@scalar/api-reference",
        path: "dist/browser/standalone.js",
        contentType: "text/javascript; charset=utf-8",
      },
    ]);
  });

  it("gives every file a distinct name, so all pages can share one base URL", () => {
    const names = PAGES.flatMap((page) => docsAssetFiles(page).map((f) => f.file));
    names.push(SWAGGER_UI_INIT_FILE, DOCS_FAVICON_FILE);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[\w.-]+$/);
  });

  it("returns fresh objects the caller may change", () => {
    docsAssetFiles("redoc")[0].path = "changed";
    expect(docsAssetFiles("redoc")[0].path).toBe("bundles/redoc.standalone.js");
  });

  it("rejects an unknown page", () => {
    expect(() => docsAssetFiles("rapidoc" as DocsPage)).toThrow(/Unknown docs page/);
  });

  describe.each(PAGES)("against the installed package of %s", (page) => {
    const [first] = docsAssetFiles(page);
    const installed = existsSync(join(packagesDir, first.package, "package.json"));

    it.skipIf(!installed)("names files that exist in the package version the CDN URL pins", () => {
      for (const asset of docsAssetFiles(page)) {
        const root = join(packagesDir, asset.package);
        const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
        const major = Number(version.split(".")[0]);
        expect({ page, major }).toEqual({ page, major: { "swagger-ui": 5, redoc: 2, scalar: 1 }[page] });
        expect(existsSync(join(root, asset.path)), `${asset.package}@${version}/${asset.path}`).toBe(true);
      }
    });

    it.skipIf(!installed)("leaves no URL of another origin that the file loads at run time once self-hosted", () => {
      for (const asset of docsAssetFiles(page)) {
        const original = readFileSync(join(packagesDir, asset.package, asset.path));
        const served = String(selfHostedAsset(asset, new Uint8Array(original), "/docs-assets/"));
        for (const [url, file] of Object.entries(asset.localUrls ?? {})) {
          // The URL must still be in this version of the package, or the replacement silently does nothing.
          expect(original.includes(url), url).toBe(true);
          expect(served).not.toContain(url);
          expect(served).toContain(`"/docs-assets/${file}"`);
        }
      }
    });
  });
});

describe("selfHostedAsset", () => {
  it("returns a file without localUrls unchanged, the same bytes", () => {
    const [css] = docsAssetFiles("swagger-ui");
    const bytes = new TextEncoder().encode("body{}");
    expect(selfHostedAsset(css, bytes, "/a")).toBe(bytes);
  });

  it("points each listed URL at the file under the base URL, escaped for a JavaScript string", () => {
    const asset = { ...docsAssetFiles("redoc")[0], localUrls: { "https://cdn.example/logo.svg": "icon.svg" } };
    const source = 'img({src:"https://cdn.example/logo.svg"});img({src:"https://cdn.example/logo.svg"})';
    expect(selfHostedAsset(asset, source, '/x"y/')).toBe('img({src:"/x\\"y/icon.svg"});img({src:"/x\\"y/icon.svg"})');
  });
});
