import { describe, expect, it } from "vitest";
import { redocPage, scalarPage, swaggerUiInitScript, swaggerUiPage } from "../../src/docs-ui";
import { assetRefs, attribute, inlineScripts, swaggerConfig, tagSkeleton, titleText } from "./helpers";

const hostileUrl = `/openapi.json?"'></redoc></script><script>alert(1)</script><!--\u2028&amp;`;
const hostileTitle = `</title><script>alert("t")</script>&lt;'"`;
const hostileBase = `/assets"><script>alert(2)</script>`;
const pages = { swaggerUiPage, redocPage, scalarPage };

describe.each(Object.entries(pages))("%s with hostile input", (_name, build) => {
  const benign = build({ openapiUrl: "/openapi.json", title: "Docs" });
  const hostile = build({ openapiUrl: hostileUrl, title: hostileTitle });

  it("adds no element: the tag structure equals that of a benign page", () => {
    expect(tagSkeleton(hostile)).toEqual(tagSkeleton(benign));
  });

  it("never emits the raw payload", () => {
    expect(hostile).not.toContain("<script>alert");
    expect(hostile).not.toContain("</redoc></script>");
    expect(hostile).not.toContain("<!--");
  });

  it("keeps the title text exactly", () => {
    expect(titleText(hostile)).toBe(hostileTitle);
  });

  it("escapes a hostile self-hosted base URL", () => {
    const html = build({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: hostileBase } });
    expect(tagSkeleton(html)).toEqual(
      tagSkeleton(build({ openapiUrl: "/openapi.json", assets: { kind: "self-hosted", baseUrl: "/assets" } })),
    );
    for (const ref of assetRefs(html)) expect(ref.startsWith(hostileBase)).toBe(true);
  });
});

describe("document URL round trip", () => {
  it("Swagger UI receives the exact URL from the inline script", () => {
    const [script] = inlineScripts(swaggerUiPage({ openapiUrl: hostileUrl }));
    expect(script).not.toMatch(/[<>]/);
    expect(swaggerConfig(script).url).toBe(hostileUrl);
  });

  it("the init script file carries the exact URL", () => {
    const script = swaggerUiInitScript(hostileUrl);
    expect(script).not.toMatch(/[<>\u2028\u2029]/);
    expect(swaggerConfig(script).url).toBe(hostileUrl);
  });

  it("ReDoc's spec-url attribute decodes to the exact URL", () => {
    expect(attribute(redocPage({ openapiUrl: hostileUrl }), "spec-url")).toBe(hostileUrl);
  });

  it("Scalar's data-url attribute decodes to the exact URL", () => {
    expect(attribute(scalarPage({ openapiUrl: hostileUrl }), "data-url")).toBe(hostileUrl);
  });
});
