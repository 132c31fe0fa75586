import { z } from "zod";
import { seam } from "../schema";

/** The options every chanfana 2 parameter helper accepts. */
export interface LegacyParameterOptions {
  /** Absent means required, as in chanfana 2. */
  required?: boolean;
  description?: string;
  example?: unknown;
  /** A default also makes the value optional on input. */
  default?: unknown;
  /** An OpenAPI `format` written into the document. */
  format?: string;
  deprecated?: boolean;
}

/** `Regex` options: the pattern, and the message a value that does not match gets. */
export interface LegacyRegexOptions extends LegacyParameterOptions {
  pattern: RegExp;
  patternError?: string;
}

/** `Enumeration` options: the accepted values as a list, or a mapping whose keys are accepted and turned into its values. */
export interface LegacyEnumerationOptions extends LegacyParameterOptions {
  values: readonly string[] | Readonly<Record<string, unknown>>;
  /** `false` accepts any letter case. */
  enumCaseSensitive?: boolean;
}

/** The schema a helper returns: optional when `required: false`, defaulted when a default is given. */
export type LegacyShim<S extends z.ZodType, P> = P extends { default: unknown }
  ? z.ZodDefault<Optional<S, P>>
  : Optional<S, P>;
type Optional<S extends z.ZodType, P> = P extends { required: false } ? z.ZodOptional<S> : S;

/** What `Arr` and `Obj` accept for a member: a zod schema, or chanfana 2's shorthand (`String`, `Number`, `Boolean`, `Date`, a sample value, `[inner]`, `{ fields }`). */
export type LegacyType =
  | z.ZodType
  | StringConstructor
  | NumberConstructor
  | BooleanConstructor
  | DateConstructor
  | string
  | number
  | boolean
  | null
  | readonly [LegacyType, ...unknown[]]
  | { readonly [key: string]: LegacyType }
  | LegacyHelper;

/** A helper passed uncalled (`Arr(Str)`), which chanfana 2 called without options. */
type LegacyHelper = () => z.ZodType;

/** The zod schema a {@link LegacyType} stands for. */
export type FromLegacy<T> = T extends z.ZodType
  ? T
  : T extends StringConstructor | string
    ? z.ZodString
    : T extends NumberConstructor | number
      ? z.ZodNumber
      : T extends BooleanConstructor | boolean
        ? z.ZodBoolean
        : T extends DateConstructor
          ? z.ZodISODateTime
          : T extends null
            ? z.ZodOptional<z.ZodString>
            : T extends readonly [infer Inner, ...unknown[]]
              ? z.ZodArray<FromLegacy<Inner>>
              : T extends ((...args: never[]) => infer S extends z.ZodType)
                ? S
                : T extends { readonly [key: string]: LegacyType }
                  ? z.ZodObject<{ -readonly [K in keyof T]: FromLegacy<T[K]> }>
                  : never;

type EnumOutput<V> = V extends readonly (infer E)[] ? E : V[keyof V];

// The shims build the schema at run time from the options; `LegacyShim` states the same result for the compiler.
function shim<S extends z.ZodType, P>(schema: S, options: LegacyParameterOptions | undefined): LegacyShim<S, P> {
  let field: z.ZodType = schema;
  const metadata: Record<string, unknown> = {};
  if (options?.example !== undefined) metadata.example = options.example;
  if (options?.format !== undefined) metadata.format = options.format;
  if (options?.deprecated !== undefined) metadata.deprecated = options.deprecated;
  if (Object.keys(metadata).length > 0) field = field.openapi(metadata);
  if (options?.required === false) field = field.optional();
  if (options?.default !== undefined) field = field.default(options.default as never);
  if (options?.description !== undefined) field = field.describe(options.description);
  return field as LegacyShim<S, P>;
}

/**
 * A string. Deprecated chanfana 2 helper; use `z.string()`.
 * @deprecated Use `z.string()` (with `.optional()`, `.default()`, `.describe()`, `.openapi({ example })`).
 * @example Str({ description: "User name", example: "ada" }) // z.string().describe("User name").openapi({ example: "ada" })
 */
export function Str<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodString, P> {
  return shim(z.string(), options);
}

/**
 * A number; a query or path value "12.5" arrives as 12.5. Deprecated chanfana 2 helper; use `z.number()`.
 * @deprecated Use `z.number()`.
 * @example Num({ default: 1 }) // z.number().default(1)
 */
export function Num<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodNumber, P> {
  return shim(z.number(), options);
}

/**
 * An integer. Deprecated chanfana 2 helper; use `z.int()`.
 * @deprecated Use `z.int()` (or `z.number().int()`).
 * @example Int({ required: false }) // z.int().optional()
 */
export function Int<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodNumber, P> {
  return shim(z.number().int(), options);
}

/**
 * A boolean; a query value "true"/"false" arrives as a boolean. Deprecated chanfana 2 helper; use `z.boolean()`.
 * @deprecated Use `z.boolean()`.
 * @example Bool({ default: false }) // z.boolean().default(false)
 */
export function Bool<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodBoolean, P> {
  return shim(z.boolean(), options);
}

/**
 * An ISO 8601 date-time string in UTC (`2024-01-20T10:30:00Z`). Deprecated chanfana 2 helper; use `z.iso.datetime()`.
 * @deprecated Use `z.iso.datetime()`.
 * @example DateTime() // z.iso.datetime()
 */
export function DateTime<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodISODateTime, P> {
  return shim(z.iso.datetime({ error: "Must be in the following format: YYYY-mm-ddTHH:MM:ssZ" }), options);
}

/**
 * A `YYYY-MM-DD` date string. Deprecated chanfana 2 helper; use `z.iso.date()`.
 * @deprecated Use `z.iso.date()`.
 * @example DateOnly({ example: "2024-01-20" }) // z.iso.date().openapi({ example: "2024-01-20" })
 */
export function DateOnly<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodISODate, P> {
  return shim(z.iso.date(), options);
}

/**
 * An email address. Deprecated chanfana 2 helper; use `z.email()`.
 * @deprecated Use `z.email()`.
 * @example Email() // z.email()
 */
export function Email<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodEmail, P> {
  return shim(z.email(), options);
}

/**
 * A UUID: any 8-4-4-4-12 hexadecimal string, as chanfana 2 accepted. Deprecated chanfana 2 helper; use `z.guid()` (or the stricter `z.uuid()`).
 * @deprecated Use `z.guid()`, or `z.uuid()` to also check the RFC 9562 version and variant.
 * @example Uuid() // z.guid()
 */
export function Uuid<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodGUID, P> {
  return shim(z.guid(), options);
}

/**
 * An IPv4 address. Deprecated chanfana 2 helper; use `z.ipv4()`.
 * @deprecated Use `z.ipv4()`.
 * @example Ipv4() // z.ipv4()
 */
export function Ipv4<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodIPv4, P> {
  return shim(z.ipv4(), options);
}

/**
 * An IPv6 address. Deprecated chanfana 2 helper; use `z.ipv6()`.
 * @deprecated Use `z.ipv6()`.
 * @example Ipv6() // z.ipv6()
 */
export function Ipv6<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodIPv6, P> {
  return shim(z.ipv6(), options);
}

type IpSchema = z.ZodUnion<[z.ZodIPv4, z.ZodIPv6]>;

/**
 * An IPv4 or IPv6 address. Deprecated chanfana 2 helper; use `z.union([z.ipv4(), z.ipv6()])`.
 * @deprecated Use `z.union([z.ipv4(), z.ipv6()])`.
 * @example Ip() // z.union([z.ipv4(), z.ipv6()])
 */
export function Ip<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<IpSchema, P> {
  return shim(z.union([z.ipv4(), z.ipv6()]), options);
}

/** chanfana 2's hostname pattern: dot-separated labels of letters, digits and inner hyphens. */
export const LEGACY_HOSTNAME_PATTERN =
  /^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])$/;

/**
 * A hostname such as `api.example.com`. Deprecated chanfana 2 helper; use `z.string().regex(...)` or `z.hostname()`.
 * @deprecated Use `z.string().regex(LEGACY_HOSTNAME_PATTERN)` (same pattern) or `z.hostname()`.
 * @example Hostname() // z.string().regex(LEGACY_HOSTNAME_PATTERN)
 */
export function Hostname<const P extends LegacyParameterOptions = {}>(options?: P): LegacyShim<z.ZodString, P> {
  return shim(z.string().regex(LEGACY_HOSTNAME_PATTERN), options);
}

/**
 * A string matching `pattern`; `patternError` is the message otherwise ("Invalid" when absent). Deprecated chanfana 2 helper; use `z.string().regex()`.
 * @deprecated Use `z.string().regex(pattern, patternError)`.
 * @example Regex({ pattern: /^[a-z]+$/, patternError: "lower-case letters only" }) // z.string().regex(/^[a-z]+$/, "lower-case letters only")
 */
export function Regex<const P extends LegacyRegexOptions>(options: P): LegacyShim<z.ZodString, P> {
  return shim(z.string().regex(options.pattern, options.patternError ?? "Invalid"), options);
}

/**
 * One of `values`. A list accepts its members; a mapping accepts its keys and hands the handler the
 * matching value; `enumCaseSensitive: false` accepts any letter case. Deprecated chanfana 2 helper; use `z.enum()`.
 * @deprecated Use `z.enum(["a", "b"])`; for a mapping `z.enum(["a", "b"]).transform((key) => mapping[key])`.
 * @example Enumeration({ values: ["asc", "desc"], default: "asc" }) // z.enum(["asc", "desc"]).default("asc")
 */
export function Enumeration<const P extends LegacyEnumerationOptions>(
  options: P,
): LegacyShim<z.ZodType<EnumOutput<P["values"]>, string>, P> {
  const mapping: Record<string, unknown> = Array.isArray(options.values)
    ? Object.fromEntries(options.values.map((value: string) => [value, value]))
    : { ...options.values };
  const keys = Object.keys(mapping) as [string, ...string[]];
  let field: z.ZodType;
  if (options.enumCaseSensitive === false) {
    const byLowerCase = new Map(keys.map((key) => [key.toLowerCase(), key]));
    // The document still lists the keys as written; only the check ignores case.
    field = z
      .string()
      .refine((value) => byLowerCase.has(value.toLowerCase()), {
        message: `Invalid option: expected one of ${keys.map((key) => JSON.stringify(key)).join("|")}`,
      })
      .transform((value) => mapping[byLowerCase.get(value.toLowerCase())!])
      .openapi({ type: "string", enum: keys });
  } else {
    field = Array.isArray(options.values) ? z.enum(keys) : z.enum(keys).transform((key) => mapping[key]);
  }
  return shim(field, options) as never;
}

/**
 * An array of `inner` (a zod schema or chanfana 2 shorthand); one query value becomes a one-element array. Deprecated chanfana 2 helper; use `z.array()`.
 * @deprecated Use `z.array(inner)`.
 * @example Arr(Str(), { required: false }) // z.array(z.string()).optional()
 */
export function Arr<const T extends LegacyType, const P extends LegacyParameterOptions = {}>(
  inner: T,
  options?: P,
): LegacyShim<z.ZodArray<FromLegacy<T>>, P> {
  return shim(z.array(fromLegacy(inner)), options) as never;
}

/**
 * An object of `fields` (zod schemas or chanfana 2 shorthand). Deprecated chanfana 2 helper; use `z.object()`.
 * @deprecated Use `z.object(fields)`.
 * @example Obj({ name: Str(), age: Int() }) // z.object({ name: z.string(), age: z.int() })
 */
export function Obj<
  const T extends { readonly [key: string]: LegacyType },
  const P extends LegacyParameterOptions = {},
>(fields: T, options?: P): LegacyShim<FromLegacy<T>, P> {
  return shim(legacyObject(fields), options) as never;
}

function legacyObject(fields: { readonly [key: string]: LegacyType }): z.ZodObject {
  return z.object(Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, fromLegacy(value)])));
}

/** chanfana 2's shorthand: constructors mean the type, a sample value means the type with that example. */
function fromLegacy(type: LegacyType): z.ZodType {
  if (type === null) return Str({ required: false });
  // By shape, not instanceof: the app may load its own copy of zod.
  if (seam.isSchema(type)) return type;
  if (type === String) return Str();
  if (type === Number) return Num();
  if (type === Boolean) return Bool();
  if (type === Date) return DateTime();
  if (typeof type === "string") return Str({ example: type });
  if (typeof type === "number") return Num({ example: type });
  if (typeof type === "boolean") return Bool({ example: type });
  if (typeof type === "function") return (type as LegacyHelper)();
  if (Array.isArray(type)) {
    if (type.length === 0) throw new TypeError("Arr shorthand needs the element type: [String], not []");
    return z.array(fromLegacy(type[0] as LegacyType));
  }
  return legacyObject(type as { readonly [key: string]: LegacyType });
}
