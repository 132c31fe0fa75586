/** What a key stored as its SHA-256 starts with; 64 hex digits follow. */
const HASHED_KEY_PREFIX = "sha256:";
const HASHED_KEY = /^sha256:[0-9a-f]{64}$/;

/** The SHA-256 of `bytes` in lowercase hex. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * `key` as specroute's own tables store a key they cannot keep as it is (too long for MySQL's key column, or
 * one MySQL/MariaDB's PAD SPACE collation would read as another): `sha256:` and its SHA-256 in hex.
 *
 * @example
 * await hashedKey("room ") // "sha256:" and 64 hex digits
 */
export async function hashedKey(key: string): Promise<string> {
  return `${HASHED_KEY_PREFIX}${await sha256Hex(new TextEncoder().encode(key))}`;
}

/** Whether `key` is one {@link hashedKey} made: a store handed a bucket a policy already bounded keeps it. */
export function isHashedKey(key: string): boolean {
  return HASHED_KEY.test(key);
}

/** Longest key specroute's tables keep as it is: MySQL's key column holds 255 characters. */
const MAX_KEPT_KEY = 200;

/**
 * `key` as specroute's own tables (rate limits, the change log) and PostgreSQL's NOTIFY can hold it: as it
 * is, or as {@link hashedKey} when it is over 200 characters, ends in a space (MySQL/MariaDB's PAD SPACE
 * would read `a ` as `a`), holds NUL (PostgreSQL text cannot), or starts with `sha256:` (so no key is
 * spelled as another's hash). Synchronous for a key kept as it is.
 *
 * @example
 * storableKey("tasks") // "tasks"
 * await storableKey("room ") // "sha256:" and 64 hex digits
 */
export function storableKey(key: string): Promise<string> | string {
  const kept =
    key.length <= MAX_KEPT_KEY && !key.endsWith(" ") && !key.includes("\0") && !key.startsWith(HASHED_KEY_PREFIX);
  return kept ? key : hashedKey(key);
}
