// JSON has no Date and no bigint, so a JSON body's `z.date()` and `z.bigint()` members arrive as what the
// document says they are (a date-time string, an integer): this turns them into what the schema parses.
// The plan is made once per body schema; a schema without such members has none and costs nothing.
import type { z } from "zod";
import { seam } from "../../schema";
import { bigintOf } from "./coerce";

/** Turns a parsed JSON body's date and bigint members into a Date and a bigint, in place. */
export type JsonValues = (value: unknown) => unknown;

/**
 * One schema's step of the walk. Schemas may hold themselves (`z.lazy`), so plans form a graph, one
 * node per schema; `needed` says whether any date or bigint lies below, so the walk skips the rest.
 */
interface Plan {
  kind: "leaf" | "object" | "array" | "union" | "all";
  /** What a string here is read as: a leaf's kind, or the one every option of a union agrees on. */
  scalar: "date" | "bigint" | null;
  /** Whether a JSON integer here is a bigint: a bigint leaf's, or a union's with a bigint option (no string option takes a number). */
  integerIsBigint: boolean;
  members: ReadonlyMap<string, Plan>;
  /** An object's other keys (a record, a catchall), an array's items past `prefix` (a tuple's). */
  rest: Plan | null;
  prefix: readonly Plan[];
  /** A union's options, an intersection's parts. */
  options: readonly Plan[];
  needed: boolean;
}

// RFC 3339's date-time, what `format: date-time` names: "2026-12-04T19:00:00Z", "...T19:00:00.123+01:00".
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DIGITS = /^-?\d+$/;

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
  const plans = new Map<unknown, Plan>();
  const root = planOf(schema, plans);
  markNeeded([...plans.values()]);
  return root.needed ? (value) => convert(root, value) : null;
}

function planOf(schema: z.ZodType, plans: Map<unknown, Plan>): Plan {
  // One plan per schema as its wrappers and lazies unwrap to, so a schema that holds itself ends.
  const key = seam.unwrap(schema, "input");
  const known = plans.get(key);
  if (known) return known;
  const plan = emptyPlan();
  plans.set(key, plan);
  const { scalar, array } = seam.fieldKind(schema);
  if (!array && (scalar === "date" || scalar === "bigint")) plan.scalar = scalar;
  plan.integerIsBigint = plan.scalar === "bigint";
  const parts = seam.jsonParts(schema);
  if (parts === null) return plan;
  plan.kind = parts.kind;
  if (parts.kind === "object" || parts.kind === "array") {
    plan.rest = parts.rest && planOf(parts.rest, plans);
    if (parts.kind === "object") {
      plan.members = new Map(Object.entries(parts.members).map(([name, member]) => [name, planOf(member, plans)]));
    } else {
      plan.prefix = parts.prefix.map((item) => planOf(item, plans));
    }
  } else {
    plan.options = (parts.kind === "union" ? parts.options : parts.parts).map((option) => planOf(option, plans));
    plan.integerIsBigint ||= plan.options.some((option) => option.kind === "leaf" && option.scalar === "bigint");
  }
  return plan;
}

/** Marks every plan with a date or bigint below it, until nothing changes (a graph may loop). */
function markNeeded(plans: Plan[]): void {
  for (const plan of plans) plan.needed = plan.scalar !== null || plan.integerIsBigint;
  for (let changed = true; changed; ) {
    changed = false;
    for (const plan of plans) {
      if (plan.needed) continue;
      const below = [...plan.members.values(), ...plan.prefix, ...plan.options, ...(plan.rest ? [plan.rest] : [])];
      if (below.some((child) => child.needed)) plan.needed = changed = true;
    }
  }
}

function convert(plan: Plan, value: unknown): unknown {
  if (!plan.needed) return value;
  if (typeof value !== "object" || value === null) return scalarOf(plan, value);
  switch (plan.kind) {
    case "object":
      return Array.isArray(value) ? value : convertMembers(plan, value as Record<string, unknown>);
    case "array":
      if (!Array.isArray(value)) return value;
      for (let i = 0; i < value.length; i++) value[i] = convert(plan.prefix[i] ?? plan.rest ?? NONE, value[i]);
      return value;
    case "union":
    case "all":
      // Each option converts what it declares of the value, in place (an object's plan leaves an array be).
      for (const option of plan.options) if (option.kind !== "leaf") convert(option, value);
      return value;
    default:
      return value;
  }
}

function convertMembers(plan: Plan, value: Record<string, unknown>): Record<string, unknown> {
  // Only the body's own members: a name the schema declares is never looked up on a prototype.
  for (const [name, member] of plan.members) {
    if (member.needed && Object.hasOwn(value, name)) value[name] = convert(member, value[name]);
  }
  if (plan.rest?.needed) {
    for (const name of Object.keys(value)) {
      if (!plan.members.has(name)) value[name] = convert(plan.rest, value[name]);
    }
  }
  return value;
}

function emptyPlan(): Plan {
  return {
    kind: "leaf",
    scalar: null,
    integerIsBigint: false,
    members: new Map(),
    rest: null,
    prefix: [],
    options: [],
    needed: false,
  };
}

const NONE: Plan = emptyPlan();

function scalarOf(plan: Plan, value: unknown): unknown {
  if (typeof value === "number") return plan.integerIsBigint && Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof value !== "string") return value;
  // Digits alone: the sign and spaces of a query value's reading are no JSON integer's.
  if (plan.scalar === "bigint") return DIGITS.test(value) ? (bigintOf(value) ?? value) : value;
  return plan.scalar === "date" ? (dateTimeOf(value) ?? value) : value;
}

/** An RFC 3339 date-time as a Date, or undefined for any other text, a day or time that does not exist included. */
function dateTimeOf(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const [offsetHour, offsetMinute] = [Number(match[8] ?? 0), Number(match[9] ?? 0)];
  // A JavaScript Date holds no leap second, and rolls a 30 February over into March: both are refused.
  // Day 0 of the next month is this month's last (setUTCFullYear, since Date.UTC reads years below 100 as 19xx).
  const days = new Date(new Date(0).setUTCFullYear(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > days) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  return new Date(text);
}
