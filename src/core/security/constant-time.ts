// HMAC-SHA-256 under a key made on first use: what is compared is two 32-byte digests an attacker cannot
// compute, so the time taken says nothing of the secret's bytes, nor of its length beyond what hashing it costs.
let comparisonKey: Promise<CryptoKey> | undefined;

const encoder = new TextEncoder();

/**
 * Whether a secret a client sent equals the one you hold, in time that does not depend on where they
 * differ: use it instead of `===`, which stops at the first differing character and so tells a patient
 * client how much of its guess was right. Strings are compared as UTF-8. An empty or missing value equals
 * nothing, so an unset secret (`process.env.API_KEY` undefined, or "") never lets a client in. Works
 * wherever Web Crypto does: Node 20+, Workers, Bun, Deno.
 *
 * @example
 * const admin = basicAuth({
 *   verify: async ({ username, password }) =>
 *     username === "admin" && (await constantTimeEqual(password, process.env.ADMIN_PASSWORD)) ? { username } : null,
 * });
 */
export async function constantTimeEqual(
  sent: string | Uint8Array | null | undefined,
  expected: string | Uint8Array | null | undefined,
): Promise<boolean> {
  comparisonKey ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>;
  const key = await comparisonKey;
  const [x, y] = await Promise.all([mac(key, sent), mac(key, expected)]);
  let difference = 0;
  for (let i = 0; i < x.length; i++) difference |= x[i]! ^ y[i]!;
  // Both digests are made and compared first, so an empty value costs what any other does.
  return difference === 0 && !isEmpty(sent) && !isEmpty(expected);
}

function isEmpty(value: string | Uint8Array | null | undefined): boolean {
  return value === null || value === undefined || value.length === 0;
}

async function mac(key: CryptoKey, value: string | Uint8Array | null | undefined): Promise<Uint8Array> {
  const bytes = typeof value === "string" ? encoder.encode(value) : (value ?? new Uint8Array(0));
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes as Uint8Array<ArrayBuffer>));
}
