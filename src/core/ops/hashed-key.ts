/** What a key stored as its SHA-256 starts with; 64 hex digits follow. */
export const HASHED_KEY_PREFIX = "sha256:";

/**
 * `key` as specroute's own tables store a key they cannot keep as it is (too long for MySQL's key column, or
 * one MySQL/MariaDB's PAD SPACE collation would read as another): `sha256:` and its SHA-256 in hex.
 *
 * @example
 * await hashedKey("room ") // "sha256:" and 64 hex digits
 */
export async function hashedKey(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  return `${HASHED_KEY_PREFIX}${[...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
