/** Parameter conversions shared by drivers; each driver picks the ones its engine needs. */

/** SQLite has no boolean or date type: booleans become 0/1 and Dates ISO-8601 text (which sorts correctly). */
export function toSqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** Text for bigints, which not every client can serialise; the engine casts it to the column type. */
export function bigintAsText(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "bigint") return value.toString();
  return value;
}
