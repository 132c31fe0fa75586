import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterOptions } from "../../src";
import { type AdapterHarness, documentErrors, honoHarness } from "../helpers";
import { librarySuffix, type ModelSet } from "./model-set";
import { type Entry, zodModels } from "./models";

export { type Entry, EntrySchema } from "./models";

type Abstract<T> = abstract new (...args: any[]) => T;

/** A list implementation under test (SQL on one engine, or a hand-written list in memory) and its storage. */
export interface CursorBackend {
  name: string;
  List: Abstract<any>;
  routerOptions?: RouterOptions;
  /** Creates the table once; `tableName` is what the model names. */
  open(): Promise<{ tableName: string }>;
  /** Leaves exactly these rows stored. */
  replace(rows: Entry[]): Promise<void>;
  insert(row: Entry): Promise<void>;
  remove(row: Pick<Entry, "shelf" | "id">): Promise<void>;
  close(): Promise<void>;
}

const ORDER_FIELDS = ["rank", "label", "title", "id"] as const;
type OrderField = (typeof ORDER_FIELDS)[number];

// Lower-case ASCII titles and labels sort alike under every engine's default collation.
const SEED: Entry[] = [
  { shelf: 1, id: 1, rank: 2, label: "bee", title: "oak" },
  { shelf: 1, id: 2, rank: 1, label: null, title: "ash" },
  { shelf: 1, id: 3, rank: 2, label: "ant", title: "elm" },
  { shelf: 2, id: 1, rank: 3, label: null, title: "fir" },
  { shelf: 2, id: 2, rank: 2, label: "bee", title: "yew" },
  { shelf: 1, id: 4, rank: 1, label: "cat", title: "box" },
  { shelf: 2, id: 3, rank: 1, label: null, title: "ivy" },
  { shelf: 3, id: 1, rank: 3, label: "ant", title: "bay" },
  { shelf: 1, id: 5, rank: 2, label: null, title: "gum" },
  { shelf: 3, id: 2, rank: 1, label: "bee", title: "hop" },
  { shelf: 2, id: 4, rank: 3, label: "cat", title: "lime" },
  { shelf: 3, id: 3, rank: 2, label: null, title: "nut" },
  { shelf: 2, id: 5, rank: 1, label: "ant", title: "pear" },
];

const keyOf = (row: Pick<Entry, "shelf" | "id">) => `${row.shelf}/${row.id}`;

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return (a as any) < (b as any) ? -1 : 1;
}

/** The listing's order as every engine must follow it: the field (NULL smallest), then (shelf, id), all one way. */
export function comparator(field: OrderField, direction: "asc" | "desc") {
  const sign = direction === "asc" ? 1 : -1;
  const keys = field === "id" ? (["id", "shelf"] as const) : ([field, "shelf", "id"] as const);
  return (a: Entry, b: Entry) => {
    for (const key of keys) {
      const order = compareValues(a[key], b[key]);
      if (order !== 0) return sign * order;
    }
    return 0;
  };
}

async function json(response: Response): Promise<any> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
}

function buildApp(harness: AdapterHarness, backend: CursorBackend, tableName: string, models: ModelSet) {
  const meta = { model: { tableName, schema: models.EntrySchema, primaryKeys: ["shelf", "id"] } };
  const options = {
    filterFields: ["shelf"],
    filterOperators: { rank: ["gte", "in"] },
    searchFields: ["title"],
    orderByFields: [...ORDER_FIELDS],
  };
  class CursorEntries extends backend.List {
    _meta = meta;
    pagination = "cursor";
    filterFields = options.filterFields;
    filterOperators = options.filterOperators;
    searchFields = options.searchFields;
    orderByFields = options.orderByFields;
    defaultOrderBy = "rank";
  }
  class BothEntries extends CursorEntries {
    pagination = "both";
  }
  class PageEntries extends CursorEntries {
    pagination = "page";
  }
  class UnorderedEntries extends backend.List {
    _meta = meta;
    pagination = "cursor";
    cursorFieldName = "after";
    perPageFieldName = "limit";
  }
  class ShelfEntries extends CursorEntries {
    _meta = { ...meta, pathParameters: ["shelf", "id"] };
    filterFields = [];
  }
  // Every answer is checked against the documented response schema (a mismatch would be a 500).
  const app = harness.make({ ...backend.routerOptions, validateResponse: true });
  app.router.get("/entries", CursorEntries);
  app.router.get("/both", BothEntries);
  app.router.get("/pages", PageEntries);
  app.router.get("/unordered", UnorderedEntries);
  app.router.get("/shelves/:shelf/entries", ShelfEntries);
  return app;
}

/** Follows a Link header's target, a reference relative to the request URL. */
function linkTargets(header: string | null, requestUrl: string): Record<string, string> {
  const targets: Record<string, string> = {};
  for (const match of (header ?? "").matchAll(/<([^>]*)>;\s*rel="(\w+)"/g)) {
    const url = new URL(match[1]!, requestUrl);
    targets[match[2]!] = url.pathname + url.search;
  }
  return targets;
}

/** Rewrites a cursor's JSON, as a client tampering with it would. */
function tamper(cursor: string, change: (payload: any[]) => unknown): string {
  const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  return Buffer.from(JSON.stringify(change(payload) ?? payload)).toString("base64url");
}

/** Cursor (keyset) pagination as every backend must show it, over the entry of `models` (zod's by default). */
export function runCursorSuite(harness: AdapterHarness, backend: CursorBackend, models: ModelSet = zodModels): void {
  describe(`${harness.name} × ${backend.name}${librarySuffix(models)}: cursor pagination`, () => {
    let app: ReturnType<typeof buildApp>;
    beforeAll(async () => {
      const { tableName } = await backend.open();
      app = buildApp(harness, backend, tableName, models);
    });
    afterAll(() => backend.close());
    beforeEach(() => backend.replace(SEED));

    const get = async (path: string) => {
      const response = await app.request(path);
      return { response, body: await json(response) };
    };
    const keys = (body: any) => body.result.map(keyOf);
    const expected = (field: OrderField, direction: "asc" | "desc", rows = SEED) =>
      [...rows].sort(comparator(field, direction)).map(keyOf);

    /** Every page from `path` on, following the Link header's next (or prev), with the pages in the order visited. */
    async function walkPages(path: string, rel: "next" | "prev" = "next") {
      const pages: string[][] = [];
      const bodies: any[] = [];
      let next: string | undefined = path;
      for (let guard = 0; next && guard < 100; guard++) {
        const { response, body } = await get(next);
        expect(response.status, `${next}: ${JSON.stringify(body)}`).toBe(200);
        pages.push(keys(body));
        bodies.push(body);
        const cursor = body.result_info[`${rel}_cursor`];
        const link: string | undefined = linkTargets(response.headers.get("link"), `http://localhost${next}`)[rel];
        if (cursor === null) expect(link).toBeUndefined();
        else expect([...new URLSearchParams(link!.split("?")[1]).values()]).toContain(cursor);
        next = link;
      }
      return { pages, bodies };
    }
    const walk = async (path: string) => (await walkPages(path)).pages;

    // One test per order field, so each test's walks stay short on a slow engine.
    for (const field of ORDER_FIELDS) {
      it(`walks by ${field} both ways, each row once, ties and NULLs in a stable order`, async () => {
        for (const direction of ["asc", "desc"] as const) {
          const query = `/entries?order_by=${field}&order_by_direction=${direction}&per_page=3`;
          const { pages: forward, bodies } = await walkPages(query);
          expect(forward.flat(), query).toEqual(expected(field, direction));
          expect(forward.map((page) => page.length)).toEqual([3, 3, 3, 3, 1]);
          // Back from the last page by prev_cursor: the same pages, in reverse, ending where the walk began.
          const lastPage = bodies[bodies.length - 1];
          const back = await walkPages(`${query}&cursor=${lastPage.result_info.prev_cursor}`, "prev");
          expect([...back.pages].reverse().concat([keys(lastPage)]), query).toEqual(forward);
          expect(back.bodies[back.bodies.length - 1].result_info.prev_cursor).toBeNull();
        }
      });
    }

    it("answers result_info with both cursors and a Link header that keeps the other parameters", async () => {
      const first = await get("/entries?per_page=2&rank__in=1&rank__in=2&search=a");
      expect(first.body.result_info).toEqual({
        count: 2,
        per_page: 2,
        next_cursor: expect.any(String),
        prev_cursor: null,
        ...(first.body.result_info.total_count === undefined ? {} : { total_count: expect.any(Number) }),
      });
      const link = first.response.headers.get("link")!;
      expect(link).toMatch(/^<\?[^>]*>; rel="next"$/);
      const next = new URLSearchParams(link.slice(2, link.indexOf(">")));
      expect(next.getAll("rank__in")).toEqual(["1", "2"]);
      expect(next.get("search")).toBe("a");
      expect(next.get("per_page")).toBe("2");
      expect(next.get("cursor")).toBe(first.body.result_info.next_cursor);

      const second = await get(`/entries?${next}`);
      expect(second.body.result_info).toMatchObject({ count: 1, per_page: 2, next_cursor: null });
      expect(second.body.result_info.prev_cursor).toEqual(expect.any(String));
      expect(second.response.headers.get("link")).toMatch(/^<\?[^>]*>; rel="prev"$/);
      const rows = SEED.filter((row) => row.rank <= 2 && row.title.includes("a"));
      expect([...keys(first.body), ...keys(second.body)]).toEqual(expected("rank", "asc", rows));
    });

    it("combines cursors with filters, search, a path key and a renamed cursor parameter", async () => {
      const filtered = (await walk("/entries?shelf=1&order_by=label&order_by_direction=desc&per_page=2")).flat();
      expect(filtered).toEqual(
        expected(
          "label",
          "desc",
          SEED.filter((row) => row.shelf === 1),
        ),
      );
      const searched = (await walk("/entries?search=E&rank__gte=2&order_by=title&per_page=1")).flat();
      expect(searched).toEqual(
        expected(
          "title",
          "asc",
          SEED.filter((row) => row.title.includes("e") && row.rank >= 2),
        ),
      );
      const nested = (await walk("/shelves/2/entries?order_by=rank&order_by_direction=desc&per_page=2")).flat();
      expect(nested).toEqual(
        expected(
          "rank",
          "desc",
          SEED.filter((row) => row.shelf === 2),
        ),
      );

      const { response, body } = await get("/unordered?limit=4");
      expect(keys(body)).toEqual([...SEED].sort(byKey).slice(0, 4).map(keyOf));
      const link = response.headers.get("link")!;
      expect(link).toContain("after=");
      expect(link).toContain("limit=4");
      const pages = await walk("/unordered?limit=4");
      expect(pages.flat()).toEqual([...SEED].sort(byKey).map(keyOf));
    });

    it("answers 400 for a malformed, ill-typed or foreign cursor, never a 500", async () => {
      const { body } = await get("/entries?order_by=label&per_page=2");
      const good: string = body.result_info.next_cursor;
      const bad = {
        "not base64url": "***",
        "not JSON": Buffer.from("{nope").toString("base64url"),
        "not UTF-8": Buffer.from([0xff, 0xfe, 0x5b]).toString("base64url"),
        "a JSON object": Buffer.from('{"a":1}').toString("base64url"),
        "another version": tamper(good, (p) => {
          p[0] = 2;
        }),
        "an unknown direction": tamper(good, (p) => {
          p[1] = "x";
        }),
        "another tag": tamper(good, (p) => {
          p[2] = "0";
        }),
        "a value too few": tamper(good, (p) => {
          p[3].pop();
        }),
        "a value too many": tamper(good, (p) => {
          p[3].push(1);
        }),
        "text for an integer key": tamper(good, (p) => {
          p[3][2] = "1 OR 1=1";
        }),
        "a fraction for an integer key": tamper(good, (p) => {
          p[3][2] = 1.5;
        }),
        "NULL for a key": tamper(good, (p) => {
          p[3][1] = null;
        }),
        "an object for a label": tamper(good, (p) => {
          p[3][0] = { $gt: "" };
        }),
        "a date for a label": tamper(good, (p) => {
          p[3][0] = { d: "2020-01-01T00:00:00.000Z" };
        }),
      };
      // 1e300 is no integer to zod (int() means a safe integer); valibot's integer() and ArkType's
      // number.integer take it (Number.isInteger), so for them it is well-typed, as the values below.
      const hugeNumber = tamper(good, (p) => {
        p[3][2] = 1e300;
      });
      if (models.library === "zod") Object.assign(bad, { "a huge number": hugeNumber });
      for (const [what, cursor] of Object.entries(bad)) {
        const response = await app.request(`/entries?order_by=label&per_page=2&cursor=${encodeURIComponent(cursor)}`);
        expect(response.status, what).toBe(400);
        const error = (await json(response)).errors[0];
        expect(error.path, what).toEqual(["query", "cursor"]);
      }
      // Well-typed for the schema but beyond what an INTEGER column holds: PostgreSQL refuses the value
      // (a 400), the other engines compare it; the same for a filter value. Never a 500.
      const huge = tamper(good, (p) => {
        p[3][1] = 2 ** 40;
      });
      const wellTypedHuge = [`order_by=label&cursor=${huge}`, `shelf=${2 ** 40}`];
      if (models.library !== "zod") wellTypedHuge.push(`order_by=label&cursor=${hugeNumber}`);
      for (const query of wellTypedHuge) {
        const response = await app.request(`/entries?${query}`);
        expect([200, 400], query).toContain(response.status);
      }
      // Bound to the order, direction, filters and route it was made for.
      for (const query of [
        "order_by=rank&per_page=2",
        "order_by=label&order_by_direction=desc",
        "order_by=label&shelf=1",
        "order_by=label&search=a",
      ]) {
        const response = await app.request(`/entries?${query}&cursor=${good}`);
        expect(response.status, query).toBe(400);
        expect((await json(response)).errors[0].message).toMatch(/another order or other filters/);
      }
      expect((await app.request(`/both?order_by=label&cursor=${good}`)).status).toBe(400);
      // A well-typed position is a position: the rows after it, nothing else.
      const moved = tamper(good, (p) => {
        p[3] = ["bee", 1, 1];
      });
      const after = await get(`/entries?order_by=label&per_page=20&cursor=${moved}`);
      expect(after.response.status).toBe(200);
      const all = expected("label", "asc");
      expect(keys(after.body)).toEqual(all.slice(all.indexOf("1/1") + 1));
    });

    it('with pagination "both", pages by number (with a count) or by cursor, and refuses both at once', async () => {
      const page2 = await get("/both?order_by=title&per_page=4&page=2");
      expect(keys(page2.body)).toEqual(expected("title", "asc").slice(4, 8));
      expect(page2.body.result_info).toMatchObject({ count: 4, page: 2, per_page: 4 });
      const { next_cursor, prev_cursor } = page2.body.result_info;
      const page3 = await get(`/both?order_by=title&per_page=4&cursor=${next_cursor}`);
      expect(keys(page3.body)).toEqual(expected("title", "asc").slice(8, 12));
      expect(page3.body.result_info.page).toBeUndefined();
      const page1 = await get(`/both?order_by=title&per_page=4&cursor=${prev_cursor}`);
      expect(keys(page1.body)).toEqual(expected("title", "asc").slice(0, 4));
      expect(page1.body.result_info.prev_cursor).toBeNull();
      // The Link of a numbered page drops the page number.
      expect(page2.response.headers.get("link")).not.toMatch(/[?&]page=/);
      const both = await app.request(`/both?order_by=title&per_page=4&page=3&cursor=${next_cursor}`);
      expect(both.status).toBe(400);
      expect((await json(both)).errors[0].path).toEqual(["query", "page"]);
      // Ties: numbered pages follow the cursor order (key in the order's direction), so they fit together.
      const tied = expected("rank", "desc");
      const byNumber = await get("/both?order_by=rank&order_by_direction=desc&per_page=3&page=2");
      expect(keys(byNumber.body)).toEqual(tied.slice(3, 6));
      const { next_cursor: then } = byNumber.body.result_info;
      const byCursor = await get(`/both?order_by=rank&order_by_direction=desc&per_page=3&cursor=${then}`);
      expect(keys(byCursor.body)).toEqual(tied.slice(6, 9));
      const lastPage = await get("/both?order_by=title&per_page=4&page=4");
      expect(lastPage.body.result_info).toMatchObject({ count: 1, next_cursor: null });
    });

    it('with pagination "page", offers no cursor: result_info and the document as before', async () => {
      // Not offered: an unknown parameter, as any other.
      expect((await app.request("/pages?cursor=whatever")).status).toBe(400);
      const { response, body } = await get("/pages?per_page=2&page=2");
      expect(response.status).toBe(200);
      expect(response.headers.get("link")).toBeNull();
      expect(Object.keys(body.result_info).sort()).toEqual(
        ["count", "page", "per_page", ...(body.result_info.total_count === undefined ? [] : ["total_count"])].sort(),
      );
      const doc = app.router.schema;
      const names = doc.paths["/pages"].get.parameters.map((p: any) => p.name);
      expect(names).not.toContain("cursor");
      expect(doc.paths["/pages"].get.responses["200"].headers).toBeUndefined();
    });

    it("documents the cursor parameter, the result_info members, the Link header and the 400", async () => {
      const doc = app.router.schema;
      const operation = doc.paths["/entries"].get;
      const names = operation.parameters.map((p: any) => p.name);
      expect(names).toContain("cursor");
      expect(names).not.toContain("page");
      const ok = operation.responses["200"];
      expect(ok.headers.Link).toMatchObject({ required: false, schema: { type: "string" } });
      const info = ok.content["application/json"].schema.properties.result_info;
      expect(info.required).toEqual(expect.arrayContaining(["count", "per_page", "next_cursor", "prev_cursor"]));
      expect(info.properties).not.toHaveProperty("page");
      expect(operation.responses["400"]).toBeDefined();
      const both = doc.paths["/both"].get;
      expect(both.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["page", "cursor"]));
      const bothInfo = both.responses["200"].content["application/json"].schema.properties.result_info;
      expect(bothInfo.required).not.toContain("page");
      expect(doc.paths["/unordered"].get.parameters.map((p: any) => p.name)).toEqual(["limit", "after"]);
      expect(await documentErrors(doc)).toBeNull();
    });

    if (harness === honoHarness) {
      it("property: rows inserted and deleted between pages never make a row that stayed repeat or go missing", async () => {
        const entry = fc.record({
          shelf: fc.integer({ min: 1, max: 3 }),
          id: fc.integer({ min: 1, max: 40 }),
          rank: fc.integer({ min: 0, max: 3 }),
          label: fc.constantFrom(null, "ant", "bee", "cat"),
          title: fc.constantFrom("ash", "bay", "elm", "fir", "oak"),
        });
        const change = fc.oneof(
          fc.record({ kind: fc.constant("insert" as const), row: entry }),
          fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(entry, { selector: keyOf, maxLength: 18 }),
            fc.constantFrom(...ORDER_FIELDS),
            fc.constantFrom("asc" as const, "desc" as const),
            fc.integer({ min: 1, max: 5 }),
            fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
            fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 30 }),
            async (initial, field, direction, perPage, shelf, changes) => {
              await backend.replace(initial);
              const stored = new Map(initial.map((row) => [keyOf(row), row]));
              const stayed = new Set(stored.keys());
              // A key is never reused: a row deleted and inserted again would be another row under the same key.
              const used = new Set(stored.keys());
              let step = 0;
              const applyChanges = async () => {
                for (const item of changes[step++ % Math.max(changes.length, 1)] ?? []) {
                  if (item.kind === "insert") {
                    if (used.has(keyOf(item.row))) continue;
                    used.add(keyOf(item.row));
                    await backend.insert(item.row);
                    stored.set(keyOf(item.row), item.row);
                  } else if (stored.size > 0) {
                    const victim = [...stored.values()][item.pick % stored.size]!;
                    await backend.remove(victim);
                    stored.delete(keyOf(victim));
                    stayed.delete(keyOf(victim));
                  }
                }
              };
              const filter = shelf === undefined ? "" : `&shelf=${shelf}`;
              const query = `/entries?order_by=${field}&order_by_direction=${direction}&per_page=${perPage}${filter}`;
              const order = comparator(field, direction);
              /** No repeat, strictly in order, and every row that stayed (before `anchor`, when given) seen. */
              const check = (seen: Entry[], label: string, stayedRows: Entry[], anchor?: Entry) => {
                const seenKeys = seen.map(keyOf);
                expect(new Set(seenKeys).size, `${label}: a row repeated`).toBe(seenKeys.length);
                for (let i = 1; i < seen.length; i++) expect(order(seen[i - 1]!, seen[i]!), label).toBeLessThan(0);
                const wanted = stayedRows.filter(
                  (row) => (shelf === undefined || row.shelf === shelf) && (!anchor || order(row, anchor) < 0),
                );
                for (const row of wanted) expect(seenKeys, `${label}: ${keyOf(row)} missing`).toContain(keyOf(row));
              };
              const stayedRows = () => [...stayed].map((key) => stored.get(key)!);

              // Forward, changing the table after each page.
              const forward: Entry[] = [];
              let body = (await get(query)).body;
              let lastPage = body;
              for (let guard = 0; guard < 200; guard++) {
                forward.push(...body.result);
                await applyChanges();
                lastPage = body;
                if (!body.result_info.next_cursor) break;
                body = (await get(`${query}&cursor=${body.result_info.next_cursor}`)).body;
              }
              check(forward, `forward ${query}`, stayedRows());

              // Backward from the last page, changing the table again: the rows before its first one.
              for (const key of stored.keys()) stayed.add(key);
              const anchor: Entry | undefined = lastPage.result[0];
              const backward: Entry[][] = [lastPage.result];
              let cursor: string | null = lastPage.result_info.prev_cursor;
              for (let guard = 0; cursor && guard < 200; guard++) {
                await applyChanges();
                const page = (await get(`${query}&cursor=${cursor}`)).body;
                backward.unshift(page.result);
                cursor = page.result_info.prev_cursor;
              }
              // A first page has no prev_cursor: rows inserted in front of it are out of this walk's reach.
              const walked = anchor && lastPage.result_info.prev_cursor;
              check(backward.flat(), `backward ${query}`, walked ? stayedRows() : [], anchor);
            },
          ),
          { numRuns: 25 },
        );
      }, 120_000);
    }
  });
}

function byKey(a: Entry, b: Entry): number {
  return a.shelf - b.shelf || a.id - b.id;
}
