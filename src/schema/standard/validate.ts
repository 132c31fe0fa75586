import type { StandardJsonSchema, StandardResult } from "./spec";

/** One problem found by a Standard Schema, its path flattened to keys. */
export interface StandardProblem {
  readonly message: string;
  readonly path: Array<string | number>;
}

/** What validating with a Standard Schema gives: the output, or the problems as the library words them. */
export type StandardOutcome = { ok: true; value: unknown } | { ok: false; problems: StandardProblem[] };

/**
 * Validates `value` with a Standard Schema: synchronously when the library answers at once, else a promise.
 *
 * @example
 * validateStandard(toStandardJsonSchema(v.object({ id: v.number() })), { id: "x" })
 * // { ok: false, problems: [{ message: "Invalid type: Expected number but received \"x\"", path: ["id"] }] }
 */
export function validateStandard(
  schema: StandardJsonSchema,
  value: unknown,
): StandardOutcome | Promise<StandardOutcome> {
  const result = schema["~standard"].validate(value);
  return result instanceof Promise ? result.then(outcomeOf) : outcomeOf(result);
}

/** The output of a Standard Schema, or a thrown `StandardValidationError` naming its problems. */
export async function parseStandard(schema: StandardJsonSchema, value: unknown): Promise<unknown> {
  const outcome = await validateStandard(schema, value);
  if (!outcome.ok) throw new StandardValidationError(schema["~standard"].vendor, outcome.problems);
  return outcome.value;
}

/** A value a Standard Schema refused (a response that does not match its schema). */
export class StandardValidationError extends Error {
  constructor(
    vendor: string,
    readonly problems: StandardProblem[],
  ) {
    super(
      `${vendor}: ${problems.map((p) => (p.path.length ? `${p.path.join(".")}: ${p.message}` : p.message)).join("; ")}`,
    );
    this.name = "StandardValidationError";
  }
}

function outcomeOf(result: StandardResult<unknown>): StandardOutcome {
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    // Array.from, not path.map: ArkType's path is an Array subclass whose map builds one from a length.
    problems: result.issues.map((issue) => ({ message: issue.message, path: Array.from(issue.path ?? [], keyOf) })),
  };
}

function keyOf(segment: PropertyKey | { readonly key: PropertyKey }): string | number {
  const key = typeof segment === "object" && segment !== null ? segment.key : segment;
  return typeof key === "number" ? key : String(key);
}
