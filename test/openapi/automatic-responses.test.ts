import Database from "better-sqlite3";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  bearerAuth,
  betterSqlite3Driver,
  ConflictException,
  contentJson,
  fromHono,
  InputValidationException,
  OpenAPIRoute,
  type RouterOptions,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { resolvedResponse, validateDocument } from "./helpers";

const Item = z.object({ id: z.number().int(), name: z.string(), parentId: z.number().int() });
const itemModel = { tableName: "items", schema: Item, primaryKeys: ["id"], unique: ["name"] };
const meta = { model: itemModel, fields: Item.omit({ id: true }) };
const bearer = bearerAuth({ realm: "items", verify: () => ({ id: 1 }) });

class Plain extends OpenAPIRoute {
  schema = { responses: { "200": { description: "Pong" } } };
  async handle() {
    return { ok: true };
  }
}
class WithQuery extends OpenAPIRoute {
  schema = { request: { query: z.object({ page: z.number().int() }) }, responses: { "200": { description: "Page" } } };
  async handle() {
    return {};
  }
}
class WithBody extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(z.object({ name: z.string() })) },
    responses: { "201": { description: "Made" }, "400": { description: "My own 400" } },
  };
  async handle() {
    return {};
  }
}
class Guarded extends OpenAPIRoute {
  schema = { auth: bearer, responses: { "200": { description: "Secret" } } };
  async handle() {
    return {};
  }
}
class CreateItem extends SqlCreateEndpoint {
  _meta = meta;
}
class CreateItemNamed extends SqlCreateEndpoint {
  _meta = meta;
  constraintsMessages = { "items.name": new InputValidationException("Name taken", ["body", "name"]) };
}
class UpdateItem extends SqlUpdateEndpoint {
  _meta = meta;
}
class ReadItem extends SqlReadEndpoint {
  _meta = meta;
}
class ListItems extends SqlListEndpoint {
  _meta = meta;
}
class CreateChild extends SqlCreateEndpoint {
  _meta = { ...meta, pathParameters: ["parentId"] };
  checksParent = true;
}
class CreateChildUnchecked extends SqlCreateEndpoint {
  _meta = { ...meta, pathParameters: ["parentId"] };
}

function documentOf(options: RouterOptions = {}) {
  const router = fromHono(new Hono(), options);
  router.get("/ping", Plain);
  router.get("/pages", WithQuery);
  router.post("/things", WithBody);
  router.get("/secret", Guarded);
  router.post("/items", CreateItem);
  router.post("/named-items", CreateItemNamed);
  router.patch("/items/:id", UpdateItem);
  router.get("/items/:id", ReadItem);
  router.get("/items", ListItems);
  router.post("/parents/:parentId/items", CreateChild);
  router.post("/unchecked/:parentId/items", CreateChildUnchecked);
  return router.getGeneratedSchema() as any;
}

const statuses = (doc: any, path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();

describe("the answers the framework gives on its own, in the document", () => {
  const doc = documentOf();

  it("is a valid document", async () => {
    expect(await validateDocument(doc)).toEqual({ valid: true });
  });

  it("adds nothing to an operation that declares no request part and no auth", () => {
    expect(statuses(doc, "/ping", "get")).toEqual(["200"]);
  });

  it("lists 400 when a request part is declared", () => {
    expect(statuses(doc, "/pages", "get")).toEqual(["200", "400"]);
    expect(doc.paths["/pages"].get.responses["400"]).toEqual({ $ref: "#/components/responses/InputValidation" });
    expect(
      resolvedResponse(doc, doc.paths["/pages"].get.responses["400"]).content["application/json"].schema,
    ).toBeDefined();
  });

  it("lists 413 and 415 when a body is declared, the user's own 400 winning", () => {
    const { responses } = doc.paths["/things"].post;
    expect(Object.keys(responses).sort()).toEqual(["201", "400", "413", "415"]);
    expect(responses["400"]).toEqual({ description: "My own 400" });
    expect(resolvedResponse(doc, responses["413"]).description).toBe("Payload Too Large");
    expect(resolvedResponse(doc, responses["415"]).description).toBe("Unsupported Media Type");
  });

  it("lists 401 with the scheme's WWW-Authenticate challenge, and 403, where an auth helper guards the route", () => {
    const { responses } = doc.paths["/secret"].get;
    expect(Object.keys(responses).sort()).toEqual(["200", "401", "403"]);
    const header = responses["401"].headers["WWW-Authenticate"];
    expect(header.schema).toEqual({ type: "string" });
    expect(header.description).toContain('Bearer realm="items"');
  });

  it("lists 404 for Read and Update, not for List or an unchecked nested Create", () => {
    expect(statuses(doc, "/items/{id}", "get")).toContain("404");
    expect(statuses(doc, "/items/{id}", "patch")).toContain("404");
    expect(statuses(doc, "/items", "get")).not.toContain("404");
    expect(statuses(doc, "/unchecked/{parentId}/items", "post")).not.toContain("404");
  });

  it("lists 404 for a nested Create that declares checksParent", () => {
    expect(statuses(doc, "/parents/{parentId}/items", "post")).toContain("404");
  });

  it("lists 409 for SQL Create and Update of a model with unique columns", () => {
    const conflict = Object.values(ConflictException.schema())[0]!;
    expect(resolvedResponse(doc, doc.paths["/items"].post.responses["409"]).description).toBe(conflict.description);
    expect(statuses(doc, "/items/{id}", "patch")).toContain("409");
    expect(statuses(doc, "/items/{id}", "get")).not.toContain("409");
  });

  it("lists the constraintsMessages answer's status instead of 409 when one maps the unique column", () => {
    const { responses } = doc.paths["/named-items"].post;
    expect(responses).not.toHaveProperty("409");
    expect(responses["400"]).toBeDefined();
  });

  it("lists no 500 or default the user did not ask for", () => {
    for (const item of Object.values(doc.paths) as any[]) {
      for (const operation of Object.values(item) as any[]) {
        expect(operation.responses).not.toHaveProperty("500");
        expect(operation.responses).not.toHaveProperty("default");
      }
    }
  });

  it("marks operations that need no credentials `security: []` once the document has a scheme", () => {
    expect(doc.paths["/ping"].get.security).toEqual([]);
    expect(doc.paths["/secret"].get.security).toEqual([{ bearerAuth: [] }]);
    const unsecured = fromHono(new Hono());
    unsecured.get("/ping", Plain);
    expect((unsecured.getGeneratedSchema() as any).paths["/ping"].get).not.toHaveProperty("security");
  });

  it("leaves operations alone under schemes only the user declares (middleware may enforce them)", () => {
    const declared = fromHono(new Hono(), {
      schema: { components: { securitySchemes: { gate: { type: "http", scheme: "bearer" } } } },
    });
    declared.get("/ping", Plain);
    expect((declared.getGeneratedSchema() as any).paths["/ping"].get).not.toHaveProperty("security");
  });

  it("leaves operations to a document-level `security` the user declares", () => {
    const declared = fromHono(new Hono(), {
      schema: {
        security: [{ gate: [] }],
        components: { securitySchemes: { gate: { type: "http", scheme: "bearer" } } },
      },
    });
    declared.get("/ping", Plain);
    expect((declared.getGeneratedSchema() as any).paths["/ping"].get).not.toHaveProperty("security");
  });
});

describe("automaticResponses: false", () => {
  const doc = documentOf({ automaticResponses: false });

  it("leaves every automatic entry out, the endpoints' derived 404 and 409 included", () => {
    expect(statuses(doc, "/pages", "get")).toEqual(["200"]);
    expect(statuses(doc, "/things", "post")).toEqual(["201", "400"]);
    expect(statuses(doc, "/secret", "get")).toEqual(["200"]);
    expect(statuses(doc, "/items/{id}", "patch")).toEqual(["200"]);
    expect(statuses(doc, "/items", "post")).toEqual(["201"]);
  });
});

describe("automatic entries with problem details", () => {
  it("are RFC 9457 problem details", async () => {
    const doc = documentOf({ errorFormat: "problem" });
    expect(await validateDocument(doc)).toEqual({ valid: true });
    for (const [path, method, status] of [
      ["/pages", "get", "400"],
      ["/things", "post", "415"],
      ["/secret", "get", "401"],
      ["/items", "post", "409"],
    ] as const) {
      expect(resolvedResponse(doc, doc.paths[path][method].responses[status]).content).toEqual({
        "application/problem+json": { schema: { $ref: "#/components/schemas/ProblemDetails" } },
      });
    }
  });
});

describe("auth inherited from a parent router", () => {
  it("documents the mount's 401 and 403 on the nested routes", () => {
    const key = apiKeyAuth({ in: "header", name: "X-Key", verify: () => ({}) });
    const parent = fromHono(new Hono(), { auth: key });
    const nested = fromHono(new Hono());
    nested.get("/ping", Plain);
    parent.route("/nested", nested);
    const { responses, security } = (parent.getGeneratedSchema() as any).paths["/nested/ping"].get;
    expect(Object.keys(responses).sort()).toEqual(["200", "401", "403"]);
    expect(responses["401"].headers["WWW-Authenticate"].description).toContain('name="X-Key"');
    expect(security).toEqual([{ apiKeyAuth: [] }]);
  });
});

describe("a Create whose body may carry the primary key", () => {
  const Tag = z.object({ id: z.number().int(), label: z.string() });
  class CreateTag extends SqlCreateEndpoint {
    _meta = { model: { tableName: "tags", schema: Tag, primaryKeys: ["id"] }, fields: Tag };
  }

  it("documents the 409 a client-sent id that is taken gets, and answers it (real SQLite)", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE tags (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
    const app = new Hono();
    const router = fromHono(app, { db: betterSqlite3Driver(db) });
    router.post("/tags", CreateTag);
    const doc = router.getGeneratedSchema() as any;
    expect(Object.keys(doc.paths["/tags"].post.responses)).toContain("409");
    const send = () =>
      app.request("/tags", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: 7, label: "x" }),
      });
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(409);
    db.close();
  });
});

describe("the framework's answers written once", () => {
  it("references each built-in answer from components.responses, under a stable name a router's schema can replace", async () => {
    const doc = documentOf() as any;
    expect(doc.paths["/things"].post.responses["413"]).toEqual({ $ref: "#/components/responses/PayloadTooLarge" });
    expect(doc.paths["/items/{id}"].get.responses["404"]).toEqual({ $ref: "#/components/responses/NotFound" });
    expect(Object.keys(doc.components.responses).sort()).toEqual(
      ["Conflict", "Forbidden", "InputValidation", "NotFound", "PayloadTooLarge", "UnsupportedMediaType"].sort(),
    );
    const replaced = documentOf({
      schema: { components: { responses: { NotFound: { description: "No such item, or not yours" } } } },
    }) as any;
    expect(replaced.components.responses.NotFound).toEqual({ description: "No such item, or not yours" });
    expect(replaced.paths["/items/{id}"].get.responses["404"]).toEqual({ $ref: "#/components/responses/NotFound" });
    expect(await validateDocument(replaced)).toEqual({ valid: true });
  });
});
