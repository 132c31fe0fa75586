import type { ScalarKind } from "./zod-introspect";

// Decimal only: hex, octal, binary, "Infinity" and surrounding spaces stay strings and fail validation.
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const INTEGER = /^[-+]?\d+$/;

/** Converts one raw string to the declared scalar kind; a string that does not fit is returned as is. */
export function coerceScalar(raw: string, kind: ScalarKind): unknown {
  switch (kind) {
    case "number":
      return DECIMAL.test(raw) ? Number(raw) : raw;
    case "boolean": {
      const lower = raw.toLowerCase();
      return lower === "true" ? true : lower === "false" ? false : raw;
    }
    case "bigint":
      return INTEGER.test(raw) ? BigInt(raw) : raw;
    case "date": {
      const date = new Date(raw);
      return Number.isNaN(date.getTime()) ? raw : date;
    }
    default:
      return raw;
  }
}
