// JSON has no Date and no bigint, so a JSON body's `z.date()` and `z.bigint()` members arrive as what the
// document says they are (a date-time string, an integer): this turns them into what the schema parses.
// The plan is made once per body schema; a schema without such members has none and costs nothing.
import type { z } from "zod";
import { seam } from "../../schema";
import { bigintOf } from "./coerce";

/** Turns a parsed JSON body's date and bigint members into a Date and a bigint, in place. */
export type JsonValues = (value: unknown) => unknown;

/**
 * What a JSON string or number at one place of a body is read as: a Date or a bigint, as sent ("keep"),
 * or null where no schema there takes one (so another option of a union decides).
 */
type Reading = "date" | "bigint" | "keep" | null;

/**
 * How one place of a body is read, whatever shape its value has: as a string, a number, an object's
 * members or an array's items. A union's options are merged into one step when the plan is made (a
 * place converts only where every option that takes its value agrees), so a request visits each of its
 * values once. Schemas may hold themselves (`z.lazy`): steps form a graph, one per schema.
 */
interface Step {
  strings: Reading;
  numbers: "bigint" | "keep" | null;
  members: Map<string, Step>;
  /** An object's other members (a record's, a catchall's). */
  rest: Step | null;
  /** A tuple's first items, then `items` for the others (an array's every item). */
  prefix: Step[];
  items: Step | null;
  /** Whether a date or a bigint is read here or below; the walk skips the rest. */
  needed: boolean;
}

// RFC 3339's date-time, what `format: date-time` names: "2026-12-04T19:00:00Z", "...T19:00:00.123+01:00".
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DIGITS = /^-?\d+$/;
// A schema nested deeper (a lazy that builds a new schema on every call never ends) converts nothing below.
const MAX_DEPTH = 64;
// Merging a union's options is a product of their graphs: past this many steps, the union converts nothing.
const MAX_STEPS = 10_000;

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
  const planner = new Planner();
  const root = planner.stepOf(schema, 0);
  planner.markNeeded();
  return root.needed ? (value) => convert(root, value) : null;
}

class Planner {
  readonly #steps: Step[] = [];
  readonly #bySchema = new Map<unknown, Step>();
  readonly #merged = new Map<Step, Map<Step, Step>>();

  stepOf(schema: z.ZodType, depth: number): Step {
    if (depth > MAX_DEPTH || this.#steps.length > MAX_STEPS) return OPAQUE;
    // One step per schema as its wrappers and lazies unwrap to, so a schema that holds itself ends.
    const key = seam.unwrap(schema, "input");
    const known = this.#bySchema.get(key);
    if (known) return known;
    const parts = seam.jsonParts(schema);
    if (parts?.kind === "union" || parts?.kind === "all") {
      const options = parts.kind === "union" ? parts.options : parts.parts;
      // Made before its options, so an option that holds the union finds it.
      const step = this.#step(null, null);
      this.#bySchema.set(key, step);
      const merged = options.map((option) => this.stepOf(option, depth + 1)).reduce((a, b) => this.#merge(a, b));
      Object.assign(step, merged, { needed: false });
      return step;
    }
    const step = parts === null ? this.#leaf(schema) : this.#step(null, null);
    this.#bySchema.set(key, step);
    if (parts?.kind === "object") {
      for (const [name, member] of Object.entries(parts.members))
        step.members.set(name, this.stepOf(member, depth + 1));
      step.rest = parts.rest && this.stepOf(parts.rest, depth + 1);
    } else if (parts?.kind === "array") {
      step.prefix = parts.prefix.map((item) => this.stepOf(item, depth + 1));
      step.items = parts.rest && this.stepOf(parts.rest, depth + 1);
    }
    return step;
  }

  /** Marks every step with a date or bigint at or below it, until nothing changes (the graph may loop). */
  markNeeded(): void {
    for (const step of this.#steps) step.needed = isRead(step.strings) || step.numbers === "bigint";
    for (let changed = true; changed; ) {
      changed = false;
      for (const step of this.#steps) {
        if (step.needed) continue;
        const below = [...step.members.values(), ...step.prefix, step.rest, step.items];
        if (below.some((child) => child?.needed)) step.needed = changed = true;
      }
    }
  }

  #leaf(schema: z.ZodType): Step {
    const { scalar, array } = seam.fieldKind(schema);
    if (array) return this.#step("keep", "keep");
    switch (scalar) {
      case "date":
        return this.#step("date", null);
      case "bigint":
        return this.#step("bigint", "bigint");
      case "number":
        return this.#step(null, "keep");
      case "boolean":
        return this.#step(null, null);
      default:
        // A string takes no number (so a union's bigint option reads one); what the seam cannot see into keeps both.
        return seam.columnKind(schema) === "string" ? this.#step("keep", null) : this.#step("keep", "keep");
    }
  }

  #step(strings: Reading, numbers: Step["numbers"]): Step {
    const step: Step = { strings, numbers, members: new Map(), rest: null, prefix: [], items: null, needed: false };
    this.#steps.push(step);
    return step;
  }

  /** Two options as one step: each place reads what both agree on, or what the one that takes it reads. */
  #merge(a: Step, b: Step): Step {
    if (a === b) return a;
    const known = this.#merged.get(a)?.get(b);
    if (known) return known;
    if (this.#steps.length > MAX_STEPS) return OPAQUE;
    const step = this.#step(agreed(a.strings, b.strings), agreed(a.numbers, b.numbers));
    if (!this.#merged.has(a)) this.#merged.set(a, new Map());
    this.#merged.get(a)!.set(b, step);
    for (const name of new Set([...a.members.keys(), ...b.members.keys()])) {
      // An option reads a member it does not name by its rest, if it has one.
      step.members.set(name, this.#either(a.members.get(name) ?? a.rest, b.members.get(name) ?? b.rest)!);
    }
    step.rest = this.#either(a.rest, b.rest);
    for (let i = 0; i < Math.max(a.prefix.length, b.prefix.length); i++) {
      step.prefix.push(this.#either(a.prefix[i] ?? a.items, b.prefix[i] ?? b.items) ?? OPAQUE);
    }
    step.items = this.#either(a.items, b.items);
    return step;
  }

  #either(a: Step | null, b: Step | null): Step | null {
    return a && b ? this.#merge(a, b) : (a ?? b);
  }
}

/** One step for what takes everything as sent: nothing below it is converted. */
const OPAQUE: Step = {
  strings: "keep",
  numbers: "keep",
  members: new Map(),
  rest: null,
  prefix: [],
  items: null,
  needed: false,
};

function agreed<R extends Reading>(a: R, b: R): R {
  return (a === null ? b : b === null || a === b ? a : "keep") as R;
}

function isRead(reading: Reading): boolean {
  return reading === "date" || reading === "bigint";
}

function convert(step: Step, value: unknown): unknown {
  if (!step.needed) return value;
  switch (typeof value) {
    case "string":
      if (step.strings === "date") return dateTimeOf(value) ?? value;
      // Digits alone: the sign and spaces of a query value's reading are no JSON integer's.
      if (step.strings === "bigint" && DIGITS.test(value)) return bigintOf(value) ?? value;
      return value;
    case "number":
      return step.numbers === "bigint" && Number.isSafeInteger(value) ? BigInt(value) : value;
    case "object":
      if (value === null) return value;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = step.prefix[i] ?? step.items;
          if (item?.needed) value[i] = convert(item, value[i]);
        }
        return value;
      }
      return convertMembers(step, value as Record<string, unknown>);
    default:
      return value;
  }
}

function convertMembers(step: Step, value: Record<string, unknown>): Record<string, unknown> {
  // Only the body's own members: a name the schema declares is never looked up on a prototype.
  for (const [name, member] of step.members) {
    if (member.needed && Object.hasOwn(value, name)) value[name] = convert(member, value[name]);
  }
  if (step.rest?.needed) {
    for (const name of Object.keys(value)) {
      if (!step.members.has(name)) value[name] = convert(step.rest, value[name]);
    }
  }
  return value;
}

/**
 * An RFC 3339 date-time as a Date, or undefined for any other text: a day or time that does not exist,
 * a leap second (a Date holds none) and a moment past the year 9999 in UTC included.
 */
function dateTimeOf(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const [offsetHour, offsetMinute] = [Number(match[7] ?? 0), Number(match[8] ?? 0)];
  // Day 0 of the next month is this month's last (setUTCFullYear, since Date.UTC reads years below 100 as 19xx).
  const days = new Date(new Date(0).setUTCFullYear(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > days) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  const date = new Date(text);
  const utcYear = date.getUTCFullYear();
  return utcYear >= 0 && utcYear <= 9999 ? date : undefined;
}
