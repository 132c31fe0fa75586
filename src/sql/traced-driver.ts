import type { TraceAttributes, TraceSpan } from "../core/route/tracing";
import type { SqlDriver, SqlStatement } from "./driver";

/** `db.system.name` by dialect name, as the database semantic conventions spell the engines. */
const SYSTEM_NAMES: Record<string, string> = {
  sqlite: "sqlite",
  postgres: "postgresql",
  mysql: "mysql",
  mariadb: "mariadb",
};

const OPERATIONS = new Set(["SELECT", "INSERT", "UPDATE", "DELETE"]);

/**
 * `driver` with each statement in a span (kind CLIENT) under `parent`: the statement's text as sent,
 * with its placeholders (`db.query.text`; its bound values never), its engine, operation and table.
 * A wrapper made for one table operation of one request: the driver itself is never changed.
 */
export function tracedDriver(driver: SqlDriver, parent: TraceSpan, tableName: string): SqlDriver {
  const { dialect } = driver;
  const system = SYSTEM_NAMES[dialect.name] ?? "other_sql";
  const quotedTable = dialect.quote(tableName);
  const attributes = (sql: string): TraceAttributes => {
    const operation = OPERATIONS.has(firstWord(sql)) ? firstWord(sql) : undefined;
    // Named only when the statement is about the model's table (not, say, a live collection's change log).
    const collection = sql.includes(quotedTable) ? tableName : undefined;
    return {
      "db.system.name": system,
      "db.query.text": sql,
      "db.operation.name": operation,
      "db.collection.name": collection,
    };
  };
  const traced: SqlDriver = {
    dialect,
    query: (sql, params) => inSpan(parent, attributes(sql), () => driver.query(sql, params)),
    execute: (sql, params) => inSpan(parent, attributes(sql), () => driver.execute(sql, params)),
  };
  if (driver.transaction) {
    const transaction = driver.transaction.bind(driver);
    traced.transaction = (work) => transaction((tx) => work(tracedDriver(tx, parent, tableName)));
  }
  if (driver.batch) {
    const batch = driver.batch.bind(driver);
    traced.batch = (statements) => inSpan(parent, batchAttributes(statements, attributes), () => batch(statements));
  }
  return traced;
}

/** One span for a batch (D1's): its statements' texts joined by `;`, `BATCH` and their common operation. */
function batchAttributes(statements: SqlStatement[], attributes: (sql: string) => TraceAttributes): TraceAttributes {
  const each = statements.map((statement) => attributes(statement.sql));
  const operations = new Set(each.map((one) => one["db.operation.name"]));
  const collections = new Set(each.map((one) => one["db.collection.name"]));
  const [operation] = operations;
  const [collection] = collections;
  return {
    "db.system.name": each[0]?.["db.system.name"],
    "db.query.text": statements.map((statement) => statement.sql).join("; "),
    "db.operation.name": operations.size === 1 && operation ? `BATCH ${operation}` : "BATCH",
    "db.collection.name": collections.size === 1 ? collection : undefined,
    "db.operation.batch.size": statements.length,
  };
}

/** Runs one call in its span, named `{db.operation.name} {db.collection.name}` as far as they are known. */
async function inSpan<T>(parent: TraceSpan, attributes: TraceAttributes, run: () => Promise<T>): Promise<T> {
  const name =
    [attributes["db.operation.name"], attributes["db.collection.name"]].filter(Boolean).join(" ") ||
    String(attributes["db.system.name"]);
  const span = parent.child(name, "client", attributes);
  try {
    const result = await span.run(run);
    span.end();
    return result;
  } catch (error) {
    span.end(errorType(error));
    throw error;
  }
}

function firstWord(sql: string): string {
  return (/^\s*([A-Za-z]+)/.exec(sql)?.[1] ?? "").toUpperCase();
}

/** The error's class name (`SqliteError`), as `error.type`. */
function errorType(error: unknown): string {
  const name = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? name : "_OTHER";
}
