/**
 * `value` as JSON text; a bigint is written as a string rather than failing the answer. Undefined for
 * what JSON cannot hold at the top (`undefined`, a function), as `JSON.stringify` gives.
 */
export function toJsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return JSON.stringify(value, (_key, member) => (typeof member === "bigint" ? member.toString() : member));
  }
}
