import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CreateEndpoint, DeleteEndpoint, fromHono, ListEndpoint, ReadEndpoint, UpdateEndpoint } from "../../src";
import { at, danglingRefs, redoclyErrors, validateDocument } from "./helpers";

const Note = z.object({ id: z.number().int(), text: z.string(), version: z.number().int() });
const model = { tableName: "notes", schema: Note, primaryKeys: ["id"], versionField: "version" };
const meta = { model, tags: ["notes"] };

function endpoints(options: { conditionalRequests?: boolean; requireIfMatch?: boolean }) {
  const opt = { conditionalRequests: false, requireIfMatch: false, ...options };
  return {
    Create: class extends CreateEndpoint {
      _meta = meta;
      conditionalRequests = opt.conditionalRequests;
    },
    Read: class extends ReadEndpoint {
      _meta = meta;
      conditionalRequests = opt.conditionalRequests;
    },
    Update: class extends UpdateEndpoint {
      _meta = meta;
      conditionalRequests = opt.conditionalRequests;
      requireIfMatch = opt.requireIfMatch;
    },
    Delete: class extends DeleteEndpoint {
      _meta = meta;
      conditionalRequests = opt.conditionalRequests;
      requireIfMatch = opt.requireIfMatch;
    },
    List: class extends ListEndpoint {
      _meta = meta;
    },
  };
}

function build(errorFormat: "envelope" | "problem" = "envelope") {
  const router = fromHono(new Hono(), { errorFormat });
  for (const [prefix, options] of [
    ["/plain", {}],
    ["/conditional", { conditionalRequests: true }],
    ["/strict", { requireIfMatch: true }],
  ] as const) {
    const { Create, Read, Update, Delete, List } = endpoints(options);
    router.post(prefix, Create);
    router.get(prefix, List);
    router.get(`${prefix}/:id`, Read);
    router.patch(`${prefix}/:id`, Update);
    router.delete(`${prefix}/:id`, Delete);
  }
  return router;
}

const headerParams = (operation: any) =>
  (operation.parameters ?? []).filter((param: any) => param.in === "header").map((param: any) => param.name);

describe("conditional requests in the document", () => {
  const doc = build().getGeneratedSchema("3.1") as any;

  it("shows ETag, If-None-Match and 304 on an opted-in Read only", () => {
    const read = at(doc, "paths", "/conditional/{id}", "get");
    expect(headerParams(read)).toEqual(["If-None-Match"]);
    expect(read.parameters.find((param: any) => param.name === "If-None-Match")).toMatchObject({ required: false });
    expect(Object.keys(read.responses["200"].headers)).toEqual(["ETag"]);
    expect(read.responses["304"].content).toBeUndefined();
    expect(Object.keys(read.responses["304"].headers)).toEqual(["ETag"]);
    expect(read.responses["412"]).toBeUndefined();
  });

  it("shows If-Match, 412 and the ETag of the updated object on an opted-in Update; 428 only when If-Match is required", () => {
    const update = at(doc, "paths", "/conditional/{id}", "patch");
    expect(headerParams(update)).toEqual(["If-Match"]);
    expect(Object.keys(update.responses["200"].headers)).toEqual(["ETag"]);
    expect(update.responses["412"].content["application/json"].schema).toBeDefined();
    expect(update.responses["428"]).toBeUndefined();
    expect(update.responses["304"]).toBeUndefined();
    const strict = at(doc, "paths", "/strict/{id}", "patch");
    expect(strict.responses["428"].content["application/json"].schema).toBeDefined();
    expect(strict.parameters.find((param: any) => param.name === "If-Match").description).toContain("428");
  });

  it("shows If-Match and 412 on an opted-in Delete, without an ETag on the deleted object", () => {
    const del = at(doc, "paths", "/conditional/{id}", "delete");
    expect(headerParams(del)).toEqual(["If-Match"]);
    expect(del.responses["412"]).toBeDefined();
    expect(del.responses["200"].headers).toBeUndefined();
    expect(Object.keys(at(doc, "paths", "/strict/{id}", "delete").responses)).toContain("428");
  });

  it("shows the ETag header on an opted-in Create's 201, and no conditional header", () => {
    const create = at(doc, "paths", "/conditional", "post");
    expect(Object.keys(create.responses["201"].headers)).toEqual(["ETag"]);
    expect(headerParams(create)).toEqual([]);
  });

  it("leaves endpoints that did not opt in, and lists, exactly as before", () => {
    for (const path of ["/plain", "/plain/{id}", "/conditional"]) {
      for (const [method, operation] of Object.entries(doc.paths[path]) as [string, any][]) {
        if (path === "/conditional" && method === "post") continue;
        expect(headerParams(operation), `${method} ${path}`).toEqual([]);
        for (const status of ["304", "412", "428"]) expect(operation.responses[status]).toBeUndefined();
        for (const response of Object.values(operation.responses) as any[]) expect(response.headers).toBeUndefined();
      }
    }
  });

  it("keeps the storage's version column out of Create and Update bodies", () => {
    for (const [path, method] of [
      ["/plain", "post"],
      ["/plain/{id}", "patch"],
    ]) {
      const body = at(doc, "paths", path!, method!, "requestBody", "content", "application/json", "schema");
      const properties = body.properties ?? doc.components.schemas[body.$ref?.split("/").pop()]?.properties;
      expect(Object.keys(properties), `${method} ${path}`).not.toContain("version");
    }
  });

  it("documents 412 and 428 as problem details under errorFormat: problem", () => {
    const problems = build("problem").getGeneratedSchema("3.1") as any;
    const strict = at(problems, "paths", "/strict/{id}", "patch");
    expect(Object.keys(strict.responses["412"].content)).toEqual(["application/problem+json"]);
    expect(Object.keys(strict.responses["428"].content)).toEqual(["application/problem+json"]);
  });

  it("is a valid document in both versions, without dangling references or redocly errors", async () => {
    for (const version of ["3", "3.1"] as const) {
      const built = build().getGeneratedSchema(version);
      const result = await validateDocument(built);
      expect(result.errors ?? null).toBeNull();
      expect(danglingRefs(built)).toEqual([]);
      expect(await redoclyErrors(built)).toEqual([]);
    }
  });
});
