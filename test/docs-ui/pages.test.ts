import { describe, expect, it } from "vitest";
import {
  DOCS_FAVICON_FILE,
  DOCS_FAVICON_SVG,
  type DocsPageOptions,
  redocPage,
  SWAGGER_UI_INIT_FILE,
  scalarPage,
  swaggerUiInitScript,
  swaggerUiPage,
} from "../../src/docs-ui";
import { assetRefs, attribute, inlineScripts, swaggerConfig, tagSkeleton, titleText } from "./helpers";

const pages = { swaggerUiPage, redocPage, scalarPage };
const defaultTitles = { swaggerUiPage: "SwaggerUI", redocPage: "ReDocUI", scalarPage: "Scalar API Reference" };
const selfHosted = { kind: "self-hosted", baseUrl: "/docs/assets" } as const;

describe.each(Object.entries(pages))("%s", (name, build) => {
  it("sets charset, viewport and the title", () => {
    const html = build({ openapiUrl: "/openapi.json", title: "Pets API" });
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(titleText(html)).toBe("Pets API");
  });

  it("falls back to the viewer's name as title (chanfana's SwaggerUI / ReDocUI) when none or an empty one is given", () => {
    const expected = defaultTitles[name as keyof typeof pages];
    expect(titleText(build({ openapiUrl: "/openapi.json" }))).toBe(expected);
    expect(titleText(build({ openapiUrl: "/openapi.json", title: "" }))).toBe(expected);
  });

  it("contains the document URL", () => {
    expect(build({ openapiUrl: "/api/v1/openapi.json" })).toContain("/api/v1/openapi.json");
  });

  it("loads assets from jsDelivr by default, the same as with { kind: 'cdn' }", () => {
    const html = build({ openapiUrl: "/openapi.json" });
    expect(html).toBe(build({ openapiUrl: "/openapi.json", assets: { kind: "cdn" } }));
    for (const ref of assetRefs(html)) expect(ref).toMatch(/^https:\/\/cdn\.jsdelivr\.net\/npm\//);
  });

  it("loads only files under the self-hosted base URL, whatever its trailing slashes", () => {
    const html = build({ openapiUrl: "/openapi.json", assets: selfHosted });
    expect(build({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/docs/assets//" } })).toBe(
      html,
    );
    const refs = assetRefs(html);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^\/docs\/assets\/[^/]+$/);
    expect(html).not.toContain("jsdelivr");
  });

  it("checks each CDN file's integrity, and none of the app's own files, whose version is the app's", () => {
    const cdn = build({ openapiUrl: "/openapi.json" });
    const tags = cdn.match(/<(?:script src|link rel="stylesheet")[^>]*>/g)!;
    for (const tag of tags) expect(tag).toMatch(/ integrity="sha384-[^"]+" crossorigin="anonymous"/);
    expect(build({ openapiUrl: "/openapi.json", assets: selfHosted })).not.toMatch(/integrity|crossorigin/);
  });

  it("has no inline script when self-hosted", () => {
    expect(inlineScripts(build({ openapiUrl: "/openapi.json", assets: selfHosted }))).toEqual([]);
  });

  it("links specroute's icon: the self-hosted file, or an inline SVG in CDN mode", () => {
    expect(attribute(build({ openapiUrl: "/openapi.json", assets: selfHosted }), "href")).toBe(
      `/docs/assets/${DOCS_FAVICON_FILE}`,
    );
    const inline = attribute(build({ openapiUrl: "/openapi.json" }), "href");
    expect(decodeURIComponent(inline!.replace(/^data:image\/svg\+xml,/, ""))).toBe(DOCS_FAVICON_SVG);
  });
});

describe("swaggerUiPage", () => {
  it("uses swagger-ui-dist@5.35.0 CSS and bundle from the CDN", () => {
    expect(assetRefs(swaggerUiPage({ openapiUrl: "/openapi.json" }))).toEqual([
      "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.35.0/swagger-ui.css",
      "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.35.0/swagger-ui-bundle.js",
    ]);
  });

  it("configures Swagger UI inline in CDN mode", () => {
    const html = swaggerUiPage({ openapiUrl: "/openapi.json" });
    expect(html).toContain('<div id="swagger-ui"></div>');
    const [script] = inlineScripts(html);
    expect(swaggerConfig(script)).toEqual({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      tryItOutEnabled: false,
      persistAuthorization: true,
    });
  });

  it("loads the CSS, the bundle and then the init script from the self-hosted base URL", () => {
    const html = swaggerUiPage({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/static/" } });
    expect(assetRefs(html)).toEqual([
      "/static/swagger-ui.css",
      "/static/swagger-ui-bundle.js",
      `/static/${SWAGGER_UI_INIT_FILE}`,
    ]);
  });

  it("accepts an absolute self-hosted base URL", () => {
    const html = swaggerUiPage({
      openapiUrl: "/openapi.json",
      assets: { kind: "self-hosted", baseUrl: "https://static.example.com/docs" },
    });
    expect(assetRefs(html)[0]).toBe("https://static.example.com/docs/swagger-ui.css");
  });
});

describe("swaggerUiInitScript", () => {
  it("configures Swagger UI for the given document", () => {
    expect(swaggerConfig(swaggerUiInitScript("/v2/openapi.json"))).toMatchObject({
      url: "/v2/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      tryItOutEnabled: false,
      persistAuthorization: true,
    });
  });
});

describe("redocPage", () => {
  it("uses the redoc@2.5.4 standalone bundle and a <redoc spec-url> element", () => {
    const html = redocPage({ openapiUrl: "/openapi.json" });
    expect(assetRefs(html)).toEqual(["https://cdn.jsdelivr.net/npm/redoc@2.5.4/bundles/redoc.standalone.js"]);
    expect(html).toContain('<redoc spec-url="/openapi.json"></redoc>');
    expect(inlineScripts(html)).toEqual([]);
  });

  it("loads the standalone bundle from the self-hosted base URL", () => {
    expect(assetRefs(redocPage({ openapiUrl: "/openapi.json", assets: selfHosted }))).toEqual([
      "/docs/assets/redoc.standalone.js",
    ]);
  });
});

describe("scalarPage", () => {
  it("uses the @scalar/api-reference@1.46.4 browser standalone bundle and its data-url HTML API", () => {
    const html = scalarPage({ openapiUrl: "/openapi.json" });
    expect(assetRefs(html)).toEqual([
      "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.46.4/dist/browser/standalone.js",
    ]);
    expect(html).toContain('<script id="api-reference" type="application/json" data-url="/openapi.json"></script>');
    expect(inlineScripts(html)).toEqual([]);
  });

  it("loads the bundle from the self-hosted base URL", () => {
    expect(assetRefs(scalarPage({ openapiUrl: "/openapi.json", assets: selfHosted }))).toEqual([
      "/docs/assets/scalar-api-reference.js",
    ]);
  });

  it("turns off Scalar's fonts, agent and telemetry when self-hosted, and sets no proxy", () => {
    const html = scalarPage({ openapiUrl: "/openapi.json", assets: selfHosted });
    expect(JSON.parse(attribute(html, "data-configuration")!)).toEqual({
      withDefaultFonts: false,
      agent: { disabled: true },
      telemetry: false,
    });
    expect(html).not.toContain("proxy");
    expect(attribute(scalarPage({ openapiUrl: "/openapi.json" }), "data-configuration")).toBeUndefined();
  });
});

describe("page options", () => {
  it("does not mutate the options", () => {
    const options: DocsPageOptions = { openapiUrl: "/openapi.json", title: "T", assets: selfHosted };
    const copy = structuredClone(options);
    for (const build of Object.values(pages)) build(options);
    expect(options).toEqual(copy);
  });

  it("keeps the tag structure of a page the same for every URL", () => {
    for (const build of Object.values(pages)) {
      expect(tagSkeleton(build({ openapiUrl: "/a" }))).toEqual(tagSkeleton(build({ openapiUrl: "/b?x=1&y=2" })));
    }
  });

  it("keeps query strings in the document URL intact", () => {
    const openapiUrl = "/openapi.json?a=1&b=2";
    expect(attribute(redocPage({ openapiUrl }), "spec-url")).toBe(openapiUrl);
    expect(attribute(scalarPage({ openapiUrl }), "data-url")).toBe(openapiUrl);
    expect(swaggerConfig(inlineScripts(swaggerUiPage({ openapiUrl }))[0]).url).toBe(openapiUrl);
  });
});
