// Media types as routes declare them and requests name them: the essence both are compared by.

/** What a browser's fetch labels a string body. */
export const TEXT_PLAIN = "text/plain";

/** A media type's lower-case `type/subtype`, parameters dropped. */
export function essenceOf(contentType: string): string {
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/** Whether an essence is JSON: `application/json` or any `application/*+json`. */
export function isJsonEssence(essence: string): boolean {
  return essence === "application/json" || (essence.startsWith("application/") && essence.endsWith("+json"));
}

/** `*\/*` and `image/*` declared types match any type, or any subtype. */
export function wildcardMatches(declared: string, given: string): boolean {
  if (declared === "*/*") return true;
  return declared.endsWith("/*") && given.startsWith(declared.slice(0, -1));
}
