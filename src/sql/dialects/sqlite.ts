import { type Dialect, errorChain, LIKE_ESCAPE, type UniqueViolation } from "../dialect";

// "UNIQUE constraint failed: t.a, t.b" (column constraints) or "... failed: index 'name'" (expression indexes).
const UNIQUE_FAILED = /UNIQUE constraint failed: (?:index '([^']+)'|([\w$]+(?:\.[\w$]+)*(?:, [\w$]+(?:\.[\w$]+)*)*))/;

/**
 * Reads SQLite's "UNIQUE constraint failed" message, also when wrapped (D1: "D1_ERROR: ...: SQLITE_CONSTRAINT").
 *
 * @example
 * sqliteUniqueViolation(new Error("UNIQUE constraint failed: users.email")) // { columns: ["email"] }
 */
export function sqliteUniqueViolation(error: unknown): UniqueViolation | null {
  for (const link of errorChain(error)) {
    const match = typeof link.message === "string" ? UNIQUE_FAILED.exec(link.message) : null;
    if (!match) continue;
    const constraint = match[0].slice(match[0].indexOf(": ") + 2);
    if (match[1] !== undefined) return { columns: [], index: match[1], constraint };
    return { columns: match[2].split(", ").map((name) => name.slice(name.lastIndexOf(".") + 1)), constraint };
  }
  return null;
}

/**
 * SQLite (also Cloudflare D1). Needs SQLite 3.35+ for RETURNING, used for every write.
 * LIKE is case-insensitive for ASCII letters only (SQLite's default; `PRAGMA case_sensitive_like` would change it).
 *
 * @example
 * const driver = betterSqlite3Driver(db) // uses sqliteDialect
 */
// A bigint past 64 bits, which better-sqlite3, node:sqlite and bun:sqlite each refuse to bind.
const TOO_BIG = /bigint is too big|BigInt value is too large|BigInt value '-?\d+' is out of range/;

/** Whether the client refused a value its column cannot hold: the client's bad value, not the server's fault. */
function sqliteDataException(error: unknown): boolean {
  for (const link of errorChain(error)) if (typeof link.message === "string" && TOO_BIG.test(link.message)) return true;
  return false;
}

// Alike the other dialects on purpose (postgres.ts, mysql.ts): each is the same Dialect members, only their values differ.
export const sqliteDialect: Dialect = {
  name: "sqlite",
  returning: { insert: true, update: true, delete: true },
  insertDefaults: "DEFAULT VALUES",
  quote: (identifier) => `"${identifier.replaceAll('"', '""')}"`,
  // Plain `?` rather than `?NNN`: D1 and better-sqlite3 both bind anonymous placeholders positionally.
  placeholder: () => "?",
  containsInsensitive: (column, pattern) => `${column} LIKE ${pattern} ESCAPE '${LIKE_ESCAPE}'`,
  // SQLite already sorts NULL first ascending and last descending; lowercase as chanfana's D1 helpers write it.
  orderBy: (column, direction) => `${column} ${direction === "desc" ? "desc" : "asc"}`,
  limitOffset: (limit, offset, bind) => `LIMIT ${bind(limit)} OFFSET ${bind(offset)}`,
  limit: (limit, bind) => `LIMIT ${bind(limit)}`,
  uniqueViolation: sqliteUniqueViolation,
  dataException: sqliteDataException,
  // BINARY whatever the column's collation (NOCASE would let a change of case pass as unchanged).
  sameValue: (column, placeholder) => `${column} = ${placeholder} COLLATE BINARY`,
  tables: {
    keyText: "TEXT",
    shortText: "TEXT",
    longText: "TEXT",
    // SQLite's INTEGER holds 64 bits.
    bigInteger: "INTEGER",
    options: "",
    // Rows kept in the key's order, with no hidden row id beside them.
    keyedOptions: " WITHOUT ROWID",
  },
  upsert: {
    update: (key) => `ON CONFLICT (${key}) DO UPDATE SET`,
    stored: (table, column) => `${table}.${column}`,
    returning: true,
    insertIfAbsent: (table, key, values) => `INSERT INTO ${table} ${values} ON CONFLICT (${key}) DO NOTHING`,
  },
};
