import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type ListCursor,
  ListEndpoint,
  type ListFilters,
  type ListResult,
  type Pagination,
  SqlListEndpoint,
} from "../../src";

const Book = z.object({ id: z.number().int(), year: z.number().int() });
const meta = { model: { tableName: "books", schema: Book, primaryKeys: ["id"] } };

class ListBooks extends ListEndpoint {
  _meta = meta;
  pagination = "cursor" as const;
  orderByFields = ["year"];

  async list(filters: ListFilters): Promise<ListResult<object>> {
    expectTypeOf(filters.options.cursor).toEqualTypeOf<ListCursor | undefined>();
    const cursor = filters.options.cursor;
    if (cursor) {
      expectTypeOf(cursor.direction).toEqualTypeOf<"next" | "prev">();
      expectTypeOf(cursor.key).toEqualTypeOf<Record<string, unknown>>();
    }
    return { result: [], hasMore: false, result_info: { next_cursor: null } };
  }
}

class BothBooks extends SqlListEndpoint {
  _meta = meta;
  override pagination: Pagination = "both";
  cursorFieldName = "after";
}

class WrongBooks extends ListEndpoint {
  _meta = meta;
  // @ts-expect-error: only "page", "cursor" or "both"
  pagination = "pages" as const;
}

describe("cursor pagination types", () => {
  it("types the pagination field and the decoded cursor list() receives", () => {
    expectTypeOf<ListBooks["pagination"]>().toEqualTypeOf<"cursor">();
    expectTypeOf<BothBooks["pagination"]>().toEqualTypeOf<Pagination>();
    expectTypeOf<Pagination>().toEqualTypeOf<"page" | "cursor" | "both">();
    expectTypeOf<WrongBooks>().not.toBeNever();
  });
});
