import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InputValidationException, NotFoundException } from "../../src/errors/exceptions";
import { buildDocument } from "../../src/openapi/document";
import type { DocumentConfig, OpenAPIVersion } from "../../src/openapi/types";
import { userRoutes } from "./fixtures";
import { at, danglingRefs, resolvedResponse, validateDocument } from "./helpers";

function config(openapiVersion: OpenAPIVersion, extra: Partial<DocumentConfig> = {}): DocumentConfig {
  return {
    openapiVersion,
    problemDetails: false,
    schema: {
      info: { title: "Users API", version: "2.1.0", description: "Manages users" },
      servers: [{ url: "https://api.example.com" }],
      tags: [{ name: "Users", description: "People with accounts" }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    ...extra,
  };
}

describe.each([
  ["3", "3.0.3"],
  ["3.1", "3.1.0"],
] as const)("buildDocument for OpenAPI %s", (version, documentVersion) => {
  const doc = buildDocument(userRoutes(), config(version));
  const listUsers = at(doc, "paths", "/users", "get");
  const param = (name: string) => listUsers.parameters.find((p: any) => p.name === name);
  const schemas = at(doc, "components", "schemas");

  it("is a valid OpenAPI document", async () => {
    expect(await validateDocument(doc)).toEqual({ valid: true });
  });

  it("has no $ref that points nowhere", () => {
    expect(danglingRefs(doc)).toEqual([]);
  });

  it("writes the version, info and the document-level settings it was given", () => {
    expect(doc.openapi).toBe(documentVersion);
    expect(doc.info).toEqual({ title: "Users API", version: "2.1.0", description: "Manages users" });
    expect(doc.servers).toEqual([{ url: "https://api.example.com" }]);
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(at(doc, "components", "securitySchemes", "bearer")).toEqual({ type: "http", scheme: "bearer" });
    expect(at(doc, "tags", 0, "name")).toBe("Users");
  });

  it("merges routes sharing a path under one path item", () => {
    expect(Object.keys(doc.paths["/users/{userId}"]!).sort()).toEqual(["delete", "get", "patch", "put"]);
  });

  it("leaves out routes marked x-ignore", () => {
    expect(doc.paths).not.toHaveProperty("/internal/health");
  });

  it("copies operation documentation and x- extensions", () => {
    expect(listUsers).toMatchObject({ tags: ["Users"], summary: "List users", operationId: "listUsers" });
    expect(at(doc, "paths", "/users", "post", "x-rate-limit")).toBe(10);
    expect(at(doc, "paths", "/users/{userId}", "delete", "deprecated")).toBe(true);
    expect(at(doc, "paths", "/users/{userId}", "patch", "security")).toEqual([{ bearer: [] }]);
  });

  it("marks path parameters required and lifts param metadata onto them", () => {
    const [userId] = at(doc, "paths", "/users/{userId}", "get", "parameters");
    expect(userId).toMatchObject({
      name: "userId",
      in: "path",
      required: true,
      description: "The user's id",
      example: "7d8e6f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a",
    });
    expect(userId.schema).toMatchObject({ type: "string", format: "uuid" });
    expect(userId.schema).not.toHaveProperty("example");
  });

  it("makes query members with a default or .optional() not required", () => {
    expect(param("page")).toMatchObject({ in: "query", required: false, schema: { type: "integer", default: 1 } });
    expect(param("per_page").schema).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(param("role")).toMatchObject({ required: false, schema: { type: "string", enum: ["admin", "member"] } });
    expect(param("active").schema).toEqual({ type: "boolean" });
    expect(param("ids").schema).toMatchObject({ type: "array", items: { type: "string", format: "uuid" } });
  });

  it("documents a date query member as a date-time string with its description", () => {
    expect(param("since")).toEqual({
      name: "since",
      in: "query",
      required: false,
      description: "Only users created after this instant",
      schema: { type: "string", format: "date-time" },
    });
  });

  it("lifts description and example given with .meta()", () => {
    expect(param("search")).toEqual({
      name: "search",
      in: "query",
      required: false,
      description: "Free text search",
      example: "ada",
      schema: { type: "string" },
    });
  });

  it("documents headers and cookies as parameters", () => {
    expect(param("x-api-key")).toEqual({
      name: "x-api-key",
      in: "header",
      required: true,
      description: "API key",
      example: "k_live_123",
      schema: { type: "string" },
    });
    expect(param("x-request-id")).toMatchObject({ in: "header", required: false });
    expect(param("session")).toMatchObject({ in: "cookie", required: false, schema: { type: "string" } });
  });

  it("documents a JSON body with nested objects, formats and a component reference", () => {
    const body = at(doc, "paths", "/users", "post", "requestBody");
    expect(body.description).toBe("The new user");
    expect(body.required).toBe(true);
    const schema = at(body, "content", "application/json", "schema");
    expect(schema.required).toEqual(["email", "address", "profile"]);
    expect(schema.properties.email).toMatchObject({ type: "string", format: "email" });
    expect(schema.properties.role).toMatchObject({ default: "member", enum: ["admin", "member"] });
    expect(schema.properties.address).toEqual({ $ref: "#/components/schemas/Address" });
    expect(at(schema, "properties", "profile", "properties", "bio", "description")).toBe("Shown on the profile page");
    expect(at(schema, "properties", "profile", "properties", "links", "items", "properties", "href")).toEqual({
      type: "string",
      format: "uri",
    });
  });

  it("honours required: false on a body", () => {
    expect(at(doc, "paths", "/users/{userId}", "patch", "requestBody", "required")).toBe(false);
  });

  it("documents nullable members the way the version expects", () => {
    const nickname = at(doc, "paths", "/users", "post", "requestBody", "content", "application/json", "schema");
    if (version === "3") {
      expect(nickname.properties.nickname).toEqual({ type: "string", nullable: true });
    } else {
      expect(nickname.properties.nickname).toEqual({ type: ["string", "null"] });
    }
  });

  it("puts schemas named with .openapi() in components with their formats and description", () => {
    const user = schemas.User;
    expect(user.description).toBe("A registered user");
    expect(user.properties.id).toMatchObject({ type: "string", format: "uuid" });
    expect(user.properties.email).toMatchObject({ format: "email", example: "ada@example.com" });
    expect(user.properties.website).toMatchObject({ format: "uri" });
    expect(user.properties.createdAt).toMatchObject({ format: "date-time" });
    expect(user.properties.lastLoginIp).toMatchObject({ format: "ipv4" });
    expect(user.properties.visits).toEqual({ type: "integer", format: "int64" });
    expect(user.required).toContain("role");
    expect(user.required).not.toContain("website");
    expect(at(doc, "paths", "/users/{userId}", "get", "responses", "200", "content", "application/json")).toEqual({
      schema: { $ref: "#/components/schemas/User" },
    });
  });

  it("publishes a request-side variant of a component whose defaults make it differ", () => {
    const body = at(doc, "paths", "/users/{userId}", "put", "requestBody", "content", "application/json", "schema");
    expect(body).toEqual({ $ref: "#/components/schemas/UserInput" });
    expect(schemas.UserInput.required).not.toContain("role");
    expect(schemas.UserInput.properties.address).toEqual({ $ref: "#/components/schemas/Address" });
    // Address reads the same both ways, so it stays one component.
    expect(schemas).not.toHaveProperty("AddressInput");
  });

  it("documents response headers from a zod object and passes plain ones through", () => {
    expect(at(listUsers, "responses", "200", "headers", "x-total-count")).toEqual({
      required: true,
      description: "Users matching the filters",
      schema: { type: "integer" },
    });
    expect(at(doc, "paths", "/users", "post", "responses", "201", "headers", "Location")).toEqual({
      description: "URL of the user",
      schema: { type: "string" },
    });
  });

  it("documents error responses from exception schemas as the error envelope", () => {
    // Written once under components.responses, referenced from each operation.
    expect(at(listUsers, "responses", "400")).toEqual({ $ref: "#/components/responses/InputValidation" });
    const response = resolvedResponse(doc, at(listUsers, "responses", "400"));
    expect(response.description).toBe("Input Validation Error");
    const schema = at(response, "content", "application/json", "schema");
    expect(schema.required).toEqual(["success", "errors", "result"]);
    expect(at(schema, "properties", "errors", "items", "properties", "code")).toEqual({ type: "integer" });
  });

  it("gives an operation without responses a default 200, next to the 400 its declared path parameter can get", () => {
    const responses = at(doc, "paths", "/users/{userId}", "delete", "responses");
    expect(Object.keys(responses)).toEqual(["200", "400"]);
    expect(responses["200"]).toEqual({ description: "Successful response" });
  });

  it("documents error responses as problem details when asked to", async () => {
    const problemDoc = buildDocument(userRoutes(), config(version, { problemDetails: true }));
    expect(await validateDocument(problemDoc)).toEqual({ valid: true });
    expect(danglingRefs(problemDoc)).toEqual([]);
    const content = resolvedResponse(
      problemDoc,
      at(problemDoc, "paths", "/users/{userId}", "get", "responses", "404"),
    ).content;
    expect(content).toEqual({
      "application/problem+json": { schema: { $ref: "#/components/schemas/ProblemDetails" } },
    });
    expect(at(problemDoc, "components", "schemas", "ProblemDetails", "required")).toEqual([
      "type",
      "title",
      "status",
      "detail",
      "errors",
    ]);
    // Success bodies are untouched.
    expect(at(problemDoc, "paths", "/users/{userId}", "get", "responses", "200", "content")).toHaveProperty(
      "application/json",
    );
  });
});

describe("buildDocument defaults and edge cases", () => {
  it("fills in a title and version when none are given", () => {
    const doc = buildDocument([], { openapiVersion: "3.1", schema: {}, problemDetails: false });
    expect(doc).toEqual({ openapi: "3.1.0", info: { title: "OpenAPI", version: "1.0.0" }, paths: {} });
  });

  it("documents the first of two routes registered for one method and path", () => {
    const doc = buildDocument(
      [
        { method: "get", path: "/a", schema: { summary: "first" } },
        { method: "get", path: "/a", schema: { summary: "second" } },
      ],
      { openapiVersion: "3", schema: {}, problemDetails: false },
    );
    expect(at(doc, "paths", "/a", "get", "summary")).toBe("first");
  });

  it("does not share objects between documents or with the conversion cache", () => {
    const routes = userRoutes();
    const first = buildDocument(routes, config("3.1"));
    at(first, "components", "schemas", "User").description = "changed";
    const second = buildDocument(routes, config("3.1"));
    expect(at(second, "components", "schemas", "User", "description")).toBe("A registered user");
  });

  it("treats a body schema that accepts undefined as optional", () => {
    const doc = buildDocument(
      [
        {
          method: "post",
          path: "/ping",
          schema: {
            request: { body: { content: { "application/json": { schema: z.object({ a: z.string() }).optional() } } } },
            responses: { ...InputValidationException.schema(), ...NotFoundException.schema() },
          },
        },
      ],
      { openapiVersion: "3.1", schema: {}, problemDetails: false },
    );
    expect(at(doc, "paths", "/ping", "post", "requestBody", "required")).toBe(false);
    expect(Object.keys(at(doc, "paths", "/ping", "post", "responses"))).toEqual(["400", "404", "413", "415"]);
  });

  it("renames a component that only differs through a component it references", () => {
    const Settings = z.object({ theme: z.enum(["light", "dark"]).default("light") }).openapi("Settings");
    const Profile = z.object({ settings: Settings }).openapi("Profile");
    const doc = buildDocument(
      [
        {
          method: "put",
          path: "/profile",
          schema: {
            request: { body: { content: { "application/json": { schema: Profile } } } },
            responses: { "200": { description: "Saved", content: { "application/json": { schema: Profile } } } },
          },
        },
      ],
      { openapiVersion: "3.1", schema: {}, problemDetails: false },
    );
    const schemas = at(doc, "components", "schemas");
    expect(Object.keys(schemas).sort()).toEqual(["Profile", "ProfileInput", "Settings", "SettingsInput"]);
    expect(at(schemas, "ProfileInput", "properties", "settings")).toEqual({
      $ref: "#/components/schemas/SettingsInput",
    });
    expect(at(schemas, "Profile", "properties", "settings")).toEqual({ $ref: "#/components/schemas/Settings" });
    expect(at(doc, "paths", "/profile", "put", "requestBody", "content", "application/json", "schema")).toEqual({
      $ref: "#/components/schemas/ProfileInput",
    });
  });

  it("documents an anonymous recursive body as a component both versions accept", async () => {
    const Category = z.object({
      name: z.string(),
      get children() {
        return z.array(Category);
      },
    });
    for (const version of ["3", "3.1"] as const) {
      const doc = buildDocument(
        [
          {
            method: "post",
            path: "/categories",
            schema: { request: { body: { content: { "application/json": { schema: Category } } } } },
          },
        ],
        { openapiVersion: version, schema: {}, problemDetails: false },
      );
      expect(await validateDocument(doc)).toEqual({ valid: true });
      expect(danglingRefs(doc)).toEqual([]);
    }
  });
});
