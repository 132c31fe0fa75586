// Random zod schemas of the kinds the direct converter knows (and a few it hands to zod), converted
// by both converters: the results must be the same JSON, key order included.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { extendZodWithOpenApi } from "../../../src/openapi/extend-zod";
import type { OpenAPIVersion } from "../../../src/openapi/types";
import type { SchemaIO } from "../../../src/schema";
import { toOpenApiSchema, useSchemaConverter } from "../../../src/schema/zod/json-schema";

extendZodWithOpenApi(z);
afterEach(() => useSchemaConverter("direct"));

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (below: number) => Math.floor(next() * below),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

type Random = ReturnType<typeof random>;

function stringSchema(r: Random): z.ZodType {
  let schema: z.ZodString | z.ZodType = r.pick([
    () => z.string(),
    () => z.email(),
    () => z.uuid(),
    () => z.url(),
    () => z.iso.datetime(),
    () => z.iso.datetime({ local: true }),
    () => z.iso.date(),
    () => z.iso.time(),
    () => z.ipv4(),
    () => z.string().regex(/^[a-z]+$/),
    () => z.string().startsWith("a").endsWith("z"),
    () => z.string().lowercase(),
    () => z.base64(),
    () => z.guid(),
    () => z.cuid(),
  ])();
  if (schema instanceof z.ZodString || "min" in schema) {
    const str = schema as z.ZodString;
    if (r.chance(0.4)) schema = str.min(r.int(5));
    if (r.chance(0.4)) schema = (schema as z.ZodString).max(5 + r.int(100));
    if (r.chance(0.1)) schema = (schema as z.ZodString).length(8);
    if (r.chance(0.1)) schema = (schema as z.ZodString).includes("x").regex(/\d/);
    if (r.chance(0.1)) schema = (schema as z.ZodString).trim();
  }
  return schema;
}

function numberSchema(r: Random): z.ZodType {
  let schema: z.ZodNumber = r.pick([() => z.number(), () => z.int(), () => z.number().int(), () => z.int32()])();
  if (r.chance(0.3)) schema = schema.min(r.int(3) - 1);
  if (r.chance(0.3)) schema = schema.max(10 + r.int(10));
  if (r.chance(0.2)) schema = schema.gt(r.int(4) - 2);
  if (r.chance(0.2)) schema = schema.lt(20);
  if (r.chance(0.1)) schema = schema.positive();
  if (r.chance(0.1)) schema = schema.nonnegative();
  if (r.chance(0.1)) schema = schema.multipleOf(r.pick([2, 0.5, 3]));
  return schema;
}

let ids = 0;

function leaf(r: Random): z.ZodType {
  return r.pick([
    () => stringSchema(r),
    () => numberSchema(r),
    () => z.boolean(),
    () =>
      z.enum(
        r.pick([
          ["a", "b"],
          ["open", "done", "late"],
        ] as const),
      ),
    () => z.literal(r.pick(["x", 3, true, null] as const)),
    () => z.literal(["a", "b"]),
    () => z.date(),
    () => z.null(),
    () => z.any(),
    () => z.unknown(),
    () => z.bigint(),
    () => z.file().mime(["image/png"]).max(1000),
    () => z.string().transform((value) => value.length),
    () => z.templateLiteral(["id-", z.number()]),
    () => z.never(),
  ])();
}

/** Schemas several generated ones share, as models shared by routes are: converted in many contexts. */
const pool: z.ZodType[] = [];

function schemaOf(r: Random, depth: number): z.ZodType {
  let schema: z.ZodType;
  if (pool.length > 0 && r.chance(0.15)) schema = r.pick(pool);
  else if (depth <= 0 || r.chance(0.35)) schema = leaf(r);
  else {
    const inner = () => schemaOf(r, depth - 1);
    schema = r.pick([
      () => z.array(inner()).min(r.int(2)),
      () => z.array(inner()).max(9),
      () => z.object({ a: inner(), b: inner().optional(), c: inner() }),
      () => z.strictObject({ id: z.int(), value: inner() }),
      () => z.looseObject({ name: inner() }),
      () => z.object({ tag: inner() }).catchall(z.string()),
      () => z.union([inner(), inner()]),
      () => z.union([z.string(), z.number()]),
      () =>
        z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("a"), a: inner() }),
          z.object({ kind: z.literal("b") }),
        ]),
      () => z.record(z.string(), inner()),
      () => z.record(z.enum(["x", "y"]), inner()),
      () => z.record(z.string().min(2), inner()),
      () => z.partialRecord(z.enum(["x", "y"]), inner()),
      () => z.record(z.number(), inner()),
      () => z.intersection(z.object({ a: inner() }), z.object({ b: z.string() })),
      () => z.tuple([inner(), z.string()]),
      () => inner().pipe(z.any()),
      () => z.lazy(() => z.string()),
    ])();
  }
  for (let n = r.int(3); n > 0; n--) {
    schema = r.pick([
      () => schema.optional(),
      () => schema.nullable(),
      () => schema.nullish(),
      () => schema.readonly(),
      () => schema.default(r.pick(["text", 3, null, [1], { a: 1 }] as const) as never),
      () => schema.describe("described"),
      () => schema.meta({ title: "Titled", examples: ["e1", "e2"] }),
      () => schema.openapi({ example: r.pick(["x", 1, { nested: true }]), deprecated: r.chance(0.5) }),
      () => schema.openapi(`Generated${ids++}`),
      () => schema.openapi(`Generated${ids++}`, { description: "A component" }),
      () => schema.refine(() => true),
    ])();
  }
  return schema;
}

function convert(schema: z.ZodType, version: OpenAPIVersion, io: SchemaIO, converter: "zod" | "direct"): string {
  useSchemaConverter(converter);
  try {
    return JSON.stringify(toOpenApiSchema(schema, version, io));
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

describe("the direct converter on generated schemas", () => {
  it("writes what zod's converter writes, for 600 schemas in 3.0 and 3.1, as request and as response", () => {
    let compared = 0;
    for (let seed = 10_001; seed <= 10_040; seed++) pool.push(schemaOf(random(seed), 2));
    for (let seed = 1; seed <= Number(process.env.FUZZ_SEEDS ?? 600); seed++) {
      const schema = schemaOf(random(seed), 3);
      for (const version of ["3", "3.1"] as const) {
        for (const io of ["input", "output"] as const) {
          const viaZod = convert(schema, version, io, "zod");
          expect(convert(schema, version, io, "direct"), `seed ${seed}, ${version}, ${io}`).toBe(viaZod);
          compared++;
        }
      }
    }
    expect(compared).toBe(4 * Number(process.env.FUZZ_SEEDS ?? 600));
  });

  it("agrees on components shared between schemas, recursive schemas and ids given twice", () => {
    const Shared = z.object({ id: z.uuid() }).openapi("SharedThing");
    interface Tree {
      value: number;
      children: Tree[];
    }
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ value: z.number(), children: z.array(Tree) }));
    const Node = z.object({
      name: z.string(),
      get next() {
        return Node.optional();
      },
    });
    const cases: z.ZodType[] = [
      z.object({
        a: Shared,
        b: Shared.optional(),
        c: Shared.nullable(),
        d: z.array(Shared).openapi({ description: "x" }),
      }),
      Shared.openapi({ description: "refined" }).openapi({ example: { id: "x" } }),
      Shared.describe("described").optional().default({ id: "y" }),
      z.object({ tree: Tree }),
      Node,
      z.object({ a: z.string().openapi("Twice"), b: z.number().openapi("Twice") }),
      z.object({
        when: z.date().openapi({ example: new Date(0) as never }),
        n: z.number().max(Number.POSITIVE_INFINITY),
      }),
      z.object({ field: z.string().openapi({ example: undefined, description: "no example" }) }),
    ];
    for (const [index, schema] of cases.entries()) {
      for (const version of ["3", "3.1"] as const) {
        for (const io of ["input", "output"] as const) {
          const viaZod = convert(schema, version, io, "zod");
          expect(convert(schema, version, io, "direct"), `case ${index}, ${version}, ${io}`).toBe(viaZod);
        }
      }
    }
  });
});
