// JSON has no Date and no bigint, so a JSON body's `z.date()` and `z.bigint()` members arrive as what the
// document says they are (a date-time string, an integer): this turns them into what the schema parses.
// The plan is made once per body schema; a schema without such members has none and costs nothing.
import type { z } from "zod";
import { seam } from "../../schema";
import { bigintOf } from "./coerce";

/** Turns a parsed JSON body's date and bigint members into a Date and a bigint, in place. */
export type JsonValues = (value: unknown) => unknown;

type Plan =
  | { kind: "date" | "bigint" }
  | { kind: "array"; item: Plan }
  | { kind: "object"; members: ReadonlyArray<readonly [string, Plan]> };

// RFC 3339's date-time, what `format: date-time` names: "2026-12-04T19:00:00Z", "...T19:00:00.123+01:00".
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const DIGITS = /^-?\d+$/;
// Deep enough for any model; a recursive (lazy) schema stops here instead of looping.
const MAX_DEPTH = 32;

/**
 * The conversion a JSON body of `schema` needs, or null when no member is a Date or a bigint. A
 * date-time string becomes a Date and a whole number (a safe JSON integer, or its decimal text) a
 * bigint; anything else is left for the schema to refuse, naming the field.
 *
 * @example
 * jsonValues(z.object({ at: z.date() }))!({ at: "2026-12-04T19:00:00Z" }) // { at: Date }
 * jsonValues(z.object({ title: z.string() })) // null
 */
export function jsonValues(schema: z.ZodType): JsonValues | null {
  const plan = planOf(schema, 0);
  return plan ? (value) => convert(plan, value) : null;
}

function planOf(schema: z.ZodType, depth: number): Plan | null {
  if (depth > MAX_DEPTH) return null;
  const shape = seam.objectShape(schema);
  if (shape) {
    const members: [string, Plan][] = [];
    for (const [key, member] of Object.entries(shape)) {
      const plan = planOf(member, depth + 1);
      if (plan) members.push([key, plan]);
    }
    return members.length > 0 ? { kind: "object", members } : null;
  }
  const element = seam.arrayElement(schema);
  if (element) {
    const item = planOf(element, depth + 1);
    return item ? { kind: "array", item } : null;
  }
  const { scalar, array } = seam.fieldKind(schema);
  return !array && (scalar === "date" || scalar === "bigint") ? { kind: scalar } : null;
}

function convert(plan: Plan, value: unknown): unknown {
  switch (plan.kind) {
    case "date":
      return typeof value === "string" && DATE_TIME.test(value) ? new Date(value) : value;
    case "bigint":
      if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
      // Digits alone: the sign and spaces of a query value's reading are no JSON integer's.
      return typeof value === "string" && DIGITS.test(value) ? (bigintOf(value) ?? value) : value;
    case "array":
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = convert(plan.item, value[i]);
      return value;
    case "object":
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      for (const [key, member] of plan.members) {
        // Only the body's own members: a key the schema names is never looked up on a prototype.
        if (Object.hasOwn(value, key))
          (value as Record<string, unknown>)[key] = convert(member, (value as Record<string, unknown>)[key]);
      }
      return value;
  }
}
