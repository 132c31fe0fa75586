import { z } from "zod";
import type * as core from "zod/v4/core";
import { defOf } from "./introspect";

const { util } = z.core;

type Bound = number | bigint | Date;

export interface CheckAggregate {
  minimum?: Bound;
  maximum?: Bound;
  exclusiveMinimum?: Bound;
  exclusiveMaximum?: Bound;
  multipleOf?: number[];
  format?: string;
  isInt?: boolean;
  patterns?: Set<RegExp>;
  contentEncoding?: string;
  laxFormat?: boolean;
  mime?: string[];
}

function narrowMin(agg: CheckAggregate, key: "minimum" | "exclusiveMinimum", value: Bound): void {
  if (agg[key] === undefined || value > agg[key]!) agg[key] = value;
}

function narrowMax(agg: CheckAggregate, key: "maximum" | "exclusiveMaximum", value: Bound): void {
  if (agg[key] === undefined || value < agg[key]!) agg[key] = value;
}

function addDivisor(agg: CheckAggregate, value: number): void {
  agg.multipleOf ??= [];
  if (!agg.multipleOf.includes(value)) agg.multipleOf.push(value);
}

function addPattern(agg: CheckAggregate, pattern: RegExp): void {
  agg.patterns ??= new Set();
  agg.patterns.add(pattern);
}

function intersectMime(agg: CheckAggregate, mime: string[]): void {
  agg.mime = agg.mime ? agg.mime.filter((type) => mime.includes(type)) : [...mime];
}

function setFormat(agg: CheckAggregate, format: string): void {
  agg.format = format;
  if (format.includes("int")) agg.isInt = true;
}

function formatRange(agg: CheckAggregate, format: string, ranges: Record<string, [Bound, Bound]>): void {
  setFormat(agg, format);
  const [minimum, maximum] = ranges[format]!;
  narrowMin(agg, "minimum", minimum);
  narrowMax(agg, "maximum", maximum);
}

/**
 * A schema's checks folded into the bounds, format, patterns and media types they allow, as zod's own
 * converter folds them (its `bag`), so both write the same keywords.
 *
 * @example
 * aggregateChecks(z.string().min(2).max(5)) // { minimum: 2, maximum: 5 }
 */
export function aggregateChecks(schema: core.$ZodType): CheckAggregate {
  const agg: CheckAggregate = {};
  const checks = (defOf(schema).checks ?? []) as core.$ZodCheck[];
  const list = schema._zod.traits.has("$ZodCheck") ? [schema as unknown as core.$ZodCheck, ...checks] : checks;
  for (const check of list) {
    const d = defOf(check);
    switch (d.check) {
      case "greater_than":
        narrowMin(agg, d.inclusive ? "minimum" : "exclusiveMinimum", d.value);
        break;
      case "less_than":
        narrowMax(agg, d.inclusive ? "maximum" : "exclusiveMaximum", d.value);
        break;
      case "multiple_of":
        addDivisor(agg, d.value);
        break;
      case "number_format":
        formatRange(agg, d.format, util.NUMBER_FORMAT_RANGES as Record<string, [Bound, Bound]>);
        break;
      case "bigint_format":
        formatRange(agg, d.format, util.BIGINT_FORMAT_RANGES as Record<string, [Bound, Bound]>);
        break;
      case "min_length":
      case "min_size":
        narrowMin(agg, "minimum", d.minimum);
        break;
      case "max_length":
      case "max_size":
        narrowMax(agg, "maximum", d.maximum);
        break;
      case "length_equals":
        narrowMin(agg, "minimum", d.length);
        narrowMax(agg, "maximum", d.length);
        break;
      case "size_equals":
        narrowMin(agg, "minimum", d.size);
        narrowMax(agg, "maximum", d.size);
        break;
      case "string_format":
        setFormat(agg, d.format);
        if (d.pattern) addPattern(agg, d.pattern);
        if (d.format === "base64" || d.format === "base64url") agg.contentEncoding = d.format;
        if (d.local || d.precision === -1) agg.laxFormat = true;
        break;
      case "mime_type":
        intersectMime(agg, d.mime);
        break;
    }
  }
  // What third-party checks record only in the bag; zod's own never say more than the fold above.
  const bag = schema._zod.bag as Omit<CheckAggregate, "multipleOf"> & { multipleOf?: number };
  if (bag.minimum !== undefined) narrowMin(agg, "minimum", bag.minimum);
  if (bag.exclusiveMinimum !== undefined) narrowMin(agg, "exclusiveMinimum", bag.exclusiveMinimum);
  if (bag.maximum !== undefined) narrowMax(agg, "maximum", bag.maximum);
  if (bag.exclusiveMaximum !== undefined) narrowMax(agg, "exclusiveMaximum", bag.exclusiveMaximum);
  if (bag.multipleOf !== undefined) addDivisor(agg, bag.multipleOf);
  if (bag.format !== undefined) {
    agg.format ??= bag.format;
    if (bag.format.includes("int")) agg.isInt = true;
  }
  if (bag.mime) intersectMime(agg, bag.mime);
  for (const pattern of bag.patterns ?? []) addPattern(agg, pattern);
  return agg;
}
