import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiKeyAuth, bearerAuth, contentMultipart, fileField, UnauthorizedException } from "../../src";
import { buildDocument } from "../../src/openapi/document";
import type { DocumentRoute, OpenAPIVersion } from "../../src/openapi/types";
import { resolvedResponse, validateDocument } from "./helpers";

const bearer = bearerAuth({ schemeName: "bearer", verify: () => ({ id: 1 }) });
const key = apiKeyAuth({ in: "cookie", name: "sid", description: "Session cookie", verify: () => ({ id: 1 }) });

const routes: DocumentRoute[] = [
  {
    method: "post",
    path: "/files",
    schema: {
      auth: [bearer, key],
      request: {
        body: contentMultipart(
          z.object({
            doc: z.file().max(10).mime(["application/pdf"]),
            scans: z.array(fileField({ types: ["image/png", "image/tiff"] })).optional(),
            label: z.string(),
          }),
        ),
      },
      responses: { "201": { description: "Stored" } },
    },
  },
  {
    method: "get",
    path: "/files",
    schema: { auth: bearer, security: [{ bearer: ["read"] }], responses: { ...UnauthorizedException.schema() } },
  },
];

function build(version: OpenAPIVersion, components?: Record<string, unknown>) {
  return buildDocument(routes, {
    openapiVersion: version,
    problemDetails: false,
    schema: components ? { components: { securitySchemes: components } } : {},
  });
}

describe.each(["3", "3.1"] as const)("forms and security in OpenAPI %s", (version) => {
  const doc = build(version) as any;
  const upload = doc.paths["/files"].post;
  const media = upload.requestBody.content["multipart/form-data"];

  it("is a valid document", async () => {
    expect(await validateDocument(doc)).toEqual({ valid: true });
  });

  it("describes files as binary strings, with their types as the parts' encoding", () => {
    const file = version === "3" ? { format: "binary" } : { contentMediaType: "application/pdf" };
    expect(media.schema.properties.doc).toEqual({ type: "string", ...file });
    const scan = version === "3" ? { format: "binary" } : { contentMediaType: "application/octet-stream" };
    expect(media.schema.properties.scans).toEqual({ type: "array", items: { type: "string", ...scan } });
    expect(media.encoding).toEqual({
      doc: { contentType: "application/pdf" },
      scans: { contentType: "image/png, image/tiff" },
    });
  });

  it("lists the schemes auth declares and derives each operation's security from it", () => {
    expect(doc.components.securitySchemes).toEqual({
      bearer: { type: "http", scheme: "bearer" },
      apiKeyAuth: { type: "apiKey", in: "cookie", name: "sid", description: "Session cookie" },
    });
    expect(upload.security).toEqual([{ bearer: [] }, { apiKeyAuth: [] }]);
    expect(doc.paths["/files"].get.security).toEqual([{ bearer: ["read"] }]);
  });

  it("documents the 401 of an authenticated operation unless it declares one", () => {
    expect(Object.keys(upload.responses)).toEqual(["201", "400", "401", "403", "413", "415"]);
    expect(upload.responses["401"].headers["WWW-Authenticate"]).toMatchObject({ schema: { type: "string" } });
    expect(resolvedResponse(doc, doc.paths["/files"].get.responses["401"]).description).toBe("Unauthorized");
  });
});

describe("security schemes given in the router's components", () => {
  it("win over the ones authenticators declare", () => {
    const custom = { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "From the gateway" };
    const doc = build("3.1", { bearer: custom }) as any;
    expect(doc.components.securitySchemes.bearer).toEqual(custom);
    expect(doc.components.securitySchemes.apiKeyAuth).toBeDefined();
  });
});
