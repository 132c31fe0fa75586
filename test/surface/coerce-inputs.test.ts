import { describe, expect, it } from "vitest";
import { z } from "zod";
import { coerceInputs } from "../../src";

const query = z.object({
  page: z.number().optional(),
  active: z.boolean().optional(),
  big: z.bigint().optional(),
  since: z.date().optional(),
  tags: z.array(z.string()).optional(),
  ids: z.array(z.number()).optional(),
  name: z.string().optional(),
});

describe("coerceInputs (chanfana's helper)", () => {
  it("returns null when there is no value at all", () => {
    expect(coerceInputs(new URLSearchParams(""), query)).toBeNull();
    expect(coerceInputs({}, query)).toBeNull();
    expect(coerceInputs(new Map())).toBeNull();
  });

  it("turns strings into the number, boolean, bigint and date the schema declares", () => {
    const data = new URLSearchParams("page=2.5&active=TRUE&big=9007199254740993&since=2024-05-01&name=7");
    expect(coerceInputs(data, query)).toEqual({
      page: 2.5,
      active: true,
      big: 9007199254740993n,
      since: new Date("2024-05-01"),
      name: "7",
    });
  });

  it("makes a repeated key an array, and a single value of an array field a one-element array", () => {
    expect(coerceInputs(new URLSearchParams("tags=a&tags=b&ids=1&ids=2"), query)).toEqual({
      tags: ["a", "b"],
      ids: [1, 2],
    });
    expect(coerceInputs(new URLSearchParams("tags=a&ids=3"), query)).toEqual({ tags: ["a"], ids: [3] });
  });

  it("reads an empty string as null", () => {
    expect(coerceInputs(new URLSearchParams("page=&name="), query)).toEqual({ page: null, name: null });
  });

  it("hands the schema what chanfana 3.4 does for values that do not fit: NaN, an invalid Date, the string", () => {
    const coerced = coerceInputs(new URLSearchParams("page=ten&active=yes&big=1.5&since=soon"), query);
    expect(coerced).toEqual({ page: Number.NaN, active: "yes", big: "1.5", since: expect.any(Date) });
    expect(Number.isNaN((coerced as { since: Date }).since.getTime())).toBe(true);
    const refused = query.safeParse(coerced);
    expect(refused.error?.issues.find((issue) => issue.path[0] === "page")?.message).toBe(
      "Invalid input: expected number, received NaN",
    );
  });

  it("trims numbers, bigints and booleans, as chanfana 3.4 does", () => {
    expect(coerceInputs({ page: " 12 ", big: "\t42\n", ids: [" 1", "2 "] }, query)).toEqual({
      page: 12,
      big: 42n,
      ids: [1, 2],
    });
    // chanfana's BigInt() would read "  " as 0n: specroute leaves it for the schema to refuse.
    const refused = coerceInputs({ page: "12abc", big: "  ", active: " TRUE " }, query);
    expect(refused).toEqual({ page: Number.NaN, big: "  ", active: true });
    expect(query.safeParse(refused).success).toBe(false);
  });

  it("keeps strings when no schema is given, and keys the schema does not declare", () => {
    expect(coerceInputs(new URLSearchParams("page=2&a=1&a=2"))).toEqual({ page: "2", a: ["1", "2"] });
    expect(coerceInputs(new URLSearchParams("extra=1"), query)).toEqual({ extra: "1" });
  });

  it("accepts a plain object, a Map and Headers", () => {
    expect(coerceInputs({ page: "3", tags: ["x", "y"] }, query)).toEqual({ page: 3, tags: ["x", "y"] });
    expect(coerceInputs(new Map([["active", "false"]]), query)).toEqual({ active: false });
    const headers = z.object({ "x-retries": z.number() });
    expect(coerceInputs(new Headers({ "X-Retries": "4" }), headers)).toEqual({ "x-retries": 4 });
  });

  it("looks through wrappers and pipes around the object schema", () => {
    const piped = query.transform((value) => value);
    expect(coerceInputs(new URLSearchParams("page=4"), piped)).toEqual({ page: 4 });
    const wrapped = z.object({ page: z.number().int().default(1).nullable() });
    expect(coerceInputs(new URLSearchParams("page=5"), wrapped)).toEqual({ page: 5 });
  });

  it("gives what the route's own parsing accepts: the result validates", () => {
    const coerced = coerceInputs(new URLSearchParams("page=2&active=false&tags=a"), query);
    expect(query.parse(coerced)).toEqual({ page: 2, active: false, tags: ["a"] });
  });
});
