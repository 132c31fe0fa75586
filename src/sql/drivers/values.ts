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

/**
 * Integers that fit a JavaScript number as numbers, in place: an engine read with bigints on (so one
 * past 2^53 stays exact) still answers a count or a small id as a number.
 *
 * @example
 * narrowIntegers([{ n: 7n, big: 2n ** 60n }]) // [{ n: 7, big: 1152921504606846976n }]
 */
export function narrowIntegers<Row>(rows: Row[]): Row[] {
  for (const row of rows as Record<string, unknown>[]) {
    for (const key in row) {
      const value = row[key];
      if (typeof value === "bigint") row[key] = narrowInteger(value);
    }
  }
  return rows;
}

/** A bigint as a number when the number is exact, else the bigint. */
export function narrowInteger(value: number | bigint): number | bigint {
  return typeof value === "bigint" && value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

// Literals, not BigInt(Number.MAX_SAFE_INTEGER): a call at the top would keep this module in every bundle.
const MAX_SAFE = 9007199254740991n;
const MIN_SAFE = -9007199254740991n;
