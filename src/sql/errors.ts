/**
 * Errors the SQL layer throws. Driver errors never escape as they are: they are wrapped so that
 * SQL text and engine messages stay in `cause` (for logs) and out of any response.
 */
// The classes are alike on purpose: each is a named Error with a stable `code`, for detection by shape.

/**
 * A database call failed; the message is always the same safe text, the driver's error is `cause`.
 *
 * @example
 * try { await table.insert(driver, data) } catch (err) {
 *   if (err instanceof DatabaseError) console.error(err.cause) // log it, answer 500
 * }
 */
export class DatabaseError extends Error {
  /** Stable code for detection by shape when two copies of the library are loaded. */
  readonly code: string = "DATABASE_ERROR";

  constructor(cause: unknown, message = "Database operation failed") {
    super(message, { cause });
    this.name = "DatabaseError";
  }
}

/**
 * A write collided with a UNIQUE or PRIMARY KEY constraint; `columns` names the model columns
 * (empty when the engine did not say and the index could not be looked up).
 *
 * @example
 * catch (err) { if (err instanceof UniqueViolationError) return conflict(err.columns) }
 */
export class UniqueViolationError extends DatabaseError {
  override readonly code: string = "UNIQUE_VIOLATION";

  /** `constraint`: what the engine's message names (SQLite: `users.email`), when it names something. */
  constructor(
    readonly columns: string[],
    cause: unknown,
    readonly constraint?: string,
  ) {
    super(cause, "Unique constraint violated");
    this.name = "UniqueViolationError";
  }
}

/**
 * A table or column name is not a plain SQL identifier, or names no column of the model.
 * Thrown while a table is being set up (at route registration) or for a programming error.
 *
 * @example
 * new SqlTable({ tableName: "users; drop", schema, primaryKeys: ["id"] }) // throws InvalidIdentifierError
 */
export class InvalidIdentifierError extends Error {
  readonly code: string = "INVALID_IDENTIFIER";

  constructor(message: string) {
    super(message);
    this.name = "InvalidIdentifierError";
  }
}

/**
 * An update or delete was asked for without an equality condition on every primary key column,
 * which would touch more than one row.
 *
 * @example
 * await table.delete(driver, []) // throws IncompleteKeyError { missing: ["id"] }
 */
export class IncompleteKeyError extends Error {
  readonly code: string = "INCOMPLETE_KEY";

  constructor(readonly missing: string[]) {
    super(`Missing primary key condition for: ${missing.join(", ")}`);
    this.name = "IncompleteKeyError";
  }
}

/**
 * A value no engine can store as given (text with a NUL character); the client's input, not a fault.
 *
 * @example
 * await table.insert(driver, { name: "a\u0000b" }) // throws InvalidValueError
 */
export class InvalidValueError extends Error {
  readonly code: string = "INVALID_VALUE";

  constructor(message: string) {
    super(message);
    this.name = "InvalidValueError";
  }
}
