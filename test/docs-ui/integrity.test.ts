// The docs pages run on the API's own origin: a script a CDN serves there could read what the page can
// (tokens Swagger UI keeps with persistAuthorization) and call the API as the user. So each page loads
// exact versions, each tag with Subresource Integrity: a changed file is refused by the browser. The
// hashes are checked here against the files of the installed packages, which must be the pinned versions.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";

afterAll(closeHttpHarnesses);

// The UI packages are devDependencies; point DOCS_UI_PACKAGES at another node_modules that has them.
const packagesDir = process.env.DOCS_UI_PACKAGES ?? join(process.cwd(), "node_modules");

/** Every `<script src>` and stylesheet `<link>` of a page, with its attributes. */
function assetTags(html: string): Array<{ url: string; attributes: Record<string, string> }> {
  return [...html.matchAll(/<(script|link)\s([^>]*)>/g)]
    .map(([, tag, text]) => {
      const attributes = Object.fromEntries([...text!.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!]));
      const url = tag === "script" ? attributes.src : attributes.rel === "stylesheet" ? attributes.href : undefined;
      return { url: url?.replace(/&amp;/g, "&"), attributes };
    })
    .filter((tag): tag is { url: string; attributes: Record<string, string> } => tag.url !== undefined);
}

/** `https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.46.4/dist/x.js` → its package, version and path. */
function npmFile(url: string): { name: string; version: string; path: string } {
  const match = /^https:\/\/cdn\.jsdelivr\.net\/npm\/((?:@[^/]+\/)?[^/@]+)@([^/]+)\/(.+)$/.exec(url);
  if (!match) throw new Error(`not a jsDelivr npm file: ${url}`);
  return { name: match[1]!, version: match[2]!, path: match[3]! };
}

describe.each(httpHarnesses)("docs pages over HTTP ($name)", (harness) => {
  const app = harness.make();

  describe.each(["/docs", "/redocs", "/scalar"])("%s", (page) => {
    it("loads every asset from an exact version with an integrity hash of that version's file", async () => {
      const response = await app.request(page);
      expect(response.status).toBe(200);
      const tags = assetTags(await response.text());
      expect(tags.length).toBeGreaterThan(0);
      for (const { url, attributes } of tags) {
        const file = npmFile(url);
        expect(file.version, url).toMatch(/^\d+\.\d+\.\d+$/);
        expect(attributes.crossorigin, url).toBe("anonymous");
        expect(attributes.integrity, url).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
        const root = join(packagesDir, file.name);
        expect(existsSync(join(root, "package.json")), `${file.name} is installed`).toBe(true);
        const installed = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
        // A package upgraded without the pins (src/docs-ui/assets.ts) fails here: pin the new version's hashes.
        expect(installed, `${file.name}: installed version vs the version the page pins`).toBe(file.version);
        const digest = createHash("sha384")
          .update(readFileSync(join(root, file.path)))
          .digest("base64");
        expect(attributes.integrity, url).toBe(`sha384-${digest}`);
      }
    });
  });
});
