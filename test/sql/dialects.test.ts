import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  columnKind,
  containsPattern,
  decodeValue,
  mariadbDialect,
  mysqlDialect,
  mysqlUniqueViolation,
  postgresDialect,
  postgresUniqueViolation,
  sqliteDialect,
  sqliteUniqueViolation,
} from "../../src/sql";

// Message shapes of engines this machine cannot run (D1, MySQL 8); the others are covered live by the shared suite.
describe("unique violation parsing", () => {
  it("reads D1's wrapped SQLite message, with or without a cause", () => {
    const wrapped = new Error("D1_ERROR: UNIQUE constraint failed: users.org, users.email: SQLITE_CONSTRAINT");
    expect(sqliteUniqueViolation(wrapped)).toEqual({
      columns: ["org", "email"],
      constraint: "users.org, users.email",
    });
    const withCause = new Error("D1_ERROR", { cause: new Error("UNIQUE constraint failed: users.email") });
    expect(sqliteUniqueViolation(withCause)).toEqual({ columns: ["email"], constraint: "users.email" });
  });

  it("reports an expression index by name", () => {
    expect(sqliteUniqueViolation(new Error("UNIQUE constraint failed: index 'users_lower_email'"))).toEqual({
      columns: [],
      index: "users_lower_email",
      constraint: "index 'users_lower_email'",
    });
  });

  it("ignores other constraint failures", () => {
    expect(sqliteUniqueViolation(new Error("NOT NULL constraint failed: users.email"))).toBeNull();
    expect(sqliteUniqueViolation(new Error("CHECK constraint failed: positive"))).toBeNull();
    expect(postgresUniqueViolation({ code: "23503", detail: "Key (org)=(1) is not present" })).toBeNull();
    expect(mysqlUniqueViolation({ errno: 1452, sqlMessage: "Cannot add or update a child row" })).toBeNull();
  });

  it("reads PostgreSQL's detail, including quoted and multi-column keys", () => {
    expect(postgresUniqueViolation({ code: "23505", detail: 'Key (org, "Email")=(1, a@b) already exists.' })).toEqual({
      columns: ["org", "Email"],
      index: undefined,
    });
    expect(postgresUniqueViolation({ code: "23505", constraint: "users_email_key" })).toEqual({
      columns: [],
      index: "users_email_key",
    });
  });

  it("strips MySQL 8's table prefix from the index name, and keeps MariaDB's bare one", () => {
    const mysql8 = { errno: 1062, sqlMessage: "Duplicate entry 'a@b' for key 'users.users_email_uq'" };
    expect(mysqlUniqueViolation(mysql8)).toEqual({ columns: [], index: "users_email_uq" });
    const mariadb = { errno: 1062, sqlMessage: "Duplicate entry 'x' for key 'x' for key 'PRIMARY'" };
    expect(mysqlUniqueViolation(mariadb)).toEqual({ columns: [], index: "PRIMARY" });
  });
});

describe("dialect text", () => {
  it("quotes identifiers and numbers placeholders per engine", () => {
    expect(sqliteDialect.quote("group")).toBe('"group"');
    expect(postgresDialect.quote('a"b')).toBe('"a""b"');
    expect(mysqlDialect.quote("a`b")).toBe("`a``b`");
    expect([sqliteDialect, postgresDialect, mysqlDialect].map((dialect) => dialect.placeholder(3))).toEqual([
      "?",
      "$3",
      "?",
    ]);
  });

  it("declares RETURNING support per engine", () => {
    expect(sqliteDialect.returning).toEqual({ insert: true, update: true, delete: true });
    expect(postgresDialect.returning).toEqual({ insert: true, update: true, delete: true });
    expect(mariadbDialect.returning).toEqual({ insert: true, update: false, delete: true });
    expect(mysqlDialect.returning).toEqual({ insert: false, update: false, delete: false });
  });

  it("escapes LIKE wildcards and the escape character", () => {
    expect(containsPattern("100%_!x\\")).toBe("%100!%!_!!x\\%");
  });

  it("inlines only checked integers into MySQL's LIMIT", () => {
    expect(mysqlDialect.limitOffset(10, 20, () => "?")).toBe("LIMIT 10 OFFSET 20");
    expect(() => mysqlDialect.limitOffset(1.5, 0, () => "?")).toThrow(RangeError);
    expect(() => mysqlDialect.limitOffset(Number.NaN, 0, () => "?")).toThrow(RangeError);
  });
});

describe("row decoding by schema", () => {
  it("reads each field's stored kind through wrappers and pipes", () => {
    expect(columnKind(z.boolean().default(true))).toBe("boolean");
    expect(columnKind(z.number().int().nullable().optional())).toBe("number");
    expect(columnKind(z.coerce.number())).toBe("number");
    expect(columnKind(z.iso.datetime())).toBe("string");
    expect(columnKind(z.date())).toBe("date");
    expect(columnKind(z.bigint())).toBe("bigint");
    expect(columnKind(z.array(z.string()))).toBe("json");
    expect(columnKind(z.object({ a: z.number() }))).toBe("json");
    expect(columnKind(z.enum(["a", "b"]))).toBe("string");
    expect(columnKind(z.literal(true))).toBe("boolean");
    expect(columnKind(z.union([z.number(), z.null()]))).toBe("number");
    expect(columnKind(z.union([z.number(), z.string()]))).toBe("unknown");
    expect(columnKind(z.string().transform((value) => value.length))).toBe("unknown");
  });

  it("turns engine shapes back into the field's kind", () => {
    expect(decodeValue("boolean", 0)).toBe(false);
    expect(decodeValue("boolean", 1n)).toBe(true);
    expect(decodeValue("number", "12.50")).toBe(12.5);
    expect(decodeValue("number", 7n)).toBe(7);
    expect(decodeValue("number", "")).toBe("");
    expect(decodeValue("bigint", "9007199254740993")).toBe(9007199254740993n);
    expect(decodeValue("date", "2024-01-02T03:04:05.000Z")).toEqual(new Date("2024-01-02T03:04:05.000Z"));
    expect(decodeValue("string", new Date("2024-01-02T03:04:05.000Z"))).toBe("2024-01-02T03:04:05.000Z");
    expect(decodeValue("json", '["a"]')).toEqual(["a"]);
    expect(decodeValue("json", "not json")).toBe("not json");
    expect(decodeValue("number", null)).toBeNull();
  });
});
