import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidIdentifierError, SqlTable } from "../../src/sql";

const schema = z.object({ id: z.number(), name: z.string() });

describe("SqlTable construction", () => {
  const badTableNames = [
    "",
    "users; DROP TABLE users",
    "users--",
    "1users",
    "us-ers",
    "us ers",
    'users"',
    "users`",
    "users'",
    "usérs",
    "a.b.c",
    ".users",
    "users.",
    "x".repeat(64),
    "users\u0000",
  ];

  for (const tableName of badTableNames) {
    it(`rejects the table name ${JSON.stringify(tableName)}`, () => {
      expect(() => new SqlTable({ tableName, schema, primaryKeys: ["id"] })).toThrow(InvalidIdentifierError);
    });
  }

  it("accepts plain and schema-qualified table names", () => {
    expect(new SqlTable({ tableName: "users", schema, primaryKeys: ["id"] }).tableName).toBe("users");
    expect(new SqlTable({ tableName: "app.users_2", schema, primaryKeys: ["id"] }).columns).toEqual(["id", "name"]);
    expect(new SqlTable({ tableName: `_${"x".repeat(62)}`, schema, primaryKeys: ["id"] })).toBeInstanceOf(SqlTable);
  });

  it("rejects a schema key that is not a plain identifier", () => {
    for (const key of ["bad-col", "sp ace", 'q"uote', "name; --", "1st", ""]) {
      const bad = z.object({ id: z.number(), [key]: z.string() });
      expect(() => new SqlTable({ tableName: "t", schema: bad, primaryKeys: ["id"] })).toThrow(InvalidIdentifierError);
    }
  });

  it("rejects primary keys that are not columns, and a model without one", () => {
    expect(() => new SqlTable({ tableName: "t", schema, primaryKeys: ["uuid"] })).toThrow(InvalidIdentifierError);
    expect(() => new SqlTable({ tableName: "t", schema, primaryKeys: [] })).toThrow(InvalidIdentifierError);
  });

  it("takes its columns from `fields` when given, and checks them too", () => {
    const fields = z.object({ id: z.number(), name: z.string(), extra: z.boolean() });
    expect(new SqlTable({ tableName: "t", schema, primaryKeys: ["id"] }, { fields }).columns).toEqual([
      "id",
      "name",
      "extra",
    ]);
    const badFields = z.object({ id: z.number(), "x y": z.string() });
    expect(() => new SqlTable({ tableName: "t", schema, primaryKeys: ["id"] }, { fields: badFields })).toThrow(
      InvalidIdentifierError,
    );
  });
});

describe("what a refused name tells the developer", () => {
  const message = (build: () => unknown): string => {
    try {
      build();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidIdentifierError);
      return (error as Error).message;
    }
    throw new Error("expected the name to be refused");
  };

  it("names the table or column refused, and the pattern a name must match", () => {
    expect(message(() => new SqlTable({ tableName: "us-ers", schema, primaryKeys: ["id"] }))).toBe(
      'Invalid table name "us-ers": expected /^[A-Za-z_][A-Za-z0-9_]{0,62}$/',
    );
    expect(message(() => new SqlTable({ tableName: "app.1users", schema, primaryKeys: ["id"] }))).toBe(
      'Invalid table name "1users": expected /^[A-Za-z_][A-Za-z0-9_]{0,62}$/',
    );
    const bad = z.object({ id: z.number(), "name; --": z.string() });
    expect(message(() => new SqlTable({ tableName: "t", schema: bad, primaryKeys: ["id"] }))).toBe(
      'Invalid column name "name; --": expected /^[A-Za-z_][A-Za-z0-9_]{0,62}$/',
    );
  });

  it("refuses more than schema.table, and a table name that is not a string (a JavaScript caller's)", () => {
    expect(message(() => new SqlTable({ tableName: "db.app.users", schema, primaryKeys: ["id"] }))).toBe(
      'Invalid table name "db.app.users": at most schema.table',
    );
    for (const tableName of [42, undefined, null, ["users"]]) {
      expect(message(() => new SqlTable({ tableName: tableName as never, schema, primaryKeys: ["id"] }))).toBe(
        "Table name must be a string",
      );
    }
  });
});
