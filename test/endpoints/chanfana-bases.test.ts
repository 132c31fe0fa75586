import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CreateEndpoint,
  DeleteEndpoint,
  type Filters,
  fromHono,
  ListEndpoint,
  type ListFilters,
  MetaGenerator,
  metaSchemaProps,
  ReadEndpoint,
  SqlReadEndpoint,
  UpdateEndpoint,
} from "../../src";
import { harnesses, jsonBody } from "../helpers";

const Item = z.object({ id: z.number().int(), title: z.string(), score: z.number().int() });
const model = { tableName: "items", schema: Item, primaryKeys: ["id"] };
const items = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, title: `Item ${i + 1}`, score: (i + 1) * 10 }));

describe.each(harnesses)("chanfana's default method bodies ($name)", (harness) => {
  class CreateItem extends CreateEndpoint {
    _meta = { model };
  }
  class ReadItem extends ReadEndpoint {
    _meta = { model };
  }
  class UpdateItem extends UpdateEndpoint {
    _meta = { model };
  }
  class DeleteItem extends DeleteEndpoint {
    _meta = { model };
  }
  class ListItems extends ListEndpoint {
    _meta = { model };
  }
  class UpdateFound extends UpdateItem {
    async getObject(filters: Filters) {
      return items.find((item) => item.id === filters.filters[0]!.value) ?? null;
    }
  }
  class DeleteFound extends DeleteItem {
    async getObject(filters: Filters) {
      return items.find((item) => item.id === filters.filters[0]!.value) ?? null;
    }
  }

  const app = harness.make();
  app.router.post("/items", CreateItem);
  app.router.get("/items/:id", ReadItem);
  app.router.put("/items/:id", UpdateItem);
  app.router.delete("/items/:id", DeleteItem);
  app.router.get("/items", ListItems);
  app.router.put("/found/:id", UpdateFound);
  app.router.delete("/found/:id", DeleteFound);

  it("create() without an override answers 201 with the validated body", async () => {
    const response = await app.request("/items", jsonBody({ id: 7, title: "New", score: 1 }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ success: true, result: { id: 7, title: "New", score: 1 } });
  });

  it("fetch() and getObject() without an override find nothing: 404", async () => {
    expect((await app.request("/items/1")).status).toBe(404);
    expect((await app.request("/items/1", jsonBody({ title: "x", score: 1 }, { method: "PUT" }))).status).toBe(404);
    expect((await app.request("/items/1", { method: "DELETE" })).status).toBe(404);
  });

  it("update() without an override answers the object as found", async () => {
    const response = await app.request("/found/2", jsonBody({ title: "Changed", score: 5 }, { method: "PUT" }));
    expect(response.status).toBe(200);
    expect((await response.json()).result).toEqual(items[1]);
  });

  it("delete() without an override deletes nothing: 404", async () => {
    expect((await app.request("/found/2", { method: "DELETE" })).status).toBe(404);
  });

  it("list() without an override answers an empty page", async () => {
    const response = await app.request("/items");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, result: [] });
  });
});

describe.each(harnesses)("list options under custom parameter names ($name)", (harness) => {
  const seen: ListFilters[] = [];

  /** A chanfana-style list() that reads the options by the names it chose. */
  class RenamedList extends ListEndpoint {
    _meta = { model };
    pageFieldName = "p";
    perPageFieldName = "limit";
    orderByFieldName = "sort";
    orderByDirectionFieldName = "direction";
    orderByFields = ["title", "score"];
    filterFields = ["title"];

    async list(filters: ListFilters) {
      seen.push(filters);
      const { sort, direction, p, limit } = filters.options;
      const sorted = [...items];
      if (typeof sort === "string") {
        const sign = direction === "desc" ? -1 : 1;
        sorted.sort((a, b) => sign * ((a as any)[sort] - (b as any)[sort]));
      }
      const page = Number(p) || 1;
      const perPage = Number(limit) || 20;
      return { result: sorted.slice((page - 1) * perPage, page * perPage) };
    }
  }

  class OnlyPageRenamed extends RenamedList {
    perPageFieldName = "per_page";
    orderByFieldName = "order_by";
    orderByDirectionFieldName = "order_by_direction";
    async list(filters: ListFilters) {
      const page = Number(filters.options.p) || 1;
      const perPage = Number(filters.options.per_page) || 20;
      return { result: items.slice((page - 1) * perPage, page * perPage) };
    }
  }

  const app = harness.make();
  app.router.get("/items", RenamedList);
  app.router.get("/partial", OnlyPageRenamed);

  it("hands list() the options keyed by the names in force, and none of them as filters", async () => {
    const response = await app.request("/items?p=2&limit=3&sort=score&direction=desc");
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.result.map((item: { id: number }) => item.id)).toEqual([7, 6, 5]);
    expect(body.result_info).toEqual({ count: 3, page: 2, per_page: 3 });
    const filters = seen.at(-1)!;
    expect(filters.options).toEqual({ p: 2, limit: 3, sort: "score", direction: "desc" });
    expect(filters.filters).toEqual([]);
  });

  it("orders by the first of orderByFields when the request names no order, as chanfana does", async () => {
    const body = await (await app.request("/items?limit=2")).json();
    expect(seen.at(-1)!.options).toMatchObject({ sort: "title", direction: "asc" });
    expect(body.result.map((item: { id: number }) => item.id)).toEqual([1, 2]);
    const sort = (app.router.schema.paths["/items"].get.parameters as { name: string; schema: any }[]).find(
      (parameter) => parameter.name === "sort",
    );
    expect(sort?.schema.default).toBe("title");
  });

  it("keeps real filters apart from the options", async () => {
    await app.request("/items?title=Item%202&limit=2");
    expect(seen.at(-1)!.filters).toEqual([{ field: "title", operator: "EQ", value: "Item 2" }]);
  });

  it("uses a renamed page with the default per_page name", async () => {
    const body = await (await app.request("/partial?p=3&per_page=4")).json();
    expect(body.result.map((item: { id: number }) => item.id)).toEqual([9, 10]);
    expect(body.result_info).toMatchObject({ page: 3, per_page: 4 });
  });

  it("documents the renamed parameters, not the default ones", () => {
    const parameters = (app.router.schema.paths["/items"].get.parameters as { name: string }[]).map((p) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(["p", "limit", "sort", "direction", "title"]));
    expect(parameters).not.toContain("page");
    expect(parameters).not.toContain("per_page");
  });

  it("refuses at registration a filter field that shares an option's name", () => {
    class Clash extends ListEndpoint {
      _meta = { model: { ...model, schema: Item.extend({ p: z.string() }) } };
      pageFieldName = "p";
      filterFields = ["p"];
    }
    expect(() => harness.make().router.get("/clash", Clash)).toThrow('List query parameter "p" is declared twice');
  });
});

describe("maxPerPage on a custom list", () => {
  class Big extends ListEndpoint {
    _meta = { model };
    maxPerPage = 150;
    async list(filters: ListFilters) {
      return { result: [], result_info: { per_page: filters.options.per_page } };
    }
  }
  class Small extends Big {
    maxPerPage = 5;
  }
  const app = new Hono();
  const router = fromHono(app);
  router.get("/big", Big);
  router.get("/small", Small);

  it("accepts a per_page above 100 up to maxPerPage, and refuses more", async () => {
    expect((await (await app.request("/big?per_page=150")).json()).result_info.per_page).toBe(150);
    expect((await app.request("/big?per_page=151")).status).toBe(400);
  });

  it("cuts a larger per_page to a maxPerPage under 100, as chanfana's D1 list does", async () => {
    expect((await (await app.request("/small?per_page=50")).json()).result_info.per_page).toBe(5);
    expect((await app.request("/small?per_page=101")).status).toBe(400);
  });
});

describe("Meta helpers and tags", () => {
  it("MetaGenerator fills chanfana's defaults", () => {
    const serializer = (obj: object) => obj;
    const filled = MetaGenerator({ model: { ...model, serializer }, tags: ["Items"] });
    expect(filled.fields).toBe(Item);
    expect(filled.model.serializer).toBe(serializer);
    expect(filled.model.serializerSchema).toBe(Item);
    expect(filled.pathParameters).toBeNull();
    expect(filled.tags).toEqual(["Items"]);
    const bare = MetaGenerator({ model });
    expect(bare.tags).toBeUndefined();
    expect(bare.model.serializer({ a: 1 })).toEqual({ a: 1 });
  });

  it("metaSchemaProps carries tags only when there is at least one", () => {
    expect(metaSchemaProps({ model, tags: ["Items"] })).toEqual({ tags: ["Items"] });
    expect(metaSchemaProps({ model, tags: [] })).toEqual({});
    expect(metaSchemaProps({ model })).toEqual({});
  });

  it("documents no tags for an empty _meta.tags, and the listed ones otherwise", () => {
    class NoTags extends CreateEndpoint {
      _meta = { model, tags: [] };
    }
    class Tagged extends CreateEndpoint {
      _meta = { model, tags: ["Items", "Admin"] };
    }
    const router = fromHono(new Hono());
    router.post("/none", NoTags);
    router.post("/tagged", Tagged);
    expect((router.schema.paths as any)["/none"].post.tags).toBeUndefined();
    expect((router.schema.paths as any)["/tagged"].post.tags).toEqual(["Items", "Admin"]);
  });
});

describe("getSchema() computes; registration prepares", () => {
  class ReadRow extends SqlReadEndpoint {
    _meta = { model };
  }
  const params = { route: "/items/{id}", urlParams: ["id"], method: "get" } as any;

  it("leaves an unregistered endpoint without runtime state, however often it is called", () => {
    const endpoint = new ReadRow(params);
    const first = endpoint.getSchema();
    const second = endpoint.getSchema();
    expect(Object.keys((first.request!.params as z.ZodObject).shape)).toEqual(["id"]);
    expect(Object.keys(second.responses!)).toEqual(Object.keys(first.responses!));
    expect(endpoint.preparedPathKeys).toBeUndefined();
    expect(endpoint.storageTable).toBeUndefined();
  });

  it("prepareRoute() resolves the path keys and builds the table", () => {
    const endpoint = new ReadRow(params);
    endpoint.prepareRoute();
    expect(endpoint.preparedPathKeys).toEqual(["id"]);
    expect((endpoint.storageTable as { tableName?: string } | undefined)?.tableName).toBe("items");
  });

  it("a model SQL cannot name fails at registration, from prepareRoute()", () => {
    class BadTable extends SqlReadEndpoint {
      _meta = { model: { ...model, tableName: "items; DROP TABLE items" } };
    }
    expect(() => new BadTable(params).getSchema()).not.toThrow();
    expect(() => fromHono(new Hono()).get("/items/:id", BadTable)).toThrow(/Invalid table name/);
  });
});
