import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  CreateEndpoint,
  D1ListEndpoint,
  type ListFilters,
  type Logger,
  MetaGenerator,
  type ModelComplete,
  type OrderByDirection,
  type SafeFilters,
  type UpdatedData,
  validateOrderDirection,
} from "../../src";

const Item = z.object({ id: z.number().int(), title: z.string() });

describe("chanfana's endpoint types", () => {
  it("ListFilters.options takes any option name, with the default ones typed", () => {
    const filters: ListFilters = { filters: [], options: { p: 2, limit: 3, page: 1 } };
    expectTypeOf(filters.options.p).toEqualTypeOf<unknown>();
    expectTypeOf(filters.options.page).toEqualTypeOf<number | undefined>();
    expectTypeOf(filters.options.order_by_direction).toEqualTypeOf<OrderByDirection | undefined>();
  });

  it("OrderByDirection is asc or desc, as validateOrderDirection returns", () => {
    expectTypeOf<OrderByDirection>().toEqualTypeOf<"asc" | "desc">();
    expectTypeOf(validateOrderDirection).returns.toEqualTypeOf<OrderByDirection>();
  });

  it("MetaGenerator gives a complete model", () => {
    const meta = MetaGenerator({ model: { tableName: "items", schema: Item, primaryKeys: ["id"] } });
    expectTypeOf(meta.model).toEqualTypeOf<ModelComplete>();
    expectTypeOf(meta.model.serializer).toBeFunction();
    expectTypeOf(meta.pathParameters).toEqualTypeOf<string[] | null>();
  });

  it("UpdatedData, SafeFilters and Logger have chanfana's members", () => {
    expectTypeOf<UpdatedData["updatedData"]>().toEqualTypeOf<Record<string, any>>();
    expectTypeOf<SafeFilters["conditionsParams"]>().toEqualTypeOf<(string | number | boolean | null)[]>();
    expectTypeOf<Logger>().toHaveProperty("debug");
    expectTypeOf(console).toMatchTypeOf<Logger>();
  });

  it("a CreateEndpoint subclass needs no create(), and a D1 list takes a console logger", () => {
    class CreateItem extends CreateEndpoint {
      _meta = { model: { tableName: "items", schema: Item, primaryKeys: ["id"] } };
    }
    class ListItems extends D1ListEndpoint {
      _meta = { model: { tableName: "items", schema: Item, primaryKeys: ["id"] } };
      logger = console;
      maxPerPage = 500;
    }
    expectTypeOf<CreateItem["create"]>().toBeFunction();
    expectTypeOf<ListItems["getDBBinding"]>().toBeFunction();
  });
});
