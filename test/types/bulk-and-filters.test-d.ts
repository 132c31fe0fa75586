import { describe, expectTypeOf, it } from "vitest";
import {
  CreateEndpoint,
  type FilterCondition,
  type FilterOperatorName,
  type SqlDriver,
  type SqlStatement,
  type SqlTable,
} from "../../src";
import type { SqlRow } from "../../src/sql";

describe("bulk create and filter operator types", () => {
  it("offers isnull as an operator name and ISNULL as a condition operator", () => {
    expectTypeOf<"isnull">().toExtend<FilterOperatorName>();
    expectTypeOf<"ISNULL">().toExtend<FilterCondition["operator"]>();
    // @ts-expect-error: not an operator
    const wrong: FilterOperatorName = "null";
    void wrong;
  });

  it("types the bulk switches and createMany of CreateEndpoint", () => {
    class CreateMany extends CreateEndpoint {
      bulk = true;
      maxBulkItems = 10;
    }
    expectTypeOf<CreateMany["bulk"]>().toEqualTypeOf<boolean>();
    expectTypeOf<CreateMany["maxBulkItems"]>().toEqualTypeOf<number>();
    expectTypeOf<CreateMany["createMany"]>().returns.toEqualTypeOf<Promise<object[]>>();
  });

  it("types the driver's transaction and batch, and insertMany's rows", () => {
    expectTypeOf<NonNullable<SqlDriver["transaction"]>>()
      .parameter(0)
      .toEqualTypeOf<(tx: SqlDriver) => Promise<unknown>>();
    expectTypeOf<NonNullable<SqlDriver["batch"]>>().parameter(0).toEqualTypeOf<SqlStatement[]>();
    expectTypeOf<SqlTable["insertMany"]>().returns.toEqualTypeOf<Promise<SqlRow[]>>();
  });
});
