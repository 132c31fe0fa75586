// The converter corpus: every type and check the spec lists, and the tasks example's models, converted
// by specroute's converter (the schema seam's toJsonSchema) and by zod's own z.toJSONSchema. Run on the
// lowest zod the package accepts (corpus-lowest.test.ts) and the installed one (corpus.test.ts).
import { expect } from "vitest";
import type { z as zod } from "zod";
import { extendZodWithOpenApi } from "../../src/openapi/extend-zod";
import { seam } from "../../src/schema";

type Z = typeof zod;

/** A corpus entry's name and its schema, built with the zod under test. */
export type Corpus = Record<string, zod.ZodType>;

/** Every type and check the spec's parameter table lists (docs: /work/shared/SPEC.md, "Parameter types"). */
export function specCorpus(z: Z): Corpus {
  return {
    string: z.string(),
    "string min": z.string().min(2),
    "string max": z.string().max(10),
    "string length": z.string().length(5),
    "string regex": z.string().regex(/^a+$/),
    "string startsWith": z.string().startsWith("ab"),
    "string endsWith": z.string().endsWith("yz"),
    "string min max regex": z
      .string()
      .min(1)
      .max(9)
      .regex(/^[a-z]+$/),
    number: z.number(),
    "number int": z.number().int(),
    int: z.int(),
    "number positive": z.number().positive(),
    "number negative": z.number().negative(),
    "number min max": z.number().min(1).max(9),
    "int min max": z.int().min(1).max(5),
    boolean: z.boolean(),
    "boolean default": z.boolean().default(true),
    enum: z.enum(["todo", "doing", "done"]),
    "enum default": z.enum(["todo", "doing", "done"]).default("todo"),
    "enum transformed": z.enum(["low", "high"]).transform((value) => (value === "low" ? 1 : 2)),
    "enum case-insensitive": z.preprocess(
      (value) => (typeof value === "string" ? value.toLowerCase() : value),
      z.enum(["todo", "done"]),
    ),
    array: z.array(z.string()),
    "array min max": z.array(z.int()).min(1).max(3),
    "array nonempty": z.array(z.string()).nonempty(),
    object: z.object({ name: z.string(), inner: z.object({ count: z.int() }) }),
    "object optional member": z.object({ name: z.string(), note: z.string().optional() }),
    "object partial": z.object({ name: z.string(), count: z.int() }).partial(),
    "object strict": z.strictObject({ name: z.string() }),
    optional: z.string().optional(),
    default: z.string().default("x"),
    nullable: z.string().nullable(),
    "nullable default": z.string().nullable().default(null),
    email: z.email(),
    url: z.url(),
    uuid: z.uuid(),
    ipv4: z.ipv4(),
    ipv6: z.ipv6(),
    "iso datetime": z.iso.datetime(),
    "iso date": z.iso.date(),
    "iso time": z.iso.time(),
    "ip of either family": z.union([z.ipv4(), z.ipv6()]),
    refine: z.string().refine((value) => value !== "no"),
    transform: z.string().transform((value) => value.length),
    preprocess: z.preprocess((value) => Number(value), z.number()),
    described: z.string().meta({ description: "A name", example: "Ada" }),
    "date (output of a datetime)": z.date(),
    bigint: z.bigint(),
  };
}

/** The tasks example's models, built with the zod under test (its `.openapi()` installed). */
export async function modelCorpus(): Promise<Corpus> {
  const models = await import("../../examples/tasks/models");
  return {
    "tasks Project": models.Project,
    "tasks Task": models.Task,
    "tasks Attachment": models.Attachment,
    "tasks NewProject": models.NewProject,
    "tasks NewTask": models.NewTask,
  };
}

export type Target = "3" | "3.1";
export type Side = "input" | "output";

type Json = unknown;

/** zod's own conversion, with the options specroute's converter starts from, refs pointed at components. */
export function zodConversion(z: Z, schema: zod.ZodType, target: Target, io: Side): Json {
  const raw = z.toJSONSchema(schema, {
    target: target === "3" ? "openapi-3.0" : "draft-2020-12",
    io,
    unrepresentable: "any",
    cycles: "ref",
    reused: "inline",
  }) as Record<string, Json>;
  const { $schema: _dialect, $defs, definitions, ...root } = raw;
  const components = ($defs ?? definitions ?? {}) as Record<string, Json>;
  const text = JSON.stringify({ schema: root, components }).replace(
    /"#\/(?:\$defs|definitions)\//g,
    '"#/components/schemas/',
  );
  return JSON.parse(text);
}

/** Where two JSON values differ: one line per path, `<path> added|removed|changed`. */
export function differences(ours: Json, theirs: Json, path = ""): string[] {
  if (JSON.stringify(ours) === JSON.stringify(theirs)) return [];
  const bothObjects = typeof ours === "object" && ours !== null && typeof theirs === "object" && theirs !== null;
  if (!bothObjects || Array.isArray(ours) !== Array.isArray(theirs) || Array.isArray(ours)) {
    return [`${path || "/"} changed`];
  }
  const a = ours as Record<string, Json>;
  const b = theirs as Record<string, Json>;
  const lines: string[] = [];
  for (const key of Object.keys(a)) {
    if (!(key in b)) lines.push(`${path}/${key} added`);
    else lines.push(...differences(a[key], b[key], `${path}/${key}`));
  }
  for (const key of Object.keys(b)) if (!(key in a)) lines.push(`${path}/${key} removed`);
  // Same keys and values, another order: JSON text (and so the document) differs.
  if (lines.length === 0) lines.push(`${path || "/"} reordered`);
  return lines;
}

/** Which zod a difference shows on: the lowest the package accepts (4.1.0), the installed one, or both. */
export type ZodUnderTest = "lowest" | "latest";

/** A difference between specroute's converter and zod's that is meant, and why. */
export interface ExpectedDifference {
  /** Matches `<entry> | <target> <side> | <path> <added|removed|changed|reordered>`. */
  readonly where: RegExp;
  readonly on: readonly ZodUnderTest[];
  readonly reason: string;
}

const BOTH: readonly ZodUnderTest[] = ["lowest", "latest"];
const INTS = "number int|int|int min max|array min max|object|object partial|tasks \\w+";

/** Every difference the corpus shows, with its reason; anything else is a converter bug. */
export const EXPECTED_DIFFERENCES: readonly ExpectedDifference[] = [
  {
    where: new RegExp(`^(${INTS}) \\| .* \\| (/\\w+)*/(minimum|maximum) removed$`),
    on: BOTH,
    reason: "`.int()` adds the safe-integer range (±2^53−1) as bounds; nobody wrote them, so they are noise",
  },
  {
    where: /^(?!object strict).* \| 3(\.1)? output \| .*\/additionalProperties removed$/,
    on: BOTH,
    reason:
      "zod writes `additionalProperties: false` for every object's output; a plain z.object strips unknown keys rather than rejecting them, so only a strictObject says so",
  },
  {
    where: / \| 3(\.1)? output \| .*\/default removed$/,
    on: BOTH,
    reason:
      "a default fills in what a request leaves out; an answer always carries the value, so it says nothing there",
  },
  {
    where: /^(date \(output of a datetime\)|bigint) \| .* \| \/schema\/(type|format) added$/,
    on: BOTH,
    reason:
      "zod writes `{}` for a date or a bigint (unrepresentable: any); JSON has neither, so a date travels as a `date-time` string and a bigint as an `int64` integer",
  },
  {
    where: /^string (startsWith|endsWith) \| .* \| \/schema\/format removed$/,
    on: ["latest"],
    reason:
      "later zod reports `starts_with`/`ends_with` as a `format`; no OpenAPI tool knows those formats (its pattern says it)",
  },
  {
    where:
      /^number (positive|negative) \| 3 \w+ \| \/schema\/(minimum added|maximum added|exclusiveMinimum changed|exclusiveMaximum changed)$/,
    on: ["lowest"],
    reason:
      "zod 4.1.0 writes OpenAPI 3.0's exclusive bounds as numbers (2020-12's form, invalid in 3.0); specroute writes `minimum: 0, exclusiveMinimum: true`, as later zod does",
  },
  {
    where: /^(nullable|nullable default|tasks Attachment) \| 3\.1 \w+ \| (\/\w+)*\/(type added|anyOf removed)$/,
    on: ["lowest"],
    reason:
      "zod 4.1.0 leaves a nullable scalar as `anyOf: [{ type }, { type: null }]`; later zod folds it into `type: [type, null]`, which specroute writes on every zod",
  },
  {
    where: /^iso time \| .* \| \/schema\/format removed$/,
    on: ["lowest"],
    reason:
      "zod 4.1.0 writes `format: time` for z.iso.time(); later zod does not (its time carries no offset, JSON Schema's does), and neither does specroute on any zod",
  },
  {
    where: / \| .* \| (\/\w+)* reordered$/,
    on: ["lowest"],
    reason:
      "zod 4.1.0 puts metadata (and 3.0's `nullable`) before or after other keywords in another order; specroute keeps later zod's order, so a document does not change with the zod installed",
  },
];

/** The differences between specroute's converter and zod's over `corpus`, one line each. */
export function corpusDifferences(
  z: Z,
  corpus: Corpus,
  convert: (schema: zod.ZodType, target: Target, io: Side) => Json,
): string[] {
  const lines: string[] = [];
  for (const [name, schema] of Object.entries(corpus)) {
    for (const target of ["3", "3.1"] as const) {
      for (const io of ["input", "output"] as const) {
        const ours = JSON.parse(JSON.stringify(convert(schema, target, io)));
        const theirs = zodConversion(z, schema, target, io);
        for (const line of differences(ours, theirs)) lines.push(`${name} | ${target} ${io} | ${line}`);
      }
    }
  }
  return lines;
}

/** Converts the corpus with `z` (the zod this test file resolves "zod" to) and checks it against the table. */
export async function checkCorpus(z: Z, which: ZodUnderTest): Promise<void> {
  extendZodWithOpenApi(z);
  const corpus = { ...specCorpus(z), ...(await modelCorpus()) };
  const lines = corpusDifferences(z, corpus, (schema, target, io) => seam.toJsonSchema(schema, target, io));
  const rules = EXPECTED_DIFFERENCES.filter((rule) => rule.on.includes(which));
  const unexpected = lines.filter((line) => !rules.some((rule) => rule.where.test(line)));
  expect(unexpected).toEqual([]);
  // A rule that no longer matches anything is stale: the table lists what the converter does today.
  const unused = rules.filter((rule) => !lines.some((line) => rule.where.test(line))).map((rule) => rule.reason);
  expect(unused).toEqual([]);
}
