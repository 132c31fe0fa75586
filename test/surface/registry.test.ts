import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRegistryMerger, OpenAPIRoute } from "../../src";
import { documentErrors, harnesses } from "../helpers";

class Whoami extends OpenAPIRoute {
  schema = {
    security: [{ bearerAuth: [] }],
    responses: { "200": { description: "The caller", ...contentJson(z.object({ user: z.string() })) } },
  };
  async handle() {
    return { user: "ada" };
  }
}

const bearer = { type: "http", scheme: "bearer", bearerFormat: "JWT" };

describe.each(harnesses)("$name: router.registry", (harness) => {
  it("registerComponent adds a security scheme the document lists and routes reference", async () => {
    const { router, request } = harness.make({ schema: { info: { title: "Who", version: "1.0.0" } } });
    const registered = router.registry.registerComponent("securitySchemes", "bearerAuth", bearer);
    expect(registered).toEqual({ name: "bearerAuth", ref: { $ref: "#/components/securitySchemes/bearerAuth" } });
    router.get("/whoami", Whoami);

    const doc = await (await request("/openapi.json")).json();
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: bearer });
    expect(doc.paths["/whoami"].get.security).toEqual([{ bearerAuth: [] }]);
    expect(await documentErrors(doc)).toBeNull();
    expect(await (await request("/whoami")).json()).toEqual({ user: "ada" });
  });

  it("a component registered after the document was served appears in the next one", async () => {
    const { router, request } = harness.make();
    router.get("/whoami", Whoami);
    expect((await (await request("/openapi.json")).json()).components?.securitySchemes).toBeUndefined();
    expect(router.schema.components?.securitySchemes).toBeUndefined();

    router.registry.registerComponent("securitySchemes", "bearerAuth", bearer);
    expect((await (await request("/openapi.json")).json()).components.securitySchemes).toEqual({ bearerAuth: bearer });
    expect(router.schema.components.securitySchemes).toEqual({ bearerAuth: bearer });
    expect(router.getGeneratedSchema("3").components.securitySchemes).toEqual({ bearerAuth: bearer });
  });

  it("keeps the router's own schema.components and adds other component kinds beside them", () => {
    const apiKey = { type: "apiKey", in: "header", name: "x-api-key" };
    const { router } = harness.make({ schema: { components: { securitySchemes: { apiKey } } } });
    router.registry.registerComponent("securitySchemes", "bearerAuth", bearer);
    router.registry.registerComponent("parameters", "Page", { name: "page", in: "query", schema: { type: "integer" } });
    router.get("/whoami", Whoami);
    expect(router.schema.components.securitySchemes).toEqual({ apiKey, bearerAuth: bearer });
    expect(router.schema.components.parameters.Page.name).toBe("page");
  });

  it("is one registry per router: two routers do not share components", () => {
    const first = harness.make();
    const second = harness.make();
    first.router.registry.registerComponent("securitySchemes", "bearerAuth", bearer);
    expect(second.router.schema.components?.securitySchemes).toBeUndefined();
    expect(first.router.registry).not.toBe(second.router.registry);
  });

  it("answers wrangler's `middleware` probe with an empty list", () => {
    expect(harness.make().router.middleware).toEqual([]);
  });
});

describe("OpenAPIRegistryMerger", () => {
  it("lists registrations in order as definitions", () => {
    const registry = new OpenAPIRegistryMerger();
    registry.registerComponent("securitySchemes", "a", bearer);
    registry.registerComponent("schemas", "B", { type: "string" });
    expect(registry.definitions.map((d) => (d.type === "component" ? [d.componentType, d.name] : d.type))).toEqual([
      ["securitySchemes", "a"],
      ["schemas", "B"],
    ]);
    expect(registry._definitions).toBe(registry.definitions);
  });

  it("merge() takes another registry's components and ignores a missing one", () => {
    const parent = new OpenAPIRegistryMerger();
    const child = new OpenAPIRegistryMerger();
    child.registerComponent("securitySchemes", "bearerAuth", bearer);
    parent.merge(null);
    parent.merge(undefined);
    parent.merge({} as never);
    expect(parent._definitions).toEqual([]);
    parent.merge(child, "/v1");
    expect(parent.applyTo({}).components).toEqual({ securitySchemes: { bearerAuth: bearer } });
  });
});

describe.each(harnesses)("$name: a mounted router's registry", (harness) => {
  it("brings the components registered on it into the parent's document", async () => {
    const { router, request } = harness.make();
    const nested = harness.nested();
    nested.registry.registerComponent("securitySchemes", "bearerAuth", bearer);
    nested.get("/whoami", Whoami);
    router.route("/v1", nested);

    const doc = await (await request("/openapi.json")).json();
    expect(doc.paths["/v1/whoami"].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: bearer });
    expect(await documentErrors(doc)).toBeNull();
  });
});
