import type * as TS from "typescript";
import { type Edit, editOf, insertionAt, lineOf, type ParsedFile, type Ts, unwrapped } from "./migrate-edits";

/** A file being rewritten, with the local names it imports zod's namespace under. */
export interface ZodFile extends ParsedFile {
  zod: ReadonlySet<string>;
}

/** A call of one of zod's functions, `z.record(...)`, or of a coercing one, `z.coerce.number(...)`. */
interface ZodFunctionCall {
  namespace: string;
  name: string;
  coerced: boolean;
}

/** zod functions whose params come first (`z.string({ ... })`); the others take them after their schemas. */
const PARAMS_FIRST = new Set([
  "string",
  "number",
  "boolean",
  "bigint",
  "date",
  "symbol",
  "any",
  "unknown",
  "never",
  "nan",
  "null",
  "undefined",
  "void",
]);
/** The methods of a zod schema that return something else than a schema. */
const NOT_SCHEMA_METHODS = new Set([
  "parse",
  "safeParse",
  "parseAsync",
  "safeParseAsync",
  "spa",
  "isOptional",
  "isNullable",
]);
/** Params zod 3 read and zod 4 ignores without a word. */
const ZOD3_PARAMS = ["required_error", "invalid_type_error", "errorMap", "description"];

/** The local names `source` imports zod's namespace from "zod" under: `{ z }`, `{ z as zod }`, `* as z`, a default `z`. */
export function zodNamespaces(ts: Ts, source: TS.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const clause = statement.importClause;
    if (statement.moduleSpecifier.text !== "zod" || !clause || clause.isTypeOnly) continue;
    if (clause.name) names.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    for (const element of bindings && ts.isNamedImports(bindings) ? bindings.elements : []) {
      if ((element.propertyName ?? element.name).text === "z" && !element.isTypeOnly) names.add(element.name.text);
    }
  }
  return names;
}

/**
 * Edits that turn the zod 3 forms of `call` that zod 4 refuses or reads differently into their zod 4
 * form. They change the call in place, so its arguments are still visited.
 */
export function zod3CallEdits(file: ZodFile, call: TS.CallExpression): Edit[] {
  const { ts, source } = file;
  const edits: Edit[] = [];
  const called = zodFunctionOf(file, call);
  const [first, ...others] = call.arguments;
  if (called?.name === "record" && !called.coerced && first && others.length === 0 && !ts.isSpreadElement(first)) {
    // zod 3 keyed a one-argument record by strings; zod 4 takes that argument for the key schema.
    edits.push(insertionAt(first.getStart(source), `${called.namespace}.string(), `));
  }
  if (called) edits.push(...paramsEdits(file, called, call));
  const method = stringMethodOf(file, call);
  // zod 4's uuid() refuses ids without an RFC 9562 version and variant, which zod 3's accepted; guid() is zod 3's check.
  if (method?.text === "uuid") edits.push(editOf(source, method, "guid"));
  return edits;
}

/** `z.string().ip(...)`, gone from zod 4, as zod 4's function; undefined (and noted) for an `.ip()` it cannot replace. */
export function zodIpToZod4(file: ZodFile, call: TS.CallExpression): string | undefined {
  const { ts, source } = file;
  if (stringMethodOf(file, call)?.text !== "ip") return undefined;
  const receiver = (call.expression as TS.PropertyAccessExpression).expression;
  const string = ts.isCallExpression(receiver) ? zodFunctionOf(file, receiver) : undefined;
  const version = ipVersion(file, call.arguments);
  if (string?.name === "string" && !string.coerced && (receiver as TS.CallExpression).arguments.length === 0) {
    const z = string.namespace;
    if (version === "v4" || version === "v6") return `${z}.ip${version}()`;
    if (version === "any") return `${z}.union([${z}.ipv4(), ${z}.ipv6()])`;
  }
  file.notes.push({
    line: lineOf(source, call),
    reason:
      "zod 4 has no z.string().ip(), and this one has checks or options it cannot carry over; use z.ipv4() or z.ipv6()",
  });
  return undefined;
}

/** The version an `.ip()` call's arguments ask for: `any` for none, undefined for options other than a literal version. */
function ipVersion(file: ZodFile, args: readonly TS.Expression[]): "v4" | "v6" | "any" | undefined {
  const { ts } = file;
  if (args.length === 0) return "any";
  const [options] = args;
  if (args.length > 1 || !options || !ts.isObjectLiteralExpression(options) || options.properties.length !== 1) return;
  const [version] = options.properties;
  if (!version || !ts.isPropertyAssignment(version) || version.name.getText(file.source) !== "version") return;
  const value = version.initializer;
  return ts.isStringLiteral(value) && (value.text === "v4" || value.text === "v6") ? value.text : undefined;
}

/**
 * The zod 3 params of a zod function call rewritten for zod 4: `required_error` and
 * `invalid_type_error` become one `error` function, an `errorMap` that reads nothing becomes
 * `error`, and `description` becomes `.describe()`, where zod 4 would drop it from the document.
 */
function paramsEdits(file: ZodFile, called: ZodFunctionCall, call: TS.CallExpression): Edit[] {
  const { ts, source } = file;
  const params = call.arguments.at(-1);
  const firstParamsIndex = PARAMS_FIRST.has(called.name) ? 0 : 1;
  if (!params || call.arguments.length - 1 < firstParamsIndex || !ts.isObjectLiteralExpression(params)) return [];
  const named = new Map<string, TS.PropertyAssignment>();
  for (const property of params.properties) {
    if (ts.isPropertyAssignment(property) && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      named.set(property.name.text, property);
    }
  }
  if (!ZOD3_PARAMS.some((name) => named.has(name))) return [];
  const text = (name: string) => named.get(name)?.initializer.getText(source);
  const dropped = new Set<TS.Node>();
  const added: string[] = [];
  const [required, invalid] = [text("required_error"), text("invalid_type_error")];
  if (required !== undefined || invalid !== undefined) {
    // zod 4 has one error function for both: its input is undefined where zod 3 said required_error.
    added.push(
      `error: (issue) => (issue.input === undefined ? ${required ?? "undefined"} : ${invalid ?? "undefined"})`,
    );
    for (const name of ["required_error", "invalid_type_error"]) if (named.has(name)) dropped.add(named.get(name)!);
  }
  const errorMap = named.get("errorMap");
  const map = errorMap && unwrapped(ts, errorMap.initializer);
  if (
    map &&
    (ts.isArrowFunction(map) || ts.isFunctionExpression(map)) &&
    map.parameters.length === 0 &&
    !added.length
  ) {
    added.push(`error: ${text("errorMap")}`);
    dropped.add(errorMap!);
  } else if (errorMap) {
    file.notes.push({
      line: lineOf(source, errorMap),
      reason:
        "zod 4 ignores errorMap, and this one reads zod 3's issue or context: rewrite it as an error function of zod 4's issue",
    });
  }
  const edits: Edit[] = [];
  const description = named.get("description");
  if (description) {
    dropped.add(description);
    edits.push(insertionAt(schemaChainOf(file, call).getEnd(), `.describe(${text("description")})`));
  }
  const properties = [...params.properties.filter((p) => !dropped.has(p)).map((p) => p.getText(source)), ...added];
  if (properties.length > 0) return [...edits, editOf(source, params, `{ ${properties.join(", ")} }`)];
  // Nothing left: the argument goes, with the comma before it.
  const previous = call.arguments.at(-2);
  return [...edits, { start: previous ? previous.getEnd() : params.getStart(source), end: params.getEnd(), text: "" }];
}

/**
 * The outermost call of the schema method chain `call` starts (`z.string({...}).min(1).optional()`):
 * zod 4.1 drops a description at the next check, so `.describe()` goes last. A method that returns
 * no schema (`.parse()`) ends the chain before it.
 */
function schemaChainOf(file: ZodFile, call: TS.CallExpression): TS.CallExpression {
  const { ts } = file;
  let outer = call;
  while (
    ts.isPropertyAccessExpression(outer.parent) &&
    !NOT_SCHEMA_METHODS.has(outer.parent.name.text) &&
    ts.isCallExpression(outer.parent.parent) &&
    outer.parent.parent.expression === outer.parent
  ) {
    outer = outer.parent.parent;
  }
  return outer;
}

function zodFunctionOf(file: ZodFile, call: TS.CallExpression): ZodFunctionCall | undefined {
  const { ts } = file;
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const coerced = ts.isPropertyAccessExpression(callee.expression) && callee.expression.name.text === "coerce";
  const owner = coerced ? (callee.expression as TS.PropertyAccessExpression).expression : callee.expression;
  if (!ts.isIdentifier(owner) || !file.zod.has(owner.text)) return undefined;
  return { namespace: owner.text, name: callee.name.text, coerced };
}

/** The method name of `call` when it calls a method of a zod string: `z.string().uuid()`, `z.string().min(1).ip()`. */
function stringMethodOf(file: ZodFile, call: TS.CallExpression): TS.MemberName | undefined {
  const { ts } = file;
  if (!ts.isPropertyAccessExpression(call.expression)) return undefined;
  let receiver = call.expression.expression;
  while (ts.isCallExpression(receiver) && ts.isPropertyAccessExpression(receiver.expression)) {
    const called = zodFunctionOf(file, receiver);
    if (called) return called.name === "string" ? call.expression.name : undefined;
    receiver = receiver.expression.expression;
  }
  return undefined;
}
