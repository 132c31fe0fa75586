import { assertCount, type Dialect, errorChain, isDataException, LIKE_ESCAPE, type UniqueViolation } from "../dialect";

// ER_DUP_ENTRY: "Duplicate entry '<value>' for key '<index>'"; MySQL 8.0.19+ writes '<table>.<index>'.
const DUPLICATE_KEY = /for key '([^']+)'$/;

/**
 * Reads errno 1062 (ER_DUP_ENTRY) from mysql2 errors. The message names only the index, so
 * `columns` is empty and the columns are looked up by index name.
 *
 * @example
 * mysqlUniqueViolation({ errno: 1062, sqlMessage: "Duplicate entry 'a' for key 'users.email'" }) // { columns: [], index: "email" }
 */
export function mysqlUniqueViolation(error: unknown): UniqueViolation | null {
  for (const link of errorChain(error)) {
    if (link.errno !== 1062 && link.code !== "ER_DUP_ENTRY") continue;
    const message = typeof link.sqlMessage === "string" ? link.sqlMessage : String(link.message ?? "");
    const match = DUPLICATE_KEY.exec(message);
    if (!match) return { columns: [] };
    // Index names containing a dot or quote are not supported: before the first dot is MySQL 8's table prefix.
    const index = match[1].includes(".") ? match[1].slice(match[1].indexOf(".") + 1) : match[1];
    return { columns: [], index };
  }
  return null;
}

/**
 * MySQL 5.7+/8 and MariaDB, without RETURNING: written rows are re-selected by primary key and a
 * deleted row is selected before the DELETE (two statements, not atomic against concurrent writers).
 * Search lowercases both sides so `_bin`/`_cs` collations are case-insensitive too; a `_ci`
 * collation may also ignore accents, which other engines do not. Equality with text (a filter, a path
 * key, a primary key) is exact, as on the other engines, whatever the column's collation: `column = ?`
 * narrows by the index, and a comparison of both as UTF-8 bytes beside it keeps the exact matches.
 *
 * @example
 * const driver = mysql2Driver(pool) // uses mysqlDialect
 */
// Alike the other dialects on purpose (sqlite.ts, postgres.ts): each is the same Dialect members, only their values differ.
export const mysqlDialect: Dialect = {
  name: "mysql",
  returning: { insert: false, update: false, delete: false },
  insertDefaults: "() VALUES ()",
  quote: (identifier) => `\`${identifier.replaceAll("`", "``")}\``,
  placeholder: () => "?",
  containsInsensitive: (column, pattern) => `LOWER(${column}) LIKE LOWER(${pattern}) ESCAPE '${LIKE_ESCAPE}'`,
  // MySQL already sorts NULL first ascending and last descending.
  orderBy: (column, direction) => `${column} ${direction === "desc" ? "DESC" : "ASC"}`,
  // Inlined (checked integers): MySQL 8 rejects the DOUBLE-typed LIMIT parameters some clients send in prepared statements.
  limitOffset: (limit, offset) => `LIMIT ${assertCount(limit, "limit")} OFFSET ${assertCount(offset, "offset")}`,
  limit: (limit) => `LIMIT ${assertCount(limit, "limit")}`,
  uniqueViolation: mysqlUniqueViolation,
  // Text compared byte for byte (a `_ci` collation would let 'Ada' -> 'ADA' pass as unchanged); JSON as the
  // engine normalises it (JSON_EXTRACT '$': MySQL's JSON type, MariaDB's whitespace-free text), then byte for byte.
  sameValue: (column, placeholder, value, json) => {
    if (json) {
      return `CAST(JSON_EXTRACT(${column}, '$') AS BINARY) = CAST(JSON_EXTRACT(${placeholder}, '$') AS BINARY)`;
    }
    if (typeof value === "string") return `CAST(${column} AS BINARY) = CAST(${placeholder} AS BINARY)`;
    return `${column} = ${placeholder}`;
  },
  // A text column's value as UTF-8 bytes: equal only when every code point is (a `_ci` collation folds case and
  // accents, PAD SPACE drops trailing spaces). A number's or a date's column has the charset `binary`: its
  // `column = ?` already compares by value, which its bytes would not ("1.50" against "1.5").
  exactText: (column, placeholders) => {
    const bytes = (text: string) => `CAST(CONVERT(${text} USING utf8mb4) AS BINARY)`;
    const values = placeholders.map(bytes);
    const test = values.length === 1 ? `= ${values[0]}` : `IN (${values.join(", ")})`;
    return `(CHARSET(${column}) = 'binary' OR ${bytes(column)} ${test})`;
  },
  dataException: isDataException,
  uniqueIndexColumns: (table, index) => ({
    sql: `SELECT COLUMN_NAME AS column_name FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND INDEX_NAME = ?
ORDER BY SEQ_IN_INDEX`,
    params: [table.length > 1 ? table[0] : null, table[table.length - 1], index],
  }),
  tables: {
    // A key cannot be TEXT on MySQL; `_bin` so "Tasks" and "tasks" are two keys, as on the other engines.
    keyText: "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
    shortText: "VARCHAR(16)",
    // TEXT holds at most 64 KiB.
    longText: "LONGTEXT",
    bigInteger: "BIGINT",
    options: " ENGINE=InnoDB",
    keyedOptions: " ENGINE=InnoDB",
  },
  upsert: {
    update: () => "ON DUPLICATE KEY UPDATE",
    stored: (_table, column) => column,
    // Neither MySQL nor MariaDB returns the row an ON DUPLICATE KEY UPDATE wrote.
    returning: false,
    insertIfAbsent: (table, _key, values) => `INSERT IGNORE INTO ${table} ${values}`,
  },
};

/**
 * MariaDB 10.5+: like {@link mysqlDialect} but with RETURNING for INSERT and DELETE
 * (MariaDB has no UPDATE ... RETURNING, so an updated row is still re-selected).
 *
 * @example
 * const driver = mysql2Driver(pool, { dialect: mariadbDialect })
 */
// Object.assign marked pure (a spread is not), so bundles that never use this dialect drop it.
export const mariadbDialect: Dialect = /* @__PURE__ */ Object.assign({}, mysqlDialect, {
  name: "mariadb",
  returning: { insert: true, update: false, delete: true },
});
