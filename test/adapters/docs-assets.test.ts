import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeDocsAssets } from "../../src/node";
import { harnesses } from "../helpers";

const root = join(__dirname, "..", "..");

for (const harness of harnesses) {
  describe(`${harness.name}: self-hosted docs assets`, () => {
    const { request } = harness.make({ docsAssets: nodeDocsAssets("/assets", root), base: "" });

    it("points every page at the app's own asset URLs, with no inline script", async () => {
      const swagger = await (await request("/docs")).text();
      expect(swagger).toContain('src="/assets/swagger-ui-bundle.js"');
      expect(swagger).toContain('href="/assets/swagger-ui.css"');
      expect(swagger).not.toMatch(/<script>(?!<\/script>)/);
      expect(await (await request("/redocs")).text()).toContain('src="/assets/redoc.standalone.js"');
      expect(await (await request("/scalar")).text()).toContain('src="/assets/scalar-api-reference.js"');
    });

    it("serves each file from the installed package", async () => {
      const cases: Array<[string, string]> = [
        ["/assets/swagger-ui-bundle.js", "node_modules/swagger-ui-dist/swagger-ui-bundle.js"],
        ["/assets/swagger-ui.css", "node_modules/swagger-ui-dist/swagger-ui.css"],
        ["/assets/scalar-api-reference.js", "node_modules/@scalar/api-reference/dist/browser/standalone.js"],
      ];
      for (const [url, file] of cases) {
        const response = await request(url);
        expect(response.status, url).toBe(200);
        expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(root, file))), url).toBe(true);
      }
      // Redoc's bundle is served with its logo pointed at the app's own icon (see selfHostedAsset).
      const redoc = await request("/assets/redoc.standalone.js");
      expect(redoc.status).toBe(200);
      const redocSource = readFileSync(join(root, "node_modules/redoc/bundles/redoc.standalone.js"), "utf8");
      expect(await redoc.text()).toBe(
        redocSource.replaceAll("https://cdn.redoc.ly/redoc/logo-mini.svg", "/assets/favicon.svg"),
      );
      const icon = await request("/assets/favicon.svg");
      expect(icon.headers.get("content-type")).toBe("image/svg+xml");
      expect(await icon.text()).toMatch(/^<svg /);
      const init = await request("/assets/swagger-ui-init.js");
      expect(init.headers.get("content-type")).toContain("javascript");
      expect(await init.text()).toContain("url: '/openapi.json'");
      expect((await request("/assets/nope.js")).status).toBe(404);
    });
  });
}
