import { type Dialect, errorChain, isDataException, LIKE_ESCAPE, type UniqueViolation } from "../dialect";

// Detail of SQLSTATE 23505: `Key (a, "B")=(1, x) already exists.`
const KEY_DETAIL = /^Key \((.+?)\)=\(/;

function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name;
}

/**
 * Reads SQLSTATE 23505 (unique_violation) from node-postgres or PGlite errors: columns from `detail`,
 * the constraint name from `constraint`.
 *
 * @example
 * postgresUniqueViolation({ code: "23505", detail: "Key (email)=(a@b.c) already exists." }) // { columns: ["email"] }
 */
export function postgresUniqueViolation(error: unknown): UniqueViolation | null {
  for (const link of errorChain(error)) {
    if (link.code !== "23505") continue;
    const match = typeof link.detail === "string" ? KEY_DETAIL.exec(link.detail) : null;
    const columns = match ? match[1].split(", ").map((name) => unquote(name.trim())) : [];
    return { columns, index: typeof link.constraint === "string" ? link.constraint : undefined };
  }
  return null;
}

/**
 * PostgreSQL (node-postgres, PGlite, any wire-compatible server). RETURNING for every write,
 * ILIKE for case-insensitive search (Unicode-aware per the database's ctype).
 *
 * @example
 * const driver = pgDriver(pool) // uses postgresDialect
 */
// Alike the other dialects on purpose (sqlite.ts, mysql.ts): each is the same Dialect members, only their values differ.
export const postgresDialect: Dialect = {
  name: "postgres",
  returning: { insert: true, update: true, delete: true },
  insertDefaults: "DEFAULT VALUES",
  quote: (identifier) => `"${identifier.replaceAll('"', '""')}"`,
  placeholder: (position) => `$${position}`,
  containsInsensitive: (column, pattern) => `${column} ILIKE ${pattern} ESCAPE '${LIKE_ESCAPE}'`,
  // PostgreSQL sorts NULL as the largest value; match SQLite and MySQL, where it is the smallest.
  // Without NULLs the clause changes nothing, and leaving it out lets a default (ASC NULLS LAST) index serve the order.
  orderBy: (column, direction, mayBeNull = true) =>
    mayBeNull
      ? `${column} ${direction === "desc" ? "DESC NULLS LAST" : "ASC NULLS FIRST"}`
      : `${column} ${direction === "desc" ? "DESC" : "ASC"}`,
  limitOffset: (limit, offset, bind) => `LIMIT ${bind(limit)} OFFSET ${bind(offset)}`,
  limit: (limit, bind) => `LIMIT ${bind(limit)}`,
  uniqueViolation: postgresUniqueViolation,
  // `json` has no equality operator: as jsonb, both sides compare by value. Text read back compares as text,
  // so a citext column or a nondeterministic collation cannot let a change of case pass as unchanged.
  sameValue: (column, placeholder, value, json) => {
    if (json) return `${column}::jsonb = ${placeholder}::jsonb`;
    if (typeof value === "string") return `${column}::text = ${placeholder}::text`;
    return `${column} = ${placeholder}`;
  },
  dataException: isDataException,
  // Fallback when `detail` is absent (it is withheld from roles that cannot read the columns).
  uniqueIndexColumns: (table, index) => ({
    sql: `SELECT a.attname AS column_name
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (x.indkey)
WHERE i.relname = $1 AND t.relname = $2
  AND CASE WHEN $3::text IS NULL THEN pg_table_is_visible(t.oid) ELSE n.nspname = $3::text END
ORDER BY array_position(x.indkey::int2[], a.attnum)`,
    params: [index, table[table.length - 1], table.length > 1 ? table[0] : null],
  }),
  tables: {
    keyText: "TEXT",
    shortText: "TEXT",
    longText: "TEXT",
    bigInteger: "BIGINT",
    options: "",
    keyedOptions: "",
  },
  upsert: {
    update: (key) => `ON CONFLICT (${key}) DO UPDATE SET`,
    stored: (table, column) => `${table}.${column}`,
    returning: true,
    insertIfAbsent: (table, key, values) => `INSERT INTO ${table} ${values} ON CONFLICT (${key}) DO NOTHING`,
  },
};
