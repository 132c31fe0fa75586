import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DocsPage, docsAssetFiles, SWAGGER_UI_INIT_FILE } from "../../src/docs-ui";

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
    names.push(SWAGGER_UI_INIT_FILE);
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
  });
});
