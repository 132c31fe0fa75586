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
