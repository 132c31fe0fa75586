import { describe, expect, it } from "vitest";
import { getReDocUI, getSwaggerUI, redocPage, swaggerUiPage } from "../../src/docs-ui";
import { attribute, inlineScripts, swaggerConfig, titleText } from "../docs-ui/helpers";
import { harnesses } from "../helpers";

describe("getSwaggerUI / getReDocUI (chanfana's page helpers)", () => {
  it("build the same pages as swaggerUiPage / redocPage with CDN assets", () => {
    expect(getSwaggerUI("/openapi.json")).toBe(swaggerUiPage({ openapiUrl: "/openapi.json" }));
    expect(getReDocUI("/openapi.json")).toBe(redocPage({ openapiUrl: "/openapi.json" }));
  });

  it("are titled SwaggerUI and ReDocUI and load the viewers' bundles", () => {
    const swagger = getSwaggerUI("/openapi.json");
    const redoc = getReDocUI("/openapi.json");
    expect(swagger.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(titleText(swagger)).toBe("SwaggerUI");
    expect(swagger).toContain("swagger-ui-bundle.js");
    expect(titleText(redoc)).toBe("ReDocUI");
    expect(redoc).toContain("redoc.standalone.js");
  });

  it("write the document URL the way chanfana's pages do", () => {
    expect(getSwaggerUI("/openapi.json")).toContain("url: '/openapi.json'");
    expect(getReDocUI("/openapi.json")).toContain('spec-url="/openapi.json"');
  });

  it("drop repeated and trailing slashes from the URL", () => {
    expect(swaggerConfig(inlineScripts(getSwaggerUI("/api//v1///openapi.json/"))[0]!).url).toBe("/api/v1/openapi.json");
    expect(attribute(getReDocUI("/api//openapi.json/"), "spec-url")).toBe("/api/openapi.json");
  });

  it("keep the // of an absolute URL's scheme", () => {
    expect(attribute(getReDocUI("https://api.example.com//v1/openapi.json"), "spec-url")).toBe(
      "https://api.example.com/v1/openapi.json",
    );
  });
});

describe.each(harnesses)("$name: the served docs pages without a title in schema.info", (harness) => {
  it("are the pages chanfana serves: ReDocUI at /redocs, SwaggerUI at /docs", async () => {
    const { request } = harness.make();
    const redoc = await (await request("/redocs")).text();
    expect(redoc).toContain("ReDocUI");
    expect(redoc).toContain("redoc.standalone.js");
    expect(redoc).toContain('spec-url="/openapi.json"');
    const swagger = await (await request("/docs")).text();
    expect(swagger).toContain("SwaggerUI");
    expect(swagger).toContain("url: '/openapi.json'");
  });
});
