import { InvalidIdentifierError } from "./errors";

/** A plain, unquoted-safe SQL identifier: letters, digits, underscore, at most 63 characters (PostgreSQL's limit). */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What is wrong with an identifier: not a non-empty string, a character outside the plain set, or too long. */
export type IdentifierProblem = "empty" | "characters" | "length";

/**
 * Why `name` is not a plain identifier of at most `maxLength` characters, or null when it is one.
 *
 * @example
 * identifierProblem("user_id") // null
 * identifierProblem("id; --")  // "characters"
 */
export function identifierProblem(name: unknown, maxLength = 63): IdentifierProblem | null {
  if (typeof name !== "string" || name === "") return "empty";
  if (!PLAIN_IDENTIFIER.test(name)) return "characters";
  return name.length > maxLength ? "length" : null;
}

/**
 * Checks one identifier against {@link IDENTIFIER_PATTERN}; `what` names it in the error.
 *
 * @example
 * assertIdentifier("user_id", "column") // ok
 * assertIdentifier("id; --", "column")  // throws InvalidIdentifierError
 */
export function assertIdentifier(name: unknown, what: string): asserts name is string {
  if (identifierProblem(name) !== null) {
    throw new InvalidIdentifierError(
      `Invalid ${what} name ${JSON.stringify(String(name))}: expected ${IDENTIFIER_PATTERN}`,
    );
  }
}

/**
 * Splits `table` or `schema.table` into checked parts.
 *
 * @example
 * parseTableName("public.users") // ["public", "users"]
 */
export function parseTableName(name: unknown): string[] {
  if (typeof name !== "string") throw new InvalidIdentifierError("Table name must be a string");
  const parts = name.split(".");
  if (parts.length > 2)
    throw new InvalidIdentifierError(`Invalid table name ${JSON.stringify(name)}: at most schema.table`);
  for (const part of parts) assertIdentifier(part, "table");
  return parts;
}
