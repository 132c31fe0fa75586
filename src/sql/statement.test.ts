import { describe, expect, it } from "vitest";
import { mysqlDialect } from "./dialects/mysql";
import { postgresDialect } from "./dialects/postgres";
import { sqliteDialect } from "./dialects/sqlite";
import { statementText } from "./statement";

describe("statementText", () => {
  const statement = { text: ["SELECT * FROM t WHERE a = ", " AND b IN (", ", ", ")"], params: [1, 2, 3] };

  it("writes each dialect's placeholders between the parts, numbered in order where the dialect numbers them", () => {
    expect(statementText(statement, postgresDialect)).toBe("SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)");
    expect(statementText(statement, sqliteDialect)).toBe("SELECT * FROM t WHERE a = ? AND b IN (?, ?)");
    expect(statementText(statement, mysqlDialect)).toBe("SELECT * FROM t WHERE a = ? AND b IN (?, ?)");
  });

  it("leaves a statement without values as its one text", () => {
    expect(statementText({ text: ["SELECT '?', '$1'"], params: [] }, postgresDialect)).toBe("SELECT '?', '$1'");
  });
});
