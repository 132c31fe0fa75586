import { describe, expect, it } from "vitest";
import type { FilterCondition } from "../endpoints/types";
import { InvalidValueError } from "./errors";
import {
  beyondCondition,
  type Condition,
  filterCondition,
  insertedKey,
  keysetColumns,
  keysetOrder,
  keyValues,
  type OrderTerm,
  pageOrder,
  rereadFilters,
  searchCondition,
  unchangedColumns,
} from "./plan";

const eq = (field: string, value: unknown): FilterCondition => ({ field, operator: "EQ", value });

/**
 * What a storage makes of a condition on one row, with SQL's three-valued logic: null is unknown,
 * a comparison with NULL is unknown, and only a true condition keeps the row.
 */
function holds(condition: Condition, row: Record<string, unknown>): boolean | null {
  const compare = (a: unknown, b: unknown): number | null =>
    a === null || b === null ? null : (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  switch (condition.kind) {
    case "never":
      return false;
    case "null":
      return (row[condition.column] === null) === condition.isNull;
    case "compare": {
      const order = compare(row[condition.column], condition.value);
      if (order === null) return null;
      return {
        "=": order === 0,
        "<>": order !== 0,
        ">": order > 0,
        ">=": order >= 0,
        "<": order < 0,
        "<=": order <= 0,
      }[condition.operator];
    }
    case "in":
      return condition.values.includes(row[condition.column]);
    case "contains":
      return condition.columns.some((name) =>
        String(row[name] ?? "")
          .toLowerCase()
          .includes(condition.term.toLowerCase()),
      );
    case "row": {
      // (a, b) > (x, y): decided by the first column that differs; NULL before that is unknown.
      for (const [i, name] of condition.columns.entries()) {
        const order = compare(row[name], condition.values[i]);
        if (order === null) return null;
        if (order !== 0) return condition.operator === ">" ? order > 0 : order < 0;
      }
      return false;
    }
    case "and": {
      const values = condition.parts.map((part) => holds(part, row));
      return values.includes(false) ? false : values.includes(null) ? null : true;
    }
    case "or": {
      const values = condition.parts.map((part) => holds(part, row));
      return values.includes(true) ? true : values.includes(null) ? null : false;
    }
  }
}

/** Rows sorted as a storage sorts them by `order`, NULL smallest. */
function sorted<T extends Record<string, unknown>>(rows: T[], order: OrderTerm[]): T[] {
  return [...rows].sort((a, b) => {
    for (const { column, direction } of order) {
      const [x, y] = [a[column], b[column]];
      if (x === y) continue;
      const ascending = x === null ? -1 : y === null ? 1 : (x as number) < (y as number) ? -1 : 1;
      return direction === "asc" ? ascending : -ascending;
    }
    return 0;
  });
}

describe("filterCondition: the condition a list filter stands for", () => {
  it("reads a null EQ as IS NULL and a null NE as IS NOT NULL, never as a comparison with NULL", () => {
    expect(filterCondition(eq("note", null))).toEqual({ kind: "null", column: "note", isNull: true });
    expect(filterCondition({ field: "note", operator: "NE", value: null })).toEqual({
      kind: "null",
      column: "note",
      isNull: false,
    });
  });

  it("compares any other EQ and NE value, falsy values included", () => {
    expect(filterCondition(eq("n", 0))).toEqual({ kind: "compare", column: "n", operator: "=", value: 0 });
    expect(filterCondition(eq("s", ""))).toEqual({ kind: "compare", column: "s", operator: "=", value: "" });
    expect(filterCondition({ field: "b", operator: "NE", value: false })).toEqual({
      kind: "compare",
      column: "b",
      operator: "<>",
      value: false,
    });
  });

  it("writes each ordering operator as its comparison", () => {
    const operators = { GT: ">", GTE: ">=", LT: "<", LTE: "<=" } as const;
    for (const [operator, comparison] of Object.entries(operators)) {
      expect(filterCondition({ field: "n", operator: operator as FilterCondition["operator"], value: 3 })).toEqual({
        kind: "compare",
        column: "n",
        operator: comparison,
        value: 3,
      });
    }
  });

  it("takes IN's list as it is, a lone value as a list of one, and an empty list as matching nothing", () => {
    expect(filterCondition({ field: "id", operator: "IN", value: [1, 2] })).toEqual({
      kind: "in",
      column: "id",
      values: [1, 2],
    });
    expect(filterCondition({ field: "id", operator: "IN", value: 7 })).toEqual({
      kind: "in",
      column: "id",
      values: [7],
    });
    expect(filterCondition({ field: "id", operator: "IN", value: [] })).toEqual({ kind: "never" });
  });

  it("takes ISNULL's boolean, and refuses anything else as an invalid value", () => {
    expect(filterCondition({ field: "note", operator: "ISNULL", value: true })).toEqual({
      kind: "null",
      column: "note",
      isNull: true,
    });
    expect(filterCondition({ field: "note", operator: "ISNULL", value: false })).toEqual({
      kind: "null",
      column: "note",
      isNull: false,
    });
    for (const value of ["true", 1, null, undefined]) {
      expect(() => filterCondition({ field: "note", operator: "ISNULL", value })).toThrow(InvalidValueError);
    }
    expect(() => filterCondition({ field: "note", operator: "ISNULL", value: "yes" })).toThrow("note__isnull");
  });

  it("reads LIKE as a search of the field itself, its term as text with wildcards kept for the storage to escape", () => {
    expect(filterCondition({ field: "name", operator: "LIKE", value: "50%_off" })).toEqual({
      kind: "contains",
      columns: ["name"],
      term: "50%_off",
    });
    expect(filterCondition({ field: "name", operator: "LIKE", value: 42 })).toEqual({
      kind: "contains",
      columns: ["name"],
      term: "42",
    });
  });

  it("refuses an operator it does not know, rather than matching every row", () => {
    expect(() => filterCondition({ field: "n", operator: "BETWEEN" as FilterCondition["operator"], value: 1 })).toThrow(
      TypeError,
    );
  });
});

describe("searchCondition", () => {
  it("searches any of the columns named, and matches nothing over no column", () => {
    expect(searchCondition(["name", "email"], "ann")).toEqual({
      kind: "contains",
      columns: ["name", "email"],
      term: "ann",
    });
    expect(searchCondition([], "ann")).toEqual({ kind: "never" });
  });
});

describe("keysetColumns: a keyset position's columns", () => {
  it("is the primary key alone without an order column", () => {
    expect(keysetColumns(["id"], undefined)).toEqual(["id"]);
    expect(keysetColumns(["a", "b"], undefined)).toEqual(["a", "b"]);
  });

  it("puts the order column first, then the key columns it does not name", () => {
    expect(keysetColumns(["id"], "score")).toEqual(["score", "id"]);
    expect(keysetColumns(["a", "b"], "score")).toEqual(["score", "a", "b"]);
    expect(keysetColumns(["id"], "id")).toEqual(["id"]);
    expect(keysetColumns(["a", "b"], "b")).toEqual(["b", "a"]);
  });
});

describe("keysetOrder: ORDER BY for keyset pages", () => {
  it("orders every keyset column in the one direction, so one index serves both ways", () => {
    expect(keysetOrder(["id"], new Set(), "score", "desc")).toEqual([
      { column: "score", direction: "desc", mayBeNull: false },
      { column: "id", direction: "desc", mayBeNull: false },
    ]);
    expect(keysetOrder(["a", "b"], new Set(), undefined, "asc")).toEqual([
      { column: "a", direction: "asc", mayBeNull: false },
      { column: "b", direction: "asc", mayBeNull: false },
    ]);
  });

  it("marks the columns that may hold NULL, and only those", () => {
    expect(keysetOrder(["id"], new Set(["note"]), "note", "asc")).toEqual([
      { column: "note", direction: "asc", mayBeNull: true },
      { column: "id", direction: "asc", mayBeNull: false },
    ]);
  });

  it("orders by a key column named as the order column once", () => {
    expect(keysetOrder(["a", "b"], new Set(), "b", "asc").map((term) => term.column)).toEqual(["b", "a"]);
  });
});

describe("pageOrder: chanfana's page order", () => {
  it("is the primary key ascending without an order column", () => {
    expect(pageOrder(["a", "b"])).toEqual([
      { column: "a", direction: "asc", mayBeNull: false },
      { column: "b", direction: "asc", mayBeNull: false },
    ]);
  });

  it("orders by the column in its direction, then breaks ties by the key ascending with no NULLS clause", () => {
    expect(pageOrder(["id"], { column: "score", direction: "desc" })).toEqual([
      { column: "score", direction: "desc", mayBeNull: true },
      { column: "id", direction: "asc", mayBeNull: false },
    ]);
  });

  it("orders by a key column named as the order column once, in the direction asked", () => {
    expect(pageOrder(["a", "b"], { column: "b", direction: "desc" })).toEqual([
      { column: "b", direction: "desc", mayBeNull: true },
      { column: "a", direction: "asc", mayBeNull: false },
    ]);
  });
});

describe("beyondCondition: the rows strictly beyond a keyset position", () => {
  it("compares the keyset columns as one row value, upwards ascending and downwards descending", () => {
    const key = { score: 5, id: 2 };
    expect(beyondCondition(["score", "id"], undefined, "asc", key)).toEqual({
      kind: "row",
      columns: ["score", "id"],
      operator: ">",
      values: [5, 2],
    });
    expect(beyondCondition(["score", "id"], undefined, "desc", key)).toEqual({
      kind: "row",
      columns: ["score", "id"],
      operator: "<",
      values: [5, 2],
    });
  });

  it("beyond a value of a nullable column: ascending never reaches the NULLs, descending reaches them last", () => {
    const key = { note: 5, id: 2 };
    const row = { kind: "row", columns: ["note", "id"], values: [5, 2] };
    expect(beyondCondition(["note", "id"], "note", "asc", key)).toEqual({ ...row, operator: ">" });
    expect(beyondCondition(["note", "id"], "note", "desc", key)).toEqual({
      kind: "or",
      parts: [
        { ...row, operator: "<" },
        { kind: "null", column: "note", isNull: true },
      ],
    });
  });

  it("beyond a NULL: the rest of the NULLs by key, then (ascending) every value", () => {
    const key = { note: null, id: 2 };
    const nulls = {
      kind: "and",
      parts: [
        { kind: "null", column: "note", isNull: true },
        { kind: "row", columns: ["id"], operator: ">", values: [2] },
      ],
    };
    expect(beyondCondition(["note", "id"], "note", "asc", key)).toEqual({
      kind: "or",
      parts: [nulls, { kind: "null", column: "note", isNull: false }],
    });
    expect(beyondCondition(["note", "id"], "note", "desc", key)).toEqual({
      kind: "and",
      parts: [
        { kind: "null", column: "note", isNull: true },
        { kind: "row", columns: ["id"], operator: "<", values: [2] },
      ],
    });
  });

  it("walks every row exactly once, in either direction, over a nullable order column with ties", () => {
    const rows = [
      { id: 1, note: 3 },
      { id: 2, note: null },
      { id: 3, note: 1 },
      { id: 4, note: 3 },
      { id: 5, note: null },
      { id: 6, note: 2 },
      { id: 7, note: null },
    ];
    for (const nullable of [true, false]) {
      const present = nullable ? rows : rows.filter((row) => row.note !== null);
      for (const travel of ["asc", "desc"] as const) {
        const order = keysetOrder(["id"], new Set(nullable ? ["note"] : []), "note", travel);
        const walk = sorted(present, order);
        for (const [i, from] of walk.entries()) {
          const beyond = beyondCondition(keysetColumns(["id"], "note"), nullable ? "note" : undefined, travel, from);
          const found = sorted(
            present.filter((row) => holds(beyond, row) === true),
            order,
          );
          expect(found, `${travel} beyond ${JSON.stringify(from)}`).toEqual(walk.slice(i + 1));
        }
      }
    }
  });

  it("walks a composite key without an order column", () => {
    const rows = [
      { a: 1, b: 2 },
      { a: 2, b: 1 },
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ];
    for (const travel of ["asc", "desc"] as const) {
      const order = keysetOrder(["a", "b"], new Set(), undefined, travel);
      const walk = sorted(rows, order);
      for (const [i, from] of walk.entries()) {
        const beyond = beyondCondition(keysetColumns(["a", "b"], undefined), undefined, travel, from);
        expect(
          sorted(
            rows.filter((row) => holds(beyond, row) === true),
            order,
          ),
        ).toEqual(walk.slice(i + 1));
      }
    }
  });

  it("refuses a position missing a keyset column, or holding NULL where the column cannot", () => {
    expect(() => beyondCondition(["score", "id"], undefined, "asc", { score: 1 })).toThrow(InvalidValueError);
    expect(() => beyondCondition(["score", "id"], undefined, "asc", { score: 1 })).toThrow('"id"');
    expect(() => beyondCondition(["score", "id"], undefined, "asc", { score: null, id: 1 })).toThrow(InvalidValueError);
    expect(() => beyondCondition(["note", "id"], "note", "asc", { note: 1, id: null })).toThrow(InvalidValueError);
    expect(() => beyondCondition(["note", "id"], "note", "asc", { id: 1 })).toThrow(InvalidValueError);
  });
});

describe("unchangedColumns: what a compare-and-swap checks", () => {
  const columns = ["id", "name", "note", "version"];

  it("checks the version column alone when the table has one and the row read holds it", () => {
    expect(unchangedColumns({ id: 1, name: "a", note: null, version: 3 }, columns, ["id"], "version")).toEqual([
      "version",
    ]);
    expect(unchangedColumns({ id: 1, version: null }, columns, ["id"], "version")).toEqual(["version"]);
  });

  it("else checks every non-key column the row holds, a NULL it holds included", () => {
    expect(unchangedColumns({ id: 1, name: "a", note: null, version: 3 }, columns, ["id"], undefined)).toEqual([
      "name",
      "note",
      "version",
    ]);
    expect(unchangedColumns({ id: 1, name: "a", note: null }, columns, ["id"], "version")).toEqual(["name", "note"]);
  });

  it("leaves out the columns the row was read without, and every key column", () => {
    expect(unchangedColumns({ id: 1, name: "a" }, columns, ["id"], undefined)).toEqual(["name"]);
    expect(unchangedColumns({ id: 1, name: "a" }, columns, ["id", "name"], undefined)).toEqual([]);
  });
});

describe("insertedKey: the key of a row an insert could not return", () => {
  it("takes the key values the insert was given, over any generated id", () => {
    expect(insertedKey(["a", "b"], { a: 1, b: "x", c: 3 }, 99)).toEqual([eq("a", 1), eq("b", "x")]);
    expect(insertedKey(["id"], { id: 0 }, undefined)).toEqual([eq("id", 0)]);
  });

  it("takes the generated id for the one key column not given", () => {
    expect(insertedKey(["id"], { name: "a" }, 7)).toEqual([eq("id", 7)]);
    expect(insertedKey(["id"], { id: null }, 7n)).toEqual([eq("id", 7n)]);
    expect(insertedKey(["tenant", "id"], { tenant: "t" }, 7)).toEqual([eq("tenant", "t"), eq("id", 7)]);
  });

  it("is null when the row cannot be told: no id generated, or two key columns missing", () => {
    expect(insertedKey(["id"], {}, undefined)).toBeNull();
    expect(insertedKey(["id"], {}, null)).toBeNull();
    expect(insertedKey(["a", "b"], {}, 7)).toBeNull();
  });
});

describe("keyValues: the key an update or delete goes by", () => {
  it("takes each key column's EQ value and names the key columns without one", () => {
    const { key, missing } = keyValues(["a", "b"], [eq("a", 1), eq("name", "x")]);
    expect([...key]).toEqual([["a", 1]]);
    expect(missing).toEqual(["b"]);
  });

  it("takes only an EQ with a value: a NULL, a range or a list identifies no row", () => {
    const { key, missing } = keyValues(
      ["a", "b", "c", "d"],
      [
        eq("a", null),
        eq("b", undefined),
        { field: "c", operator: "GT", value: 1 },
        { field: "d", operator: "IN", value: [1] },
      ],
    );
    expect(key.size).toBe(0);
    expect(missing).toEqual(["a", "b", "c", "d"]);
  });

  it("keeps a falsy key value, and misses nothing once every key column has one", () => {
    const { key, missing } = keyValues(["a", "b"], [eq("b", ""), eq("a", 0)]);
    expect([...key]).toEqual([
      ["b", ""],
      ["a", 0],
    ]);
    expect(missing).toEqual([]);
  });
});

describe("rereadFilters: how an update reads its row back", () => {
  it("finds the row by its key as it is now, a written key column at its new value", () => {
    const key = new Map<string, unknown>([
      ["a", 1],
      ["b", 2],
    ]);
    expect(
      rereadFilters(["a", "b"], key, [eq("a", 1), eq("b", 2)], { b: 5, name: "x" }, new Set(["b", "name"])),
    ).toEqual([eq("a", 1), eq("b", 5)]);
    expect(rereadFilters(["a", "b"], key, [eq("a", 1), eq("b", 2)], { name: "x" }, new Set(["name"]))).toEqual([
      eq("a", 1),
      eq("b", 2),
    ]);
  });

  it("keeps the narrowing conditions on columns not rewritten, and drops those the update rewrote", () => {
    const key = new Map<string, unknown>([["id", 1]]);
    const tenant: FilterCondition = { field: "tenant", operator: "EQ", value: "t" };
    const status: FilterCondition = { field: "status", operator: "NE", value: "done" };
    expect(rereadFilters(["id"], key, [eq("id", 1), tenant, status], { status: "done" }, new Set(["status"]))).toEqual([
      eq("id", 1),
      tenant,
    ]);
  });
});
