// JSON has no Date and no bigint, so a JSON body's `z.date()` and `z.bigint()` members arrive as what the
// document says they are (a date-time string, an integer): this turns them into what the schema parses,
// before it parses once. The plan is made once per body schema; one without such members has none.
import type { z } from "zod";
import { seam } from "../../schema";
import { bigintOf } from "./coerce";

/** Turns a parsed JSON body's date and bigint members into Dates and bigints, in place. */
export type JsonValues = (value: unknown) => unknown;

/** What a JSON string (or number) at a leaf is read as: a Date or a bigint, as sent, or null where the leaf takes none. */
type Reading = "date" | "bigint" | "keep" | null;

/**
 * One schema's step of the walk; schemas may hold themselves (`z.lazy`), so steps form a graph, one per
 * schema. A union's options are chosen per value when a request is read (see `convertEither`).
 */
interface Step {
  kind: "leaf" | "object" | "array" | "union" | "all";
  strings: Reading;
  numbers: "bigint" | "keep" | null;
  members: Map<string, Step>;
  /** An object's other members (a record's, a catchall's). */
  rest: Step | null;
  /** A tuple's first items, then `items` for the others (an array's every item). */
  prefix: Step[];
  items: Step | null;
  /** A union's options, an intersection's parts. */
  options: Step[];
  discriminator?: { key: string; values: readonly (readonly unknown[])[] };
  /** A literal's or an enum's values: the only strings and numbers the leaf takes. */
  values?: readonly unknown[];
  /** A template literal's (or a string's) pattern: the only strings the leaf takes. */
  pattern?: RegExp;
  /** Whether a date or a bigint is read here or below: the walk skips the rest. */
  needed: boolean;
}

// RFC 3339's date-time, what `format: date-time` names: "2026-12-04T19:00:00Z", "...T19:00:00.123+01:00".
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DIGITS = /^-?\d+$/;
// How deep and how many schemas the plan looks through: a lazy that builds a new schema on every call has
// no end, and each level it is made to build is one zod then walks too. Below that, nothing converts.
const MAX_DEPTH = 64;
const MAX_STEPS = 10_000;

/**
 * The conversion a JSON body of `schema` needs, or null when no member is a Date or a bigint. A
 * date-time string becomes a Date and a whole number (a safe JSON integer, or its decimal text) a
 * bigint; anything else is left for the schema to refuse, naming the field. In a union, a place converts
 * where the options the value may be for agree on it (a discriminated union's: the one its
 * discriminator names), so a value a string option takes stays a string.
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

  stepOf(schema: z.ZodType, depth: number): Step {
    if (depth > MAX_DEPTH || this.#steps.length >= MAX_STEPS) return OPAQUE;
    // One step per schema as its wrappers and lazies unwrap to, so a schema that holds itself ends.
    const key = seam.unwrap(schema, "input");
    const known = this.#bySchema.get(key);
    if (known) return known;
    const parts = seam.jsonParts(schema);
    const step = parts === null ? leafOf(schema) : blank(parts.kind);
    this.#steps.push(step);
    this.#bySchema.set(key, step);
    if (parts?.kind === "object") {
      for (const [name, member] of Object.entries(parts.members))
        step.members.set(name, this.stepOf(member, depth + 1));
      step.rest = parts.rest && this.stepOf(parts.rest, depth + 1);
    } else if (parts?.kind === "array") {
      step.prefix = parts.prefix.map((item) => this.stepOf(item, depth + 1));
      step.items = parts.rest && this.stepOf(parts.rest, depth + 1);
    } else if (parts) {
      const options = parts.kind === "union" ? parts.options : parts.parts;
      step.options = options.map((option) => this.stepOf(option, depth + 1));
      if (parts.kind === "union" && parts.discriminator) step.discriminator = parts.discriminator;
    }
    return step;
  }

  /** Marks every step with a date or a bigint at or below it, from those steps up (the graph may loop). */
  markNeeded(): void {
    const above = new Map<Step, Step[]>();
    for (const step of this.#steps) {
      for (const child of [...step.members.values(), ...step.prefix, ...step.options, step.rest, step.items]) {
        if (!child) continue;
        const parents = above.get(child);
        if (parents) parents.push(step);
        else above.set(child, [step]);
      }
    }
    const pending = this.#steps.filter((step) => isRead(step.strings) || step.numbers === "bigint");
    for (const step of pending) step.needed = true;
    while (pending.length > 0) {
      for (const parent of above.get(pending.pop()!) ?? []) {
        if (parent.needed) continue;
        parent.needed = true;
        pending.push(parent);
      }
    }
  }
}

function blank(kind: Step["kind"]): Step {
  return {
    kind,
    strings: null,
    numbers: null,
    members: new Map(),
    rest: null,
    prefix: [],
    items: null,
    options: [],
    needed: false,
  };
}

/** What a schema with no parts takes: its strings and numbers read as a date, a bigint, or as sent. */
function leafOf(schema: z.ZodType): Step {
  const step = blank("leaf");
  const { scalar, array } = seam.fieldKind(schema);
  if (array) return Object.assign(step, { strings: "keep", numbers: "keep" });
  const json = inputJsonOf(schema);
  const type = json && jsonType(json);
  // Only where the input side has no type of its own (a preprocess, a transform) does its output decide.
  const stored = type === undefined ? seam.columnKind(schema) : undefined;
  if (scalar === "date" || stored === "date") return Object.assign(step, { strings: "date" });
  if (scalar === "bigint" || stored === "bigint") return Object.assign(step, { strings: "bigint", numbers: "bigint" });
  // null and undefined take neither a string nor a number.
  if (type === "null") return step;
  const values = json && valuesOf(json);
  if (values) step.values = values;
  const pattern = json && typeof json.pattern === "string" ? patternOf(json.pattern) : undefined;
  if (pattern) step.pattern = pattern;
  if (scalar === "number") return Object.assign(step, { numbers: "keep" });
  if (scalar === "boolean") return step;
  // A string takes no number (so a union's bigint option reads one); what the seam cannot see into keeps both.
  return Object.assign(step, { strings: "keep", numbers: type === "string" ? null : "keep" });
}

/** The schema's input side as JSON Schema, or undefined for one that has none (a custom check). */
function inputJsonOf(schema: z.ZodType): Record<string, unknown> | undefined {
  try {
    return seam.toJsonSchema(schema, "3.1", "input").schema as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The one type a JSON Schema names, a nullable one's other type included ("null" when it names only that). */
function jsonType(json: Record<string, unknown>): string | undefined {
  if (typeof json.type === "string") return json.type;
  const types = Array.isArray(json.type) ? json.type : alternatives(json).map((member) => member.type);
  const named = types.filter((type): type is string => typeof type === "string");
  const others = named.filter((type) => type !== "null");
  if (named.length === 0) return undefined;
  return others.length === 0 ? "null" : others.length === 1 ? others[0] : undefined;
}

function alternatives(json: Record<string, unknown>): Record<string, unknown>[] {
  const list = json.anyOf ?? json.oneOf;
  return Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
}

/** The values a literal or an enum takes (`const`, `enum`, a nullable one's among `anyOf`), or undefined for any other. */
function valuesOf(json: Record<string, unknown>): readonly unknown[] | undefined {
  const members = alternatives(json).filter((member) => member.type !== "null");
  const own = (member: Record<string, unknown>): unknown[] | undefined =>
    "const" in member ? [member.const] : Array.isArray(member.enum) ? member.enum : undefined;
  if (members.length === 0) return own(json);
  const each = members.map(own);
  return each.every((values) => values !== undefined) ? each.flat() : undefined;
}

/** A string schema's pattern (a template literal's), or undefined when it does not compile. */
function patternOf(source: string): RegExp | undefined {
  try {
    return new RegExp(source, "u");
  } catch {
    return undefined;
  }
}

/** Past the plan's bounds: takes anything as sent, converts nothing. */
const OPAQUE: Step = Object.assign(blank("leaf"), { strings: "keep", numbers: "keep" });

function isRead(reading: Reading): boolean {
  return reading === "date" || reading === "bigint";
}

function convert(step: Step, value: unknown): unknown {
  if (!step.needed) return value;
  switch (step.kind) {
    case "leaf":
      return scalarOf([step], value);
    case "all":
      // Every part must take the value: each converts what it declares.
      return step.options.reduce((current, part) => convert(part, current), value);
    default:
      return convertEither([step], value);
  }
}

/**
 * `value` read by whichever of `steps` it is for: each place converts where the steps that take a value
 * of its kind there agree, so each value of a request is visited once, whatever its unions.
 */
function convertEither(steps: readonly Step[], value: unknown): unknown {
  const candidates = forValue(steps, value);
  if (candidates.length === 0) return value;
  if (candidates.length === 1 && candidates[0]!.kind !== "union") {
    const [only] = candidates;
    if (only!.kind !== "object" && only!.kind !== "array") return convert(only!, value);
  }
  if (typeof value !== "object" || value === null) return scalarOf(candidates, value);
  if (Array.isArray(value)) {
    const arrays = candidates.filter((step) => step.kind === "array");
    for (let i = 0; i < value.length; i++) {
      const below = present(arrays.map((step) => step.prefix[i] ?? step.items));
      // As for members: an item with no date or bigint below it is not looked into.
      if (below.some((step) => step.needed)) value[i] = convertEither(below, value[i]);
    }
    return value;
  }
  const objects = candidates.filter((step) => step.kind === "object");
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const below = present(objects.map((step) => step.members.get(name) ?? step.rest));
    if (below.some((step) => step.needed)) record[name] = convertEither(below, record[name]);
  }
  return value;
}

/**
 * The steps a value may be read by: unions opened up (a discriminated one to the option its
 * discriminator names), intersections kept whole, steps of another kind than the value's left out.
 */
function forValue(steps: readonly Step[], value: unknown): Step[] {
  const found = new Set<Step>();
  // Each step opened once: options that unwrap to one step (a lazy and its nullable) are one.
  const opened = new Set<Step>();
  const open = (step: Step, depth: number): void => {
    if (opened.has(step)) return;
    opened.add(step);
    if (step.kind !== "union") {
      found.add(step);
      return;
    }
    // A union of unions opens as deep as the plan goes (its depth bounds it).
    if (depth > MAX_DEPTH) return void found.add(OPAQUE);
    const chosen = chosenOption(step, value);
    for (const option of chosen === undefined ? step.options : [chosen]) open(option, depth + 1);
  };
  for (const step of steps) open(step, 0);
  const shape = typeof value !== "object" || value === null ? "leaf" : Array.isArray(value) ? "array" : "object";
  let candidates = [...found];
  // Beside other options, an intersection's parts are candidates too: each declares what it converts.
  if (candidates.length > 1 && candidates.some((step) => step.kind === "all")) {
    const parts = candidates.flatMap((step) => (step.kind === "all" ? step.options : [step]));
    candidates = forValue(parts, value).filter((step) => step.kind !== "all");
  }
  return candidates.filter((step) => step.kind === shape || step.kind === "all" || step === OPAQUE);
}

/** A discriminated union's option for `value`, by its discriminator; undefined for another union. */
function chosenOption(step: Step, value: unknown): Step | undefined {
  const { discriminator } = step;
  if (!discriminator || typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const sent = Object.hasOwn(value, discriminator.key)
    ? (value as Record<string, unknown>)[discriminator.key]
    : undefined;
  const index = discriminator.values.findIndex((values) => values.includes(sent));
  return index === -1 ? OPAQUE : step.options[index];
}

/** The steps that are there (an option without the member and without a rest has none). */
function present(steps: readonly (Step | null | undefined)[]): Step[] {
  return steps.filter((step): step is Step => step != null);
}

/** A string or number as the leaves that take one agree to read it; as sent where they do not. */
function scalarOf(all: readonly Step[], value: unknown): unknown {
  if (all.some((step) => step.kind === "all")) {
    return all.length === 1 ? convert(all[0]!, value) : value;
  }
  // A literal or an enum takes only its own values: for any other, it is no option.
  const steps = all.filter(
    (step) =>
      (step.values === undefined || step.values.includes(value)) &&
      (step.pattern === undefined || typeof value !== "string" || step.pattern.test(value)),
  );
  if (typeof value === "string") {
    const readings = new Set(steps.map((step) => step.strings).filter((reading) => reading !== null));
    if (readings.size !== 1) return value;
    if (readings.has("date")) return dateTimeOf(value) ?? value;
    // Digits alone: the sign and spaces of a query value's reading are no JSON integer's.
    return readings.has("bigint") && DIGITS.test(value) ? (bigintOf(value) ?? value) : value;
  }
  if (typeof value === "number") {
    const readings = steps.map((step) => step.numbers);
    // A number is a bigint where a leaf reads one and none takes it as a number.
    if (readings.includes("keep") || !readings.includes("bigint")) return value;
    return Number.isSafeInteger(value) ? BigInt(value) : value;
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
