import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiException,
  buildOrderByClause,
  buildPrimaryKeyFilters,
  buildSafeFilters,
  buildWhereClause,
  ConflictException,
  getD1Binding,
  handleDbError,
  InputValidationException,
  validateColumnName,
  validateOrderByColumn,
  validateOrderDirection,
  validateSqlIdentifier,
  validateTableName,
} from "../../src";
import { openD1Binding } from "../endpoints/d1";
import { recordingLogger } from "../endpoints/recording-logger";
import { INJECTION_PAYLOADS } from "./injection-payloads";

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("identifier checks", () => {
  it("returns plain identifiers unchanged, up to 128 characters", () => {
    for (const name of ["users", "user_name", "_private", "Table123", "a".repeat(128)]) {
      expect(validateSqlIdentifier(name, "table")).toBe(name);
    }
    expect(validateTableName("user_posts")).toBe("user_posts");
    expect(validateColumnName("email")).toBe("email");
  });

  it("refuses empty, digit-first, dotted, spaced and over-long names as ApiException naming the kind", () => {
    const cases: [string, string][] = [
      ["", "Invalid table name: must be a non-empty string"],
      ["1table", 'Invalid table name "1table": must start with a letter or underscore'],
      ["schema.table", 'Invalid table name "schema.table"'],
      ["user name", 'Invalid table name "user name"'],
      ["a".repeat(129), "exceeds maximum length of 128 characters"],
    ];
    for (const [name, message] of cases) {
      const error = thrown(() => validateSqlIdentifier(name, "table"));
      expect(error).toBeInstanceOf(ApiException);
      expect((error as Error).message).toContain(message);
    }
    expect((thrown(() => validateColumnName("bad-col")) as Error).message).toContain('Invalid column name "bad-col"');
  });

  it("refuses a name that is not a string, as a JavaScript caller may pass one", () => {
    for (const name of [undefined, null, 42, {}]) {
      expect(() => validateSqlIdentifier(name as never, "table")).toThrow(
        "Invalid table name: must be a non-empty string",
      );
    }
  });

  it("refuses every injection payload as a table or column name", () => {
    for (const payload of INJECTION_PAYLOADS) {
      // "_", "NULL" and "null" are plain identifiers: harmless as names, and no column of the model.
      if (!["_", "NULL", "null"].includes(payload)) expect(() => validateTableName(payload)).toThrow(ApiException);
      expect(() => validateColumnName(payload, ["id"])).toThrow(ApiException);
    }
  });

  it("refuses a well-formed column outside the allowed list, and ignores an empty list", () => {
    expect(() => validateColumnName("password", ["id", "email"])).toThrow(
      'Invalid column name "password": not found in schema',
    );
    expect(validateColumnName("password", [])).toBe("password");
  });
});

describe("ordering", () => {
  it("normalises the direction, falling back to asc for anything else", () => {
    expect(["asc", "DESC", " Desc ", undefined, "", "sideways", "desc; DROP"].map(validateOrderDirection)).toEqual([
      "asc",
      "desc",
      "desc",
      "asc",
      "asc",
      "asc",
      "asc",
    ]);
  });

  it("orders by an allowed column, else by the fallback", () => {
    expect(validateOrderByColumn("name", ["id", "name"], "id")).toBe("name");
    expect(validateOrderByColumn("password", ["id", "name"], "id")).toBe("id");
    expect(validateOrderByColumn(undefined, ["id"], "id")).toBe("id");
    expect(validateOrderByColumn("undefined", ["id"], "id")).toBe("id");
    expect(() => validateOrderByColumn(undefined, [], "id; --")).toThrow(ApiException);
  });

  it("writes ORDER BY with a lowercase direction and refuses a column that is not an identifier", () => {
    expect(buildOrderByClause("name", "asc")).toBe("ORDER BY name asc");
    expect(buildOrderByClause("id", "desc")).toBe("ORDER BY id desc");
    expect(() => buildOrderByClause("id; DROP TABLE users", "asc")).toThrow(ApiException);
  });
});

describe("conditions", () => {
  it("numbers placeholders from startParamIndex and keeps values apart from the text", () => {
    const filters = [
      { field: "status", operator: "EQ", value: "active" },
      { field: "role", operator: "EQ", value: "' OR 1=1 --" },
    ];
    expect(buildSafeFilters(filters, ["status", "role"])).toEqual({
      conditions: ["status = ?1", "role = ?2"],
      conditionsParams: ["active", "' OR 1=1 --"],
    });
    expect(buildSafeFilters(filters, ["status", "role"], 4).conditions).toEqual(["status = ?4", "role = ?5"]);
    expect(buildSafeFilters([], ["id"])).toEqual({ conditions: [], conditionsParams: [] });
  });

  it("builds specroute's comparison operators, and IS NULL for a null equality", () => {
    const built = buildSafeFilters(
      [
        { field: "price", operator: "GTE", value: 10 },
        { field: "id", operator: "IN", value: [1, 2] },
        { field: "note", operator: "EQ", value: null },
      ],
      ["id", "price", "note"],
    );
    expect(built).toEqual({
      conditions: ["price >= ?1", "id IN (?2, ?3)", "note IS NULL"],
      conditionsParams: [10, 1, 2],
    });
  });

  it("builds ISNULL as IS NULL / IS NOT NULL, binding nothing, and refuses a value that is not a boolean", () => {
    const built = buildSafeFilters(
      [
        { field: "note", operator: "ISNULL", value: true },
        { field: "price", operator: "ISNULL", value: false },
        { field: "id", operator: "EQ", value: 3 },
      ],
      ["id", "price", "note"],
    );
    expect(built).toEqual({ conditions: ["note IS NULL", "price IS NOT NULL", "id = ?1"], conditionsParams: [3] });
    const error = thrown(() => buildSafeFilters([{ field: "note", operator: "ISNULL", value: "yes" }], ["note"]));
    expect(error).toBeInstanceOf(InputValidationException);
  });

  it("does not count an ISNULL test on a key as scoping a statement", () => {
    const filters = { filters: [{ field: "id", operator: "ISNULL", value: false }] };
    expect(() => buildPrimaryKeyFilters(filters, ["id"], ["id"])).toThrow("No primary key filters provided");
  });

  it("refuses unknown columns, injected columns and unsupported operators as ApiException", () => {
    expect(() => buildSafeFilters([{ field: "secret", operator: "EQ", value: 1 }], ["id"])).toThrow(ApiException);
    for (const payload of INJECTION_PAYLOADS) {
      expect(() => buildSafeFilters([{ field: payload, operator: "EQ", value: 1 }], ["id"])).toThrow(ApiException);
    }
    expect(() => buildSafeFilters([{ field: "id", operator: "LIKE", value: "a" }], ["id"])).toThrow(
      'Operator "LIKE" is not implemented',
    );
    expect(() => buildSafeFilters([{ field: "id", operator: "EQ); DROP", value: 1 }], ["id"])).toThrow(ApiException);
  });

  it("refuses a value with a NUL character as a 400", () => {
    const error = thrown(() => buildSafeFilters([{ field: "id", operator: "EQ", value: "a\0b" }], ["id"]));
    expect(error).toBeInstanceOf(InputValidationException);
  });

  it("keeps only primary key filters, and refuses to scope nothing", () => {
    const filters = {
      filters: [
        { field: "orgId", operator: "EQ" as const, value: 1 },
        { field: "title", operator: "EQ" as const, value: "x" },
        { field: "userId", operator: "EQ" as const, value: 2 },
      ],
    };
    expect(buildPrimaryKeyFilters(filters, ["orgId", "userId"], ["orgId", "userId", "title"], 3)).toEqual({
      conditions: ["orgId = ?3", "userId = ?4"],
      conditionsParams: [1, 2],
    });
    expect(() => buildPrimaryKeyFilters({ filters: filters.filters.slice(1, 2) }, ["id"], [])).toThrow(
      "No primary key filters provided",
    );
  });

  it("joins conditions into a WHERE clause, or nothing", () => {
    expect(buildWhereClause(["a = ?1", "b = ?2"])).toBe("WHERE a = ?1 AND b = ?2");
    expect(buildWhereClause([])).toBe("");
  });
});

describe("bindings and database errors", () => {
  it("returns the named D1 binding, refusing a missing one and one that is not D1", () => {
    const db = { prepare: () => undefined };
    const env = { DB: db, KV: { get: () => undefined } };
    expect(getD1Binding(() => env, [], "DB")).toBe(db);
    expect(() => getD1Binding(() => env, [], "OTHER")).toThrow('Binding "OTHER" is not defined in worker');
    expect(() => getD1Binding(() => env, [], "KV")).toThrow('Binding "KV" is not a D1 binding');
    expect(thrown(() => getD1Binding(() => env, [], "KV"))).toBeInstanceOf(ApiException);
  });

  it("turns a mapped UNIQUE violation into a fresh copy of the configured exception, each time", () => {
    const template = new InputValidationException("Email taken", ["body", "email"]);
    const error = new Error("D1_ERROR: UNIQUE constraint failed: users.email: SQLITE_CONSTRAINT");
    const first = thrown(() => handleDbError(error, { "users.email": template })) as InputValidationException;
    const second = thrown(() => handleDbError(error, { "users.email": template })) as InputValidationException;
    expect(first).toBeInstanceOf(InputValidationException);
    expect([first.message, first.path]).toEqual(["Email taken", ["body", "email"]]);
    expect(first).not.toBe(template);
    expect(second).not.toBe(first);
  });

  it("copies any ApiException subclass with its class and fields", () => {
    const template = new ConflictException("Name in use");
    const copy = thrown(() =>
      handleDbError(new Error("UNIQUE constraint failed: t.a, t.b"), { "t.a, t.b": template }),
    ) as ConflictException;
    expect(copy).toBeInstanceOf(ConflictException);
    expect(copy).not.toBe(template);
    expect([copy.message, copy.status, copy.code]).toEqual([template.message, template.status, template.code]);
  });

  it("answers anything else with a safe 500 message, logging the real one when asked", () => {
    const logger = recordingLogger();
    const error = thrown(() =>
      handleDbError(new Error("UNIQUE constraint failed: users.name"), {}, logger, "create users"),
    ) as ApiException;
    expect(error).toBeInstanceOf(ApiException);
    expect([error.message, error.status]).toEqual(["Database operation failed", 500]);
    expect(logger.lines.error).toEqual([["Database error during create users: UNIQUE constraint failed: users.name"]]);
    expect(() => handleDbError(new Error("no such table: x"), {}, logger)).toThrow("Database operation failed");
    expect(logger.lines.error).toHaveLength(1);
  });
});

describe("statements built by the helpers, run on real D1 (workerd)", () => {
  let d1: Awaited<ReturnType<typeof openD1Binding>>;
  beforeAll(async () => {
    d1 = await openD1Binding();
    await d1.binding.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE, role TEXT)");
    await d1.binding.exec(
      "INSERT INTO users (id, email, role) VALUES (1, 'a@x', 'admin'), (2, 'b@x', 'user'), (3, 'c@x', 'user')",
    );
  });
  afterAll(() => d1.close());

  const columns = ["id", "email", "role"];

  it("selects by the conditions, binding injection payloads as plain values", async () => {
    for (const payload of ["' OR 1=1 --", "user' OR '1'='1"]) {
      const { conditions, conditionsParams } = buildSafeFilters(
        [{ field: "role", operator: "EQ", value: payload }],
        columns,
      );
      const sql = `SELECT * FROM ${validateTableName("users")} ${buildWhereClause(conditions)} ${buildOrderByClause("id", "asc")}`;
      const { results } = await d1.binding
        .prepare(sql)
        .bind(...conditionsParams)
        .all();
      expect(results).toEqual([]);
    }
    const { conditions, conditionsParams } = buildSafeFilters(
      [{ field: "role", operator: "EQ", value: "user" }],
      columns,
    );
    const sql = `SELECT id FROM users ${buildWhereClause(conditions)} ${buildOrderByClause("id", "desc")}`;
    expect(
      (
        await d1.binding
          .prepare(sql)
          .bind(...conditionsParams)
          .all()
      ).results,
    ).toEqual([{ id: 3 }, { id: 2 }]);
  });

  it("numbers SET and WHERE placeholders so one statement binds both", async () => {
    const key = buildPrimaryKeyFilters({ filters: [{ field: "id", operator: "EQ", value: 2 }] }, ["id"], columns);
    const set = `role = ?${key.conditionsParams.length + 1}`;
    const sql = `UPDATE users SET ${set} ${buildWhereClause(key.conditions)} RETURNING role`;
    expect(
      (
        await d1.binding
          .prepare(sql)
          .bind(...key.conditionsParams, "owner")
          .all()
      ).results,
    ).toEqual([{ role: "owner" }]);
  });

  it("maps D1's own UNIQUE error through constraintsMessages", async () => {
    const template = new InputValidationException("Email taken", ["body", "email"]);
    const error = await d1.binding
      .prepare("INSERT INTO users (email, role) VALUES (?1, ?2)")
      .bind("a@x", "user")
      .run()
      .catch((e: Error) => e);
    const mapped = thrown(() => handleDbError(error, { "users.email": template }));
    expect(mapped).toBeInstanceOf(InputValidationException);
    expect((mapped as Error).message).toBe("Email taken");
  });
});
