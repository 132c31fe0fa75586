import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DatabaseError,
  IncompleteKeyError,
  InvalidIdentifierError,
  InvalidValueError,
  type SqlDriver,
  SqlTable,
  UniqueViolationError,
  uniqueIndexColumns,
} from "../../src/sql";
import {
  Big,
  CATALOG,
  createStatements,
  dropStatements,
  type EngineUnderTest,
  Item,
  LIST_CASES,
  Member,
  tableNames,
  Versioned,
  versionQuery,
} from "./fixtures";
import { INJECTION_PAYLOADS } from "./injection-payloads";

const eq = (field: string, value: unknown) => ({ field, operator: "EQ" as const, value });

/** Every row of a table, untouched by the library's decoding, as text that changes if any byte does. */
async function dump(driver: SqlDriver, quotedTable: string, orderBy: string): Promise<string> {
  const rows = await driver.query(`SELECT * FROM ${quotedTable} ORDER BY ${orderBy}`, []);
  return JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? `${value}n` : value));
}

/** Runs an operation that may fail and checks it fails only with the library's safe errors. */
async function safely<T>(operation: () => Promise<T>): Promise<T | DatabaseError | InvalidValueError> {
  try {
    return await operation();
  } catch (error) {
    // NUL in text is refused before any SQL runs (PostgreSQL cannot store it), the rest is wrapped.
    if (error instanceof InvalidValueError) return error;
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toMatch(/^(Database operation failed|Unique constraint violated)$/);
    return error as DatabaseError;
  }
}

/**
 * The shared suite: every engine must give the same answers to the same calls.
 *
 * @example
 * describeTableSuite({ name: "pglite", family: "postgres", connect: async () => ({ driver, close }) })
 */
export function describeTableSuite(engine: EngineUnderTest): void {
  if (engine.skipReason) console.info(`[specroute sql] ${engine.name}: skipped (${engine.skipReason})`);

  describe.skipIf(Boolean(engine.skipReason))(`SqlTable on ${engine.name}`, () => {
    const names = tableNames(engine.name);
    const catalog = new SqlTable({ tableName: names.catalog, schema: Item, primaryKeys: ["id"] });
    const writes = new SqlTable({ tableName: names.writes, schema: Item, primaryKeys: ["id"] });
    const members = new SqlTable({ tableName: names.members, schema: Member, primaryKeys: ["org", "user_id"] });
    const versioned = new SqlTable({
      tableName: names.versioned,
      schema: Versioned,
      primaryKeys: ["id"],
      versionField: "version",
    });
    // The same table through a model that names no version column: its writes leave the version as it was.
    const versionBlind = new SqlTable({ tableName: names.versioned, schema: Versioned, primaryKeys: ["id"] });
    const big = new SqlTable({ tableName: names.big, schema: Big, primaryKeys: ["id"] });
    let driver: SqlDriver;
    let close: () => Promise<void>;
    const quoted = (table: string) => driver.dialect.quote(table);

    beforeAll(async () => {
      ({ driver, close } = await engine.connect());
      for (const statement of dropStatements(engine.family, names)) await driver.execute(statement, []);
      for (const statement of createStatements(engine.family, names)) await driver.execute(statement, []);
      for (const row of CATALOG) await catalog.insert(driver, row);
      const [{ v }] = await driver.query<{ v: string }>(versionQuery(engine.family), []);
      console.info(`[specroute sql] ${engine.name}: running (${driver.dialect.name} dialect, server ${v})`);
    });

    afterAll(async () => {
      if (!driver) return;
      for (const statement of dropStatements(engine.family, names)) await driver.execute(statement, []);
      await close();
    });

    describe("insert", () => {
      it("returns the stored row with database defaults and a generated id", async () => {
        const first = await writes.insert(driver, { name: "alpha", group: "g", price: 3.5 });
        expect(first).toEqual({
          id: expect.any(Number),
          name: "alpha",
          group: "g",
          price: 3.5,
          stock: 0,
          active: true,
          status: "new",
          note: null,
          tags: null,
        });
        const second = await writes.insert(driver, { name: "beta", group: "g", price: 1 });
        expect(second.id).toBeGreaterThan(first.id as number);
      });

      it("stores booleans, JSON arrays, nulls and decimals and reads them back with their types", async () => {
        const data = {
          name: "gamma",
          group: "g",
          price: 19.99,
          stock: 3,
          active: false,
          status: "x",
          note: null,
          tags: ["a", "b'c"],
        };
        const row = await writes.insert(driver, data);
        expect(row).toEqual({ id: expect.any(Number), ...data });
        expect(await writes.selectOne(driver, [eq("id", row.id)])).toEqual(row);
      });

      it("keeps integers past 2^53 exact: a z.bigint() column reads back the bigint written, and so does the driver", async () => {
        const past = 2n ** 53n + 1n; // 9007199254740993: a JavaScript number would read ...992
        const inserted = await big.insert(driver, { id: 1, n: past, m: 7 });
        expect(inserted).toEqual({ id: 1, n: past, m: 7 });
        await big.insert(driver, { id: 2, n: -past, m: 2 ** 40 });
        expect(await big.selectOne(driver, [eq("n", -past)])).toEqual({ id: 2, n: -past, m: 2 ** 40 });
        expect(await big.update(driver, [eq("id", 1)], { n: past + 2n })).toEqual({ id: 1, n: past + 2n, m: 7 });
        const { rows } = await big.list(driver, { filters: [], limit: 10, offset: 0 });
        expect(rows).toEqual([
          { id: 1, n: past + 2n, m: 7 },
          { id: 2, n: -past, m: 2 ** 40 },
        ]);
        // Straight from the driver, a value past 2^53 is exact (bigint or text); one within it, a count among them, a number.
        const [raw] = await driver.query<{ n: unknown; m: unknown; c: unknown }>(
          `SELECT ${quoted("n")} AS n, ${quoted("m")} AS m, (SELECT COUNT(*) FROM ${quoted(names.big)}) AS c FROM ${quoted(names.big)} WHERE ${quoted("id")} = 1`,
          [],
        );
        expect(String(raw!.n)).toBe(String(past + 2n));
        expect(Number(raw!.m)).toBe(7);
        expect(Number(raw!.c)).toBe(2);
        if (engine.family !== "postgres") expect([typeof raw!.m, typeof raw!.c]).toEqual(["number", "number"]);
      });

      it("refuses a bigint past 64 bits as a value that does not fit its column; a filter by one finds nothing or is refused", async () => {
        const error = await big.insert(driver, { id: 3, n: 2n ** 64n, m: 1 }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(InvalidValueError);
        expect((error as Error).message).toBe("A value does not fit its column");
        // MySQL compares the text as a number and matches no row; SQLite's clients and PostgreSQL refuse it.
        const found = await big.selectOne(driver, [eq("n", -(2n ** 64n))]).catch((caught: unknown) => caught);
        if (found !== null) expect(found).toBeInstanceOf(InvalidValueError);
      });

      it("inserts a row given its primary key", async () => {
        const row = await writes.insert(driver, { id: 9000, name: "explicit", group: "g" });
        expect(row).toMatchObject({ id: 9000, name: "explicit", price: 0 });
      });

      it("takes a generated id for a key given as null where the engine generates one; PostgreSQL refuses the NULL", async () => {
        const inserting = writes.insert(driver, { id: null, name: "null-id", group: "g" });
        if (engine.family === "postgres") {
          await expect(inserting).rejects.toBeInstanceOf(DatabaseError);
          return;
        }
        const row = await inserting;
        // Read back before matching: bun test's toMatchObject writes its matchers into the object it checks.
        const stored = await writes.selectOne(driver, [eq("id", row.id)]);
        expect(row).toMatchObject({ id: expect.any(Number), name: "null-id" });
        expect(stored).toEqual(row);
      });

      it("leaves out undefined values so defaults apply", async () => {
        const row = await writes.insert(driver, { name: "delta", group: "g", note: undefined, status: undefined });
        expect(row).toMatchObject({ note: null, status: "new" });
      });

      it("rejects a column that is not in the model before touching the database", async () => {
        await expect(writes.insert(driver, { name: "x", group: "g", "evil; --": 1 })).rejects.toBeInstanceOf(
          InvalidIdentifierError,
        );
      });
    });

    describe("selectOne", () => {
      it("finds a row by key and returns null when none matches", async () => {
        expect(await catalog.selectOne(driver, [eq("id", 6)])).toEqual(CATALOG[5]);
        expect(await catalog.selectOne(driver, [eq("id", 404)])).toBeNull();
      });

      it("takes the first row in key order when several match", async () => {
        expect(await catalog.selectOne(driver, [eq("group", "decor")])).toEqual(CATALOG[4]);
      });
    });

    describe("update", () => {
      it("writes only the given columns and returns the stored row", async () => {
        const row = await writes.insert(driver, { name: "upd-1", group: "g", price: 2, stock: 4, note: "keep" });
        const updated = await writes.update(driver, [eq("id", row.id)], { price: 2.25, active: false });
        expect(updated).toEqual({ ...row, price: 2.25, active: false });
      });

      it("keeps both of two concurrent updates of different columns of one row", async () => {
        const row = await writes.insert(driver, { name: "upd-2", group: "g" });
        const key = [eq("id", row.id)];
        await Promise.all([
          writes.update(driver, key, { note: "from A" }),
          writes.update(driver, key, { stock: 42 }),
          writes.update(driver, key, { tags: ["c"] }),
        ]);
        expect(await writes.selectOne(driver, key)).toEqual({ ...row, note: "from A", stock: 42, tags: ["c"] });
      });

      it("returns null when no row has the key, or extra conditions exclude it", async () => {
        const row = await writes.insert(driver, { name: "upd-3", group: "g" });
        expect(await writes.update(driver, [eq("id", 123456)], { note: "x" })).toBeNull();
        expect(await writes.update(driver, [eq("id", row.id), eq("group", "other")], { note: "x" })).toBeNull();
        expect(await writes.selectOne(driver, [eq("id", row.id)])).toEqual(row);
      });

      it("returns the current row when given no columns", async () => {
        const row = await writes.insert(driver, { name: "upd-4", group: "g" });
        expect(await writes.update(driver, [eq("id", row.id)], { note: undefined })).toEqual(row);
      });

      it("can rewrite a primary key column and returns the row under its new key", async () => {
        const row = await writes.insert(driver, { name: "upd-5", group: "g" });
        const moved = await writes.update(driver, [eq("id", row.id)], { id: 7000, note: "moved" });
        expect(moved).toEqual({ ...row, id: 7000, note: "moved" });
      });

      it("returns the row it wrote when it rewrites a column its conditions narrowed by", async () => {
        const row = await writes.insert(driver, { name: "upd-6", group: "g" });
        const moved = await writes.update(driver, [eq("id", row.id), eq("group", "g")], { group: "h" });
        expect(moved).toEqual({ ...row, group: "h" });
      });

      it("refuses a partial or missing key and changes nothing", async () => {
        const before = await dump(driver, quoted(names.writes), "id");
        await expect(writes.update(driver, [], { note: "all" })).rejects.toBeInstanceOf(IncompleteKeyError);
        await expect(writes.update(driver, [eq("id", undefined)], { note: "all" })).rejects.toBeInstanceOf(
          IncompleteKeyError,
        );
        await expect(writes.update(driver, [eq("name", "alpha")], { note: "all" })).rejects.toBeInstanceOf(
          IncompleteKeyError,
        );
        await expect(
          writes.update(driver, [{ field: "id", operator: "GT", value: 0 }], { note: "all" }),
        ).rejects.toBeInstanceOf(IncompleteKeyError);
        await expect(writes.update(driver, [eq("id", null)], { note: "all" })).rejects.toBeInstanceOf(
          IncompleteKeyError,
        );
        const error = await members.update(driver, [eq("org", "acme")], { role: "x" }).catch((err) => err);
        expect(error).toBeInstanceOf(IncompleteKeyError);
        expect(error.missing).toEqual(["user_id"]);
        expect(await dump(driver, quoted(names.writes), "id")).toBe(before);
      });
    });

    describe("delete", () => {
      it("deletes one row and returns it; a second delete finds nothing", async () => {
        const row = await writes.insert(driver, { name: "del-1", group: "g" });
        expect(await writes.delete(driver, [eq("id", row.id)])).toEqual(row);
        expect(await writes.delete(driver, [eq("id", row.id)])).toBeNull();
        expect(await writes.selectOne(driver, [eq("id", row.id)])).toBeNull();
      });

      it("does not delete a row that extra conditions exclude", async () => {
        const row = await writes.insert(driver, { name: "del-2", group: "g" });
        expect(await writes.delete(driver, [eq("id", row.id), eq("group", "other")])).toBeNull();
        expect(await writes.selectOne(driver, [eq("id", row.id)])).toEqual(row);
      });

      it("refuses a partial or missing key and deletes nothing", async () => {
        const before = await dump(driver, quoted(names.writes), "id");
        await expect(writes.delete(driver, [])).rejects.toBeInstanceOf(IncompleteKeyError);
        await expect(writes.delete(driver, [eq("group", "g")])).rejects.toBeInstanceOf(IncompleteKeyError);
        await expect(writes.delete(driver, [eq("id", undefined)])).rejects.toBeInstanceOf(IncompleteKeyError);
        await expect(members.delete(driver, [eq("user_id", 1)])).rejects.toBeInstanceOf(IncompleteKeyError);
        expect(await dump(driver, quoted(names.writes), "id")).toBe(before);
      });
    });

    describe("compare-and-swap (ifUnchanged)", () => {
      it("writes and deletes only while the row is as it was read; after a change the stale read writes nothing", async () => {
        const row = await writes.insert(driver, { name: "cas-1", group: "g", note: null, tags: ["a"] });
        const key = [eq("id", row.id)];
        const read = (await writes.selectOne(driver, key))!;
        const written = await writes.update(driver, key, { stock: 1 }, { ifUnchanged: read });
        expect(written).toEqual({ ...row, stock: 1 });

        expect(await writes.update(driver, key, { note: "late" }, { ifUnchanged: read })).toBeNull();
        expect(await writes.delete(driver, key, { ifUnchanged: read })).toBeNull();
        expect(await writes.selectOne(driver, key)).toEqual(written);

        const fresh = (await writes.selectOne(driver, key))!;
        expect(await writes.delete(driver, key, { ifUnchanged: fresh })).toEqual(written);
        expect(await writes.selectOne(driver, key)).toBeNull();
      });

      it("compares only the columns the row it is given holds", async () => {
        const row = await writes.insert(driver, { name: "cas-2", group: "g", stock: 4 });
        const key = [eq("id", row.id)];
        await writes.update(driver, key, { note: "by someone else" });
        const seen = { id: row.id, stock: 4 };
        expect(await writes.update(driver, key, { stock: 5 }, { ifUnchanged: seen })).toEqual({
          ...row,
          note: "by someone else",
          stock: 5,
        });
        expect(await writes.update(driver, key, { stock: 6 }, { ifUnchanged: seen })).toBeNull();
        expect(await writes.selectOne(driver, key)).toMatchObject({ stock: 5 });
      });

      it("with a version column, each write takes a new version and a read of an older one writes nothing", async () => {
        const row = await versioned.insert(driver, { label: "v" });
        expect(row).toEqual({ id: expect.any(Number), label: "v", stock: 0, version: 1 });
        const key = [eq("id", row.id)];
        const written = await versioned.update(driver, key, { label: "w" }, { ifUnchanged: row });
        expect(written).toEqual({ ...row, label: "w", version: 2 });

        expect(await versioned.update(driver, key, { label: "x" }, { ifUnchanged: row })).toBeNull();
        expect(await versioned.delete(driver, key, { ifUnchanged: row })).toBeNull();
        expect(await versioned.selectOne(driver, key)).toEqual(written);
        expect(await versioned.delete(driver, key, { ifUnchanged: written! })).toEqual(written);
      });

      it("with a version column, the version alone decides: a change that kept the version does not refuse the write", async () => {
        const row = await versioned.insert(driver, { label: "v" });
        const key = [eq("id", row.id)];
        await versionBlind.update(driver, key, { label: "changed, version kept" });
        expect(await versioned.update(driver, key, { stock: 3 }, { ifUnchanged: row })).toEqual({
          ...row,
          label: "changed, version kept",
          stock: 3,
          version: 2,
        });
      });

      it("with a version column, a row given without its version is compared by the columns it holds", async () => {
        const row = await versioned.insert(driver, { label: "v" });
        const key = [eq("id", row.id)];
        expect(await versioned.update(driver, key, { stock: 1 }, { ifUnchanged: { id: row.id, label: "v" } })).toEqual({
          ...row,
          stock: 1,
          version: 2,
        });
        expect(
          await versioned.update(driver, key, { stock: 2 }, { ifUnchanged: { id: row.id, label: "w" } }),
        ).toBeNull();
        expect(await versioned.selectOne(driver, key)).toMatchObject({ stock: 1, version: 2 });
      });
    });

    describe("composite primary keys", () => {
      it("inserts, reads, updates and deletes by the full key", async () => {
        const first = await members.insert(driver, { org: "acme", user_id: 1 });
        expect(first).toEqual({ org: "acme", user_id: 1, role: "member", score: 0.5 });
        await members.insert(driver, { org: "acme", user_id: 2, role: "admin", score: 2 });
        await members.insert(driver, { org: "beta", user_id: 1, role: "owner", score: 1.25 });

        const key = [eq("org", "acme"), eq("user_id", 1)];
        expect(await members.selectOne(driver, key)).toEqual(first);
        expect(await members.update(driver, key, { role: "lead" })).toEqual({ ...first, role: "lead" });
        expect(await members.selectOne(driver, [eq("org", "beta"), eq("user_id", 1)])).toMatchObject({ role: "owner" });

        const page = await members.list(driver, { filters: [], limit: 10, offset: 0 });
        expect(page.rows.map((row) => [row.org, row.user_id])).toEqual([
          ["acme", 1],
          ["acme", 2],
          ["beta", 1],
        ]);

        expect(await members.delete(driver, key)).toEqual({ ...first, role: "lead" });
        expect((await members.list(driver, { filters: [], limit: 10, offset: 0 })).totalCount).toBe(2);
      });
    });

    describe("list", () => {
      it("returns the catalog exactly as expected (identical on every engine)", async () => {
        const page = await catalog.list(driver, { filters: [], limit: 100, offset: 0 });
        expect(page).toEqual({ rows: CATALOG, totalCount: CATALOG.length });
      });

      for (const { title, query, ids, total } of LIST_CASES) {
        it(title, async () => {
          const page = await catalog.list(driver, {
            filters: query.filters ?? [],
            search: query.search,
            orderBy: query.orderBy,
            limit: query.limit ?? 100,
            offset: query.offset ?? 0,
          });
          expect(page.rows.map((row) => row.id)).toEqual(ids);
          expect(page.totalCount).toBe(total ?? ids.length);
          for (const row of page.rows) expect(row).toEqual(CATALOG[(row.id as number) - 1]);
        });
      }

      it("counts what a listing's filters and search match, as its totalCount does", async () => {
        for (const { query, ids, total } of LIST_CASES) {
          const counted = await catalog.count(driver, { filters: query.filters ?? [], search: query.search });
          expect(counted).toBe(total ?? ids.length);
        }
        await expect(catalog.count(driver, { filters: [eq("nope", 1)] })).rejects.toBeInstanceOf(
          InvalidIdentifierError,
        );
      });

      it("pages through an order with ties without overlap or gaps", async () => {
        for (const direction of ["asc", "desc"] as const) {
          for (const column of ["group", "status", "active"]) {
            const full = await catalog.list(driver, {
              filters: [],
              orderBy: { column, direction },
              limit: 100,
              offset: 0,
            });
            const pages: unknown[] = [];
            for (let offset = 0; offset < 12; offset += 5) {
              const page = await catalog.list(driver, {
                filters: [],
                orderBy: { column, direction },
                limit: 5,
                offset,
              });
              expect(page.totalCount).toBe(12);
              pages.push(...page.rows.map((row) => row.id));
            }
            expect(pages).toEqual(full.rows.map((row) => row.id));
            expect(new Set(pages).size).toBe(12);
          }
        }
      });

      it("rejects unknown columns in filters, search and ordering before touching the database", async () => {
        const base = { filters: [], limit: 10, offset: 0 };
        await expect(catalog.list(driver, { ...base, filters: [eq("nope", 1)] })).rejects.toBeInstanceOf(
          InvalidIdentifierError,
        );
        await expect(
          catalog.list(driver, { ...base, search: { columns: ["nope"], term: "x" } }),
        ).rejects.toBeInstanceOf(InvalidIdentifierError);
        await expect(
          catalog.list(driver, { ...base, orderBy: { column: "name; DROP TABLE x", direction: "asc" } }),
        ).rejects.toBeInstanceOf(InvalidIdentifierError);
        await expect(catalog.list(driver, { ...base, limit: -1 })).rejects.toBeInstanceOf(RangeError);
        await expect(catalog.list(driver, { ...base, offset: 1.5 })).rejects.toBeInstanceOf(RangeError);
      });
    });

    describe("seek", () => {
      type Order = { column: string; direction: "asc" | "desc" } | undefined;
      const orders: Order[] = [
        undefined,
        { column: "stock", direction: "asc" },
        { column: "stock", direction: "desc" },
        { column: "note", direction: "asc" },
        { column: "note", direction: "desc" },
      ];
      const position = (row: Record<string, unknown>, order: Order) =>
        order ? { [order.column]: row[order.column], id: row.id } : { id: row.id };
      const label = (order: Order) => (order ? `${order.column} ${order.direction}` : "the key");

      it("walks every row exactly once, forwards and back, in the order a keyset listing gives, NULLs of a nullable column included", async () => {
        for (const orderBy of orders) {
          const listed = await catalog.list(driver, { filters: [], orderBy, keysetOrder: true, limit: 100, offset: 0 });
          const ids = listed.rows.map((row) => row.id);
          expect(ids, label(orderBy)).toHaveLength(CATALOG.length);
          for (const limit of [1, 5]) {
            const forwards: unknown[] = [];
            let page = await catalog.seek(driver, { filters: [], orderBy, limit });
            // Bounded: a seek that never moves on fails here instead of looping.
            for (let pages = 1; ; pages++) {
              expect(pages, label(orderBy)).toBeLessThanOrEqual(CATALOG.length);
              forwards.push(...page.rows.map((row) => row.id));
              if (!page.hasMore) break;
              expect(page.rows, label(orderBy)).toHaveLength(limit);
              const from = { direction: "next" as const, key: position(page.rows.at(-1)!, orderBy) };
              page = await catalog.seek(driver, { filters: [], orderBy, limit, from });
            }
            expect(forwards, `${label(orderBy)}, pages of ${limit}`).toEqual(ids);

            const backwards: unknown[] = [];
            let at = listed.rows.at(-1)!;
            for (let pages = 1; ; pages++) {
              expect(pages, label(orderBy)).toBeLessThanOrEqual(CATALOG.length);
              const from = { direction: "prev" as const, key: position(at, orderBy) };
              const before = await catalog.seek(driver, { filters: [], orderBy, limit, from });
              backwards.unshift(...before.rows.map((row) => row.id));
              if (!before.hasMore) break;
              at = before.rows[0]!;
            }
            expect(backwards, `${label(orderBy)} backwards, pages of ${limit}`).toEqual(ids.slice(0, -1));
          }
        }
      });

      it("keeps a page's filters and search, and goes on from a position no row holds", async () => {
        const filters = [{ field: "active", operator: "EQ" as const, value: true }];
        const listed = await catalog.list(driver, {
          filters,
          orderBy: { column: "stock", direction: "asc" },
          keysetOrder: true,
          limit: 100,
          offset: 0,
        });
        const page = await catalog.seek(driver, {
          filters,
          orderBy: { column: "stock", direction: "asc" },
          limit: 100,
          from: { direction: "next", key: { stock: -1, id: 0 } },
        });
        expect(page).toEqual({ rows: listed.rows, hasMore: false });
      });

      it("refuses a position without every keyset column, or NULL in a column that holds none", async () => {
        const orderBy = { column: "note", direction: "asc" as const };
        await expect(
          catalog.seek(driver, { filters: [], orderBy, limit: 5, from: { direction: "next", key: { note: "x" } } }),
        ).rejects.toThrow(new InvalidValueError('The position to page from has no "id"'));
        await expect(
          catalog.seek(driver, {
            filters: [],
            orderBy,
            limit: 5,
            from: { direction: "next", key: { note: null, id: null } },
          }),
        ).rejects.toThrow(new InvalidValueError('The position to page from has no value for "id"'));
        await expect(
          catalog.seek(driver, {
            filters: [],
            orderBy: { column: "stock", direction: "asc" },
            limit: 5,
            from: { direction: "prev", key: { stock: null, id: 3 } },
          }),
        ).rejects.toThrow(new InvalidValueError('The position to page from has no value for "stock"'));
      });
    });

    describe("filters the list endpoints cannot send", () => {
      it("refuses an ISNULL that is not true or false, and an operator it does not know", async () => {
        const base = { limit: 10, offset: 0 };
        await expect(
          catalog.list(driver, { ...base, filters: [{ field: "note", operator: "ISNULL", value: "yes" }] }),
        ).rejects.toThrow(new InvalidValueError("note__isnull takes true or false"));
        await expect(
          catalog.list(driver, { ...base, filters: [{ field: "note", operator: "BETWEEN" as never, value: 1 }] }),
        ).rejects.toThrow(new TypeError('Unsupported filter operator "BETWEEN"'));
      });

      it("finds nothing with a search over no column, and with one over one column finds what it contains", async () => {
        const none = await catalog.list(driver, {
          filters: [],
          search: { columns: [], term: "a" },
          limit: 100,
          offset: 0,
        });
        expect(none).toEqual({ rows: [], totalCount: 0 });
        const seek = await catalog.seek(driver, { filters: [], search: { columns: [], term: "a" }, limit: 100 });
        expect(seek).toEqual({ rows: [], hasMore: false });
        const wool = await catalog.list(driver, {
          filters: [],
          search: { columns: ["name"], term: "WOOL" },
          limit: 100,
          offset: 0,
        });
        expect(wool.rows.map((row) => row.id)).toEqual(
          CATALOG.filter((row) => /wool/i.test(row.name)).map((row) => row.id),
        );
      });

      it("reads ISNULL true and false, and IN with one value given alone", async () => {
        const ids = async (filters: { field: string; operator: "ISNULL" | "IN"; value: unknown }[]) =>
          (await catalog.list(driver, { filters, limit: 100, offset: 0 })).rows.map((row) => row.id);
        const nulls = CATALOG.filter((row) => row.note === null).map((row) => row.id);
        expect(await ids([{ field: "note", operator: "ISNULL", value: true }])).toEqual(nulls);
        expect(await ids([{ field: "note", operator: "ISNULL", value: false }])).toEqual(
          CATALOG.filter((row) => row.note !== null).map((row) => row.id),
        );
        expect(await ids([{ field: "group", operator: "IN", value: "books" }])).toEqual(
          CATALOG.filter((row) => row.group === "books").map((row) => row.id),
        );
      });
    });

    describe("unique violations", () => {
      it("names the column of a UNIQUE constraint on insert and on update", async () => {
        // An explicit id: PostgreSQL sequences do not advance past the catalog's explicit ids.
        const error = await catalog.insert(driver, { id: 500, name: "plain pen", group: "x" }).catch((err) => err);
        expect(error).toBeInstanceOf(UniqueViolationError);
        expect(error).toBeInstanceOf(DatabaseError);
        expect(error.columns).toEqual(["name"]);
        expect(error.message).toBe("Unique constraint violated");
        expect(error.cause).toBeDefined();

        const row = await writes.insert(driver, { name: "uniq-1", group: "g" });
        await writes.insert(driver, { name: "uniq-2", group: "g" });
        const updateError = await writes.update(driver, [eq("id", row.id)], { name: "uniq-2" }).catch((err) => err);
        expect(updateError).toBeInstanceOf(UniqueViolationError);
        expect(updateError.columns).toEqual(["name"]);
      });

      it("names the primary key columns, single and composite", async () => {
        const error = await catalog.insert(driver, { id: 1, name: "dup id", group: "x" }).catch((err) => err);
        expect(error).toBeInstanceOf(UniqueViolationError);
        expect(error.columns).toEqual(["id"]);

        await members.insert(driver, { org: "dup", user_id: 5 });
        const composite = await members.insert(driver, { org: "dup", user_id: 5 }).catch((err) => err);
        expect(composite).toBeInstanceOf(UniqueViolationError);
        expect(composite.columns).toEqual(["org", "user_id"]);
      });

      it("looks up a unique index's columns by name where the engine supports it", async () => {
        if (!driver.dialect.uniqueIndexColumns) return;
        expect(await uniqueIndexColumns(driver, names.catalog, `${names.catalog}_name_uq`)).toEqual(["name"]);
        const primary = driver.dialect.name === "postgres" ? `${names.members}_pkey` : "PRIMARY";
        expect(await uniqueIndexColumns(driver, names.members, primary)).toEqual(["org", "user_id"]);
        expect(await uniqueIndexColumns(driver, names.members, "no_such_index")).toEqual([]);
      });
    });

    describe("errors", () => {
      it("wraps driver errors so no SQL text or engine message escapes", async () => {
        const missing = new SqlTable({ tableName: `${names.catalog}_missing`, schema: Item, primaryKeys: ["id"] });
        const error = await missing.list(driver, { filters: [], limit: 1, offset: 0 }).catch((err) => err);
        expect(error).toBeInstanceOf(DatabaseError);
        expect(error).not.toBeInstanceOf(UniqueViolationError);
        expect(error.message).toBe("Database operation failed");
        expect(error.code).toBe("DATABASE_ERROR");
        expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/SELECT|_missing/);
        expect(error.cause).toBeInstanceOf(Error);
      });
    });

    describe("injection corpus", () => {
      it(`leaves every table byte-identical and throws only safe errors (${INJECTION_PAYLOADS.length} payloads)`, async () => {
        const tables = [
          [quoted(names.catalog), quoted("id")],
          [quoted(names.writes), quoted("id")],
          [quoted(names.members), `${quoted("org")}, ${quoted("user_id")}`],
        ] as const;
        const before = await Promise.all(tables.map(([table, order]) => dump(driver, table, order)));
        const printable = /^[\x20-\x7e]*$/;

        for (const payload of INJECTION_PAYLOADS) {
          const list = (query: Partial<Parameters<SqlTable["list"]>[1]>) =>
            safely(() => catalog.list(driver, { filters: [], limit: 100, offset: 0, ...query }));

          const byName = await list({ filters: [eq("name", payload)] });
          const searched = await list({ search: { columns: ["name", "note", "group"], term: payload } });
          if (printable.test(payload)) {
            // Printable ASCII needs no engine-specific case or accent folding: the answer is exact everywhere.
            expect(byName).toEqual({ rows: [], totalCount: 0 });
            const lower = payload.toLowerCase();
            const expected = CATALOG.filter((row) =>
              [row.name, row.note, row.group].some((value) => value?.toLowerCase().includes(lower)),
            );
            expect(searched).toEqual({ rows: expected, totalCount: expected.length });
          }
          await list({ filters: [{ field: "name", operator: "NE", value: payload }] });
          await list({ filters: [{ field: "name", operator: "IN", value: [payload, "plain pen"] }] });
          await list({ filters: [{ field: "name", operator: "GT", value: payload }] });
          await list({ filters: [{ field: "name", operator: "LIKE", value: payload }] });
          await list({ filters: [eq("id", payload)] }); // a string against an integer column
          await list({ filters: [eq("tags", payload)] });
          await safely(() => catalog.selectOne(driver, [eq("status", payload)]));
          await safely(() => catalog.update(driver, [eq("id", 404), eq("name", payload)], { note: payload }));
          await safely(() => catalog.delete(driver, [eq("id", 404), eq("group", payload)]));

          // As an identifier the payload never reaches the database.
          await expect(catalog.list(driver, { filters: [eq(payload, 1)], limit: 1, offset: 0 })).rejects.toBeInstanceOf(
            InvalidIdentifierError,
          );
          await expect(
            catalog.list(driver, { filters: [], orderBy: { column: payload, direction: "asc" }, limit: 1, offset: 0 }),
          ).rejects.toBeInstanceOf(InvalidIdentifierError);
        }

        const after = await Promise.all(tables.map(([table, order]) => dump(driver, table, order)));
        expect(after).toEqual(before);
      });

      it("refuses text with a NUL character on every engine, before any SQL runs", async () => {
        const before = await dump(driver, quoted(names.writes), "id");
        await expect(writes.insert(driver, { name: "nul\u0000", group: "g" })).rejects.toThrow(
          new InvalidValueError("Text values cannot contain NUL characters"),
        );
        await expect(writes.list(driver, { filters: [eq("name", "a\u0000b")], limit: 1, offset: 0 })).rejects.toThrow(
          new InvalidValueError("Text values cannot contain NUL characters"),
        );
        expect(await dump(driver, quoted(names.writes), "id")).toBe(before);
      });

      it("stores every payload byte for byte as a value", async () => {
        for (const [index, payload] of INJECTION_PAYLOADS.entries()) {
          if (payload.includes("\u0000")) continue; // refused, see above

          const row = await writes.insert(driver, {
            name: `inj-${index}`,
            group: "inj",
            note: payload,
            tags: [payload],
          });
          expect(row).toMatchObject({ note: payload, tags: [payload] });
          const found = await writes.list(driver, {
            filters: [eq("note", payload), eq("group", "inj")],
            limit: 100,
            offset: 0,
          });
          expect(found.rows.map((found) => found.note)).toContain(payload);
        }
      });
    });
  });
}
