import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ListEndpoint, type ListFilters } from "../../src";
import { harnesses, honoHarness } from "../helpers";
import { comparator, type Entry, runCursorSuite } from "./cursor.case";

// A hand-written list over an array: the generic ListEndpoint hands it the decoded cursor, and
// the same suite as the SQL engines holds.
let rows: Entry[] = [];

class MemoryList extends ListEndpoint {
  async list(filters: ListFilters) {
    const { options } = filters;
    let matching = rows.filter((row) =>
      filters.filters.every(({ field, operator, value }) => {
        const stored = (row as any)[field];
        if (operator === "EQ") return stored === value;
        if (operator === "GTE") return stored >= (value as number);
        if (operator === "IN") return (value as unknown[]).includes(stored);
        if (operator === "LIKE")
          return this.searchFields.some((name) =>
            String((row as any)[name])
              .toLowerCase()
              .includes(String(value).toLowerCase()),
          );
        throw new Error(`unexpected operator ${operator}`);
      }),
    );
    // The listing's order: the order field, then the primary keys, all one way; without a field, the keys.
    const field = options.order_by as "rank" | "label" | "title" | "id" | undefined;
    const order = field ? comparator(field, options.order_by_direction ?? "asc") : byKey;
    matching = matching.sort(order);
    const perPage = Number(options[this.perPageFieldName] ?? 20);
    const cursor = options[this.cursorFieldName] as ListFilters["options"]["cursor"];
    if (!cursor) {
      const start = (Number(options.page ?? 1) - 1) * perPage;
      return { result: matching.slice(start, start + perPage), result_info: { total_count: matching.length } };
    }
    // The key holds the order field and the primary keys: compare it as a row.
    const position = { ...cursor.key } as Entry;
    if (cursor.direction === "next") {
      const after = matching.filter((row) => order(row, position) > 0);
      return { result: after.slice(0, perPage), hasMore: after.length > perPage };
    }
    const before = matching.filter((row) => order(row, position) < 0);
    return { result: before.slice(-perPage), hasMore: before.length > perPage };
  }
}

function byKey(a: Entry, b: Entry): number {
  return a.shelf - b.shelf || a.id - b.id;
}

for (const harness of harnesses) {
  runCursorSuite(harness, {
    name: "hand-written list in memory",
    List: MemoryList,
    async open() {
      return { tableName: "entries" };
    },
    async replace(next) {
      rows = next.map((row) => ({ ...row }));
    },
    async insert(row) {
      rows.push({ ...row });
    },
    async remove(key) {
      rows = rows.filter((row) => row.shelf !== key.shelf || row.id !== key.id);
    },
    async close() {},
  });
}

describe("cursor pagination configuration", () => {
  const Tagged = z.object({ id: z.number().int(), tags: z.array(z.string()), rank: z.number().int() });
  const meta = { model: { tableName: "tagged", schema: Tagged, primaryKeys: ["id"] } };

  it("refuses at registration an order field whose values a cursor cannot hold, or an unknown mode", () => {
    class ByTags extends ListEndpoint {
      _meta = meta;
      pagination = "cursor" as const;
      orderByFields = ["tags"];
    }
    class Unknown extends ListEndpoint {
      _meta = meta;
      pagination = "pages" as any;
    }
    class ByRank extends ListEndpoint {
      _meta = meta;
      pagination = "both" as const;
      orderByFields = ["rank"];
    }
    const router = honoHarness.make().router;
    expect(() => router.get("/by-tags", ByTags)).toThrow(/cannot order on "tags"/);
    expect(() => router.get("/unknown", Unknown)).toThrow(/pagination must be/);
    expect(() => router.get("/by-rank", ByRank)).not.toThrow();
    // Under "page" (the default) nothing about cursors is checked: chanfana's endpoints register as before.
    class PagesByTags extends ListEndpoint {
      _meta = meta;
      orderByFields = ["tags"];
    }
    expect(() => router.get("/pages-by-tags", PagesByTags)).not.toThrow();
  });
});

describe("cursor pagination over a column a union makes nullable", () => {
  // `z.union([z.string(), z.null()])` may hold NULL as `.nullable()` does: the cursor of a row holding it must come back.
  const Row = z.object({ id: z.number().int(), label: z.union([z.string(), z.null()]) });
  const rows = [
    { id: 1, label: null },
    { id: 2, label: "a" },
  ];
  class ByLabel extends ListEndpoint {
    _meta = { model: { tableName: "labels", schema: Row, primaryKeys: ["id"] } };
    pagination = "cursor" as const;
    orderByFields = ["label"];
    override async list(filters: ListFilters) {
      // NULL first, as on every engine; a page of one, so the first page's cursor names the NULL row.
      const after = filters.options.cursor ? rows.slice(1) : rows;
      return { result: after.slice(0, 1), hasMore: after.length > 1 };
    }
  }

  it("takes back the cursor it gave for a row whose order value is NULL", async () => {
    const { router, request } = honoHarness.make();
    router.get("/labels", ByLabel);
    const first = await (await request("/labels?per_page=1")).json();
    expect(first.result).toEqual([{ id: 1, label: null }]);
    const next = await request(`/labels?per_page=1&cursor=${first.result_info.next_cursor}`);
    expect(next.status).toBe(200);
    expect((await next.json()).result).toEqual([{ id: 2, label: "a" }]);
  });
});
