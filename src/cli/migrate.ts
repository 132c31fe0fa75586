import { lstat, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import type * as TS from "typescript";
import { LEGACY_HOSTNAME_PATTERN } from "../chanfana/legacy-parameters";
import { CliError } from "./errors";
import { unifiedDiff } from "./line-diff";
import {
  applyEdits,
  type Edit,
  editOf,
  insertionAt,
  lineOf,
  type NeededImport,
  type Note,
  type Ts,
} from "./migrate-edits";
import { HTTP_EXCEPTION_IMPORT, importedOnErrorHandlers, NOT_GUARDED, onErrorEdits } from "./migrate-on-error";
import { type ZodFile, zod3CallEdits, zodIpToZod4, zodNamespaces } from "./migrate-zod";

/** A call `migrate` left for you (a helper still works through specroute's deprecated shims), or a change it explains. */
export interface MigrateNote {
  /** Path relative to the migrated directory. */
  file: string;
  line: number;
  reason: string;
}

/** What `migrate` did to one directory. */
export interface MigrateResult {
  /** A unified diff of every file it changes (or changed, with `write`). */
  diff: string;
  changedFiles: string[];
  /** The calls left for you. */
  notes: MigrateNote[];
  /** The changes the diff alone would not explain: each onError handler taught HTTPException. */
  changes: MigrateNote[];
}

const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git"]);
const OLD_PACKAGE = "chanfana";
const NEW_PACKAGE = "specroute";
const ZOD_IMPORT: NeededImport = { name: "z", module: "zod" };
/** The imports an edit may need, in the order they are added. */
const NEEDED_IMPORTS = [ZOD_IMPORT, HTTP_EXCEPTION_IMPORT];
/** How a relative import may name a module file: as written, with an extension, or as a directory's index. */
const MODULE_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/** The zod form of each option-taking helper, before its options. */
const BASES: Record<string, string> = {
  Str: "z.string()",
  Num: "z.number()",
  Int: "z.number().int()",
  Bool: "z.boolean()",
  DateTime: "z.iso.datetime()",
  DateOnly: "z.iso.date()",
  Email: "z.email()",
  Uuid: "z.guid()",
  Ipv4: "z.ipv4()",
  Ipv6: "z.ipv6()",
  Ip: "z.union([z.ipv4(), z.ipv6()])",
  Hostname: `z.string().regex(/${LEGACY_HOSTNAME_PATTERN.source}/)`,
};
const HELPERS = new Set([...Object.keys(BASES), "Regex", "Enumeration", "Arr", "Obj"]);
const COMMON_OPTIONS = new Set(["required", "description", "example", "default", "format", "deprecated"]);
/** The options a helper has a zod form for, where they are more than the common ones. */
const HELPER_OPTIONS: Record<string, ReadonlySet<string>> = {
  Regex: new Set([...COMMON_OPTIONS, "pattern", "patternError"]),
  Enumeration: new Set([...COMMON_OPTIONS, "values", "enumCaseSensitive"]),
};
/** The zod form of a constructor given as an `Arr` element or `Obj` field, chanfana 2 shorthand. */
const CONSTRUCTORS: Record<string, string> = {
  String: "z.string()",
  Number: "z.number()",
  Boolean: "z.boolean()",
  Date: "z.iso.datetime()",
};

/**
 * Rewrites the chanfana 2/3 sources under `dir` for specroute: the import names "specroute",
 * chanfana 2 helper calls become native zod, the zod 3 forms zod 4 refuses or reads differently
 * their zod 4 form, and each onError handler answers an HTTPException with its own response.
 * Returns the diff; writes files only with `write`.
 *
 * @example
 * const { diff, notes } = await migrate("src"); // dry run
 */
export async function migrate(dir: string, options: { write?: boolean; cwd?: string } = {}): Promise<MigrateResult> {
  const cwd = options.cwd ?? process.cwd();
  const ts = loadTypescript(cwd);
  let root: string;
  try {
    root = await realpath(resolve(cwd, dir));
  } catch {
    throw new CliError(`cannot read directory '${dir}'`);
  }
  if (!(await lstat(root)).isDirectory()) throw new CliError(`'${dir}' is not a directory`);
  const result: MigrateResult = { diff: "", changedFiles: [], notes: [], changes: [] };
  const nameOf = (file: string) => relative(root, file).split(sep).join("/");
  const texts = new Map<string, string>();
  for (const file of await sourceFiles(root)) texts.set(file, await readFile(file, "utf8"));
  const handlerExports = onErrorHandlerExports(ts, texts, (file, note) =>
    result.notes.push({ file: nameOf(file), ...note }),
  );
  for (const [file, before] of texts) {
    const name = nameOf(file);
    const { text, notes, changes } = migrateSource(ts, name, before, handlerExports.get(file));
    result.notes.push(...notes.map((note) => ({ file: name, ...note })));
    result.changes.push(...changes.map((note) => ({ file: name, ...note })));
    if (text === before) continue;
    result.diff += unifiedDiff(name, before, text);
    result.changedFiles.push(name);
    if (options.write) await writeFile(file, text);
  }
  return result;
}

/**
 * The exports, by file, that other files pass to onError (`app.onError(errorHandler)` with
 * `errorHandler` imported from "./errors"), so that file's handler is changed too; an import that
 * names no file of the app is noted.
 */
function onErrorHandlerExports(
  ts: Ts,
  texts: ReadonlyMap<string, string>,
  note: (file: string, note: Note) => void,
): Map<string, Set<string>> {
  const exports = new Map<string, Set<string>>();
  for (const [file, text] of texts) {
    // Most files never name onError: they are not parsed twice.
    if (!text.includes("onError")) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const handler of importedOnErrorHandlers(ts, source)) {
      const module = moduleFile(file, handler.specifier, texts);
      if (module === undefined) {
        const reason = `onError handler imported from '${handler.specifier}', not a file under the directory: ${NOT_GUARDED}`;
        note(file, { line: handler.line, reason });
      } else {
        exports.set(module, (exports.get(module) ?? new Set()).add(handler.exported));
      }
    }
  }
  return exports;
}

/** The file of `files` that `specifier`, imported from `from`, names; a ".js" specifier may name a ".ts" file. */
function moduleFile(from: string, specifier: string, files: ReadonlyMap<string, unknown>): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.[cm]?jsx?$/, "");
  const candidates = [
    base,
    ...MODULE_EXTENSIONS.map((extension) => stem + extension),
    ...MODULE_EXTENSIONS.map((extension) => join(base, `index${extension}`)),
  ];
  return candidates.find((candidate) => files.has(candidate));
}

/**
 * The JavaScript compiler API of TypeScript 5 or 6: the project's `typescript`, else (TypeScript 7, the
 * native compiler, has none) TypeScript 6's side-by-side package; each looked up from the project
 * first, then from beside the CLI.
 */
function loadTypescript(cwd: string): Ts {
  const installed = requireFrom(cwd, "typescript");
  if (hasCompilerApi(installed)) return installed;
  const beside = requireFrom(cwd, "@typescript/typescript6");
  if (hasCompilerApi(beside)) return beside;
  const version = (installed as { version?: unknown } | undefined)?.version;
  if (installed === undefined) {
    throw new CliError(
      "specroute migrate needs TypeScript 5.x or 6.x: npm install -D typescript@6 (or @typescript/typescript6 beside TypeScript 7)",
    );
  }
  throw new CliError(
    `specroute migrate needs the compiler API of TypeScript 5.x or 6.x, which typescript ${String(version)} does not have ` +
      "(TypeScript 7 ships none): add TypeScript 6's beside it with npm install -D @typescript/typescript6",
  );
}

/** A package as `require` gives it, from the project at `cwd` or else from beside the CLI; undefined when neither has it. */
function requireFrom(cwd: string, name: string): unknown {
  for (const from of [join(cwd, "package.json"), import.meta.url]) {
    try {
      return createRequire(from)(name);
    } catch {
      // Not installed there (or broken): try the next place.
    }
  }
  return undefined;
}

function hasCompilerApi(value: unknown): value is Ts {
  const ts = value as Partial<Ts> | undefined;
  return typeof ts?.createSourceFile === "function" && typeof ts.forEachChild === "function" && !!ts.ScriptTarget;
}

/** Source files under `root` by real path, never leaving it: symlinks out, node_modules, dist and .git are skipped. */
async function sourceFiles(root: string): Promise<string[]> {
  const found = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const real = await realpath(join(dir, entry.name)).catch(() => undefined);
      if (real === undefined || (real !== root && !real.startsWith(root + sep))) continue;
      const stats = await lstat(real);
      // A symlink to a directory inside root is visited through its real path instead.
      if (stats.isDirectory() && !entry.isSymbolicLink()) await visit(real);
      else if (stats.isFile() && SOURCE_FILE.test(real) && !real.endsWith(".d.ts")) found.add(real);
    }
  };
  await visit(root);
  return [...found].sort();
}

/** An import whose module is a string literal, as every import this file rewrites or reads is. */
type PackageImport = TS.ImportDeclaration & { moduleSpecifier: TS.StringLiteral };

/** Why a helper call cannot be rewritten exactly; thrown from inside it, caught at the call. */
class Unmigratable extends Error {}

function fail(reason: string): never {
  throw new Unmigratable(reason);
}

/**
 * One file being rewritten: its parse, its helpers by local name (`import { Str as S }` maps S to
 * Str), zod's namespace by local name, and what is reported about it.
 */
interface FileRewrite extends ZodFile {
  helpers: ReadonlyMap<string, string>;
}

/**
 * Rewrites one file's text; `onErrorExports` are the names it exports that other files pass to
 * onError. Calls it cannot rewrite exactly (options not written as a literal, Enumeration mappings,
 * spreads) are left as they are and noted with their line; `changes` explain the onError handlers changed.
 */
export function migrateSource(
  ts: Ts,
  fileName: string,
  text: string,
  onErrorExports: ReadonlySet<string> = new Set(),
): { text: string; notes: Note[]; changes: Note[] } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const imports = importsFrom(ts, source, [OLD_PACKAGE, NEW_PACKAGE]);
  const file: FileRewrite = {
    ts,
    source,
    helpers: importedHelpers(ts, imports),
    zod: zodNamespaces(ts, source),
    notes: [],
    changes: [],
  };
  const edits = [...helperCallEdits(file, source), ...onErrorEdits(file, onErrorExports)];
  const notes = [...file.notes, ...strayUses(file, edits), ...(imports.length > 0 ? uncalledOverrides(file) : [])];
  const body = editedText(file, source, edits);
  const needed = NEEDED_IMPORTS.filter((needed) => edits.some((edit) => edit.needs === needed));
  return {
    text: rewriteImports(file, body, needed),
    notes: uniqueByLine(notes),
    changes: uniqueByLine(file.changes),
  };
}

/** The import declarations of `source` from any of `packages`. */
function importsFrom(ts: Ts, source: TS.SourceFile, packages: readonly string[]): PackageImport[] {
  return source.statements.filter(
    (statement): statement is PackageImport =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      packages.includes(statement.moduleSpecifier.text),
  );
}

/** Local name → helper name, from the value imports (type-only ones name no call). */
function importedHelpers(ts: Ts, imports: readonly PackageImport[]): Map<string, string> {
  const helpers = new Map<string, string>();
  for (const declaration of imports) {
    const bindings = declaration.importClause?.namedBindings;
    if (declaration.importClause?.isTypeOnly || !bindings || !ts.isNamedImports(bindings)) continue;
    for (const specifier of bindings.elements) {
      const imported = (specifier.propertyName ?? specifier.name).text;
      if (HELPERS.has(imported) && !specifier.isTypeOnly) helpers.set(specifier.name.text, imported);
    }
  }
  return helpers;
}

/**
 * Edits for the outermost helper calls in `node` (itself included), and for the zod 3 forms there; an
 * unmigratable call is noted and its arguments still visited.
 */
function helperCallEdits(file: FileRewrite, node: TS.Node): Edit[] {
  const { ts, source } = file;
  const edits: Edit[] = [];
  const replaced = (child: TS.Node) =>
    edits.some((edit) => edit.end > edit.start && child.getStart(source) >= edit.start && child.getEnd() <= edit.end);
  const visit = (child: TS.Node): void => {
    if (ts.isImportDeclaration(child) || replaced(child)) return;
    if (ts.isCallExpression(child)) {
      const helper = helperCallToZod(file, child);
      const ip = helper === undefined ? zodIpToZod4(file, child) : undefined;
      if (helper !== undefined) edits.push({ ...editOf(source, child, helper), needs: ZOD_IMPORT });
      else if (ip !== undefined) edits.push(editOf(source, child, ip));
      else edits.push(...zod3CallEdits(file, child));
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return edits;
}

/** The zod text of `call` when it calls a helper and can be rewritten; else undefined, the call noted if it is a helper's. */
function helperCallToZod(file: FileRewrite, call: TS.CallExpression): string | undefined {
  const helper = helperOf(file, call.expression);
  if (helper === undefined) return undefined;
  try {
    return helperToZod(file, helper, call.arguments);
  } catch (err) {
    if (!(err instanceof Unmigratable)) throw err;
    file.notes.push({ line: lineOf(file.source, call), reason: `${err.message}; left as ${helper}(...)` });
    return undefined;
  }
}

function helperOf(file: FileRewrite, node: TS.Node): string | undefined {
  return file.ts.isIdentifier(node) ? file.helpers.get(node.text) : undefined;
}

/** The zod text for a helper called with `args` (none when it is passed uncalled), or throws Unmigratable. */
function helperToZod(file: FileRewrite, helper: string, args: readonly TS.Expression[]): string {
  const { ts } = file;
  if (args.some((arg) => ts.isSpreadElement(arg))) fail(`${helper}(...) with spread arguments`);
  if (helper === "Arr" || helper === "Obj") return containerToZod(file, helper, args);
  if (args.length > 1) fail(`${helper} called with more than one argument`);
  const options = optionsOf(file, args[0], helper);
  const text = (name: string) => options.get(name)?.getText(file.source);
  if (helper === "Regex") {
    const pattern = text("pattern") ?? fail("Regex without a literal pattern option");
    // chanfana 2's message for a mismatch, kept so answers stay the same.
    return withOptions(file, `z.string().regex(${pattern}, ${text("patternError") ?? '"Invalid"'})`, options);
  }
  if (helper === "Enumeration") {
    const sensitive = text("enumCaseSensitive");
    if (sensitive !== undefined && sensitive !== "true") fail("Enumeration with enumCaseSensitive");
    const values = options.get("values");
    if (!values || !ts.isArrayLiteralExpression(values) || values.elements.some((e) => !ts.isStringLiteralLike(e))) {
      fail("Enumeration whose values are not a list of string literals (a mapping, or computed)");
    }
    return withOptions(file, `z.enum(${text("values")})`, options);
  }
  return withOptions(file, BASES[helper]!, options);
}

/** `Arr(element, options?)` or `Obj(fields, options?)` as zod, or throws Unmigratable. */
function containerToZod(file: FileRewrite, helper: "Arr" | "Obj", args: readonly TS.Expression[]): string {
  const [inner, options, ...extra] = args;
  if (inner === undefined || extra.length > 0) {
    fail(`${helper} needs one ${helper === "Arr" ? "element type" : "fields object"} and optional options`);
  }
  const schema = helper === "Arr" ? `z.array(${memberToZod(file, inner)})` : `z.object(${fieldsToZod(file, inner)})`;
  return withOptions(file, schema, optionsOf(file, options, helper));
}

/** A call's options by name, from an object literal of the options `helper` has a zod form for; else throws Unmigratable. */
function optionsOf(file: FileRewrite, node: TS.Expression | undefined, helper: string): Map<string, TS.Expression> {
  const { ts } = file;
  const options = new Map<string, TS.Expression>();
  if (node === undefined) return options;
  if (!ts.isObjectLiteralExpression(node)) fail(`${helper} called with options that are not an object literal`);
  const allowed = HELPER_OPTIONS[helper] ?? COMMON_OPTIONS;
  for (const property of node.properties) {
    if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      fail(`${helper} options with a spread, shorthand or computed property`);
    }
    const name = property.name.text;
    if (!allowed.has(name)) fail(`${helper} option '${name}' has no zod equivalent here`);
    options.set(name, property.initializer);
  }
  const required = options.get("required");
  if (
    required !== undefined &&
    required.kind !== ts.SyntaxKind.TrueKeyword &&
    required.kind !== ts.SyntaxKind.FalseKeyword
  ) {
    fail(`${helper} with a 'required' that is not true or false`);
  }
  // `undefined` parses as an identifier; the shim reads it as no default, `.default(undefined)` would not.
  const fallback = options.get("default");
  if (fallback !== undefined && ts.isIdentifier(fallback) && fallback.text === "undefined") {
    fail(`${helper} with default: undefined`);
  }
  return options;
}

/** Chains the options in the order specroute's shims apply them, so the document is the same. */
function withOptions(file: FileRewrite, base: string, options: ReadonlyMap<string, TS.Expression>): string {
  const text = (name: string) => options.get(name)!.getText(file.source);
  const metadata = ["example", "format", "deprecated"].filter((name) => options.has(name));
  let out = base;
  if (metadata.length > 0) out += `.openapi({ ${metadata.map((name) => `${name}: ${text(name)}`).join(", ")} })`;
  if (options.get("required")?.kind === file.ts.SyntaxKind.FalseKeyword) out += ".optional()";
  if (options.has("default")) out += `.default(${text("default")})`;
  if (options.has("description")) out += `.describe(${text("description")})`;
  return out;
}

/** An `Arr` element or `Obj` field: a helper (called or not), chanfana 2 shorthand, or any other schema as written. */
function memberToZod(file: FileRewrite, node: TS.Expression): string {
  const { ts, source } = file;
  if (ts.isParenthesizedExpression(node)) return memberToZod(file, node.expression);
  // A call left as it was still gives a zod schema (the shim's), so it can stay inside a rewritten parent.
  if (ts.isCallExpression(node)) return helperCallToZod(file, node) ?? rewriteInside(file, node);
  const uncalled = helperOf(file, node);
  if (uncalled === "Regex" || uncalled === "Enumeration") fail(`${uncalled} passed uncalled`);
  if (uncalled !== undefined) return helperToZod(file, uncalled, []);
  // Own keys only: a field named `toString` or `constructor` is a variable of the app's, not a constructor.
  if (ts.isIdentifier(node))
    return Object.hasOwn(CONSTRUCTORS, node.text) ? CONSTRUCTORS[node.text]! : node.getText(source);
  if (ts.isStringLiteralLike(node)) return `z.string().openapi({ example: ${node.getText(source)} })`;
  if (ts.isNumericLiteral(node)) return `z.number().openapi({ example: ${node.getText(source)} })`;
  if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
    return `z.boolean().openapi({ example: ${node.getText(source)} })`;
  }
  if (node.kind === ts.SyntaxKind.NullKeyword) return "z.string().optional()";
  if (ts.isArrayLiteralExpression(node)) {
    const [element] = node.elements;
    if (element === undefined) fail("Arr shorthand [] without an element type");
    return `z.array(${memberToZod(file, element)})`;
  }
  if (ts.isObjectLiteralExpression(node)) return `z.object(${fieldsToZod(file, node)})`;
  return rewriteInside(file, node);
}

/** An object literal of fields, its layout kept, each value rewritten. */
function fieldsToZod(file: FileRewrite, node: TS.Expression): string {
  const { ts, source } = file;
  if (!ts.isObjectLiteralExpression(node)) fail("Obj called with fields that are not an object literal");
  const edits: Edit[] = [];
  for (const property of node.properties) {
    if (ts.isPropertyAssignment(property)) {
      edits.push(editOf(source, property.initializer, memberToZod(file, property.initializer)));
    } else if (ts.isShorthandPropertyAssignment(property)) {
      const value = memberToZod(file, property.name);
      if (value !== property.name.text) edits.push(editOf(source, property, `${property.name.text}: ${value}`));
    } else {
      fail("Obj fields with a spread, method or accessor");
    }
  }
  return editedText(file, node, edits);
}

/** `node`'s text with the helper calls inside it rewritten (those that can be). */
function rewriteInside(file: FileRewrite, node: TS.Node): string {
  return editedText(file, node, helperCallEdits(file, node));
}

/** A helper named anywhere but as a call cannot be rewritten here (it may be passed around): one note each. */
function strayUses(file: FileRewrite, edits: readonly Edit[]): Note[] {
  const { ts, source } = file;
  const rewritten = (node: TS.Node) =>
    edits.some((edit) => node.getStart(source) >= edit.start && node.getEnd() <= edit.end);
  const called = (node: TS.Identifier) => ts.isCallExpression(node.parent) && node.parent.expression === node;
  return helperNames(ts, source, file.helpers)
    .filter((name) => !rewritten(name) && !called(name))
    .map((name) => ({ line: lineOf(source, name), reason: `${name.text} used other than as a call; left as is` }));
}

/** chanfana 2's `handleValidationError(errors)` overrides, which specroute never calls: one note each. */
function uncalledOverrides(file: FileRewrite): Note[] {
  const { ts, source } = file;
  const found: Note[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isMethodDeclaration(node) && node.name.getText(source) === "handleValidationError") {
      found.push({
        line: lineOf(source, node),
        reason:
          "specroute never calls handleValidationError: shape the body in handleError (a MultiException) or onError",
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every identifier under `node` that names one of `helpers`, in source order, the imports' own names aside. */
function helperNames(ts: Ts, node: TS.Node, helpers: ReadonlyMap<string, string>): TS.Identifier[] {
  const found: TS.Identifier[] = [];
  const visit = (child: TS.Node): void => {
    if (ts.isImportDeclaration(child)) return;
    if (ts.isIdentifier(child) && helpers.has(child.text)) found.push(child);
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/** `node`'s text in the file with `edits` made; a source file's from 0, as its own start would skip its leading comments. */
function editedText(file: FileRewrite, node: TS.Node, edits: readonly Edit[]): string {
  const start = node === file.source ? 0 : node.getStart(file.source);
  return applyEdits(file.source.text, edits, start, node.getEnd());
}

/**
 * Points the chanfana import at specroute and drops the helpers the rewritten `text` of `file` no
 * longer names (those it still names stay: the deprecated shims); adds the `needed` imports it lacks.
 */
function rewriteImports(file: FileRewrite, text: string, needed: readonly NeededImport[]): string {
  const { ts, helpers } = file;
  // The rewritten text parsed again, under the file's name (which tells TypeScript whether it is TSX).
  const source = ts.createSourceFile(file.source.fileName, text, ts.ScriptTarget.Latest, true);
  const stillUsed = new Set(helperNames(ts, source, helpers).map((name) => name.text));
  const edits: Edit[] = [];
  const removed = new Map<TS.Node, Edit>();
  for (const declaration of importsFrom(ts, source, [OLD_PACKAGE, NEW_PACKAGE])) {
    const specifier = declaration.moduleSpecifier;
    const bindings = declaration.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && !declaration.importClause?.isTypeOnly) {
      const kept = bindings.elements.filter(
        (element) => !helpers.has(element.name.text) || stillUsed.has(element.name.text),
      );
      if (kept.length === 0 && !declaration.importClause?.name) {
        // Nothing left to import: the whole line goes.
        const removal = editOf(source, declaration, "");
        if (text[removal.end] === "\n") removal.end++;
        edits.push(removal);
        removed.set(declaration, removal);
        continue;
      }
      if (kept.length !== bindings.elements.length) {
        edits.push(editOf(source, bindings, `{ ${kept.map((element) => element.getText(source)).join(", ")} }`));
      }
    }
    if (specifier.text === OLD_PACKAGE) {
      const quote = specifier.getText(source)[0];
      edits.push(editOf(source, specifier, `${quote}${NEW_PACKAGE}${quote}`));
    }
  }
  const lines = needed
    .filter((wanted) => !imports(ts, source, wanted))
    .map(({ name, module }) => `import { ${name} } from "${module}";`)
    .join("\n");
  if (lines !== "") {
    const last = source.statements.filter((statement) => ts.isImportDeclaration(statement)).at(-1);
    const removal = last && removed.get(last);
    // New imports take the place of a removed last import, else go after it, or first in a file without one.
    if (removal) removal.text = `${lines}\n`;
    else if (last) edits.push(insertionAt(last.getEnd(), `\n${lines}`));
    else edits.push(insertionAt(source.statements[0]!.getStart(source), `${lines}\n\n`));
  }
  return applyEdits(text, edits);
}

function imports(ts: Ts, source: TS.SourceFile, { name, module }: NeededImport): boolean {
  return importsFrom(ts, source, [module]).some((statement) => {
    const bindings = statement.importClause?.namedBindings;
    return !!bindings && ts.isNamedImports(bindings) && bindings.elements.some((element) => element.name.text === name);
  });
}

/** Notes in line order, each once (a call inside another unmigratable call is seen twice). */
function uniqueByLine<T extends { line: number; reason: string }>(notes: T[]): T[] {
  const seen = new Set<string>();
  return notes
    .filter((note) => !seen.has(`${note.line}:${note.reason}`) && !!seen.add(`${note.line}:${note.reason}`))
    .sort((a, b) => a.line - b.line);
}

const USAGE_LINE = "specroute migrate <dir> [--write]";

export const MIGRATE_USAGE = `Usage: ${USAGE_LINE}

Rewrites the sources under <dir> from chanfana 2/3 to specroute: the import line names "specroute",
chanfana 2 helper calls (Str, Int, Enumeration, Arr, Obj, ...) become native zod, zod 3 forms that
zod 4 refuses or reads differently (z.record(v), required_error, ...) their zod 4 form, and each
onError handler answers an HTTPException (a validation failure's 400) with its own response first.
Prints a unified diff and changes nothing unless --write is given. Calls it cannot rewrite exactly
are listed on stderr with file and line, with each onError handler it changed; the helpers left
keep working through specroute's deprecated shims.
Never follows a symlink out of <dir>; skips node_modules, dist and .git. Parses with the
compiler API of TypeScript 5.x or 6.x: the project's typescript, or beside TypeScript 7 (which
has none) TypeScript 6's, installed with npm install -D @typescript/typescript6.

Options:
  --write      apply the changes
  -h, --help   show this help
`;

/** `specroute migrate <dir> [--write]`: prints the diff (or writes it) and lists what it left alone. */
export async function migrateCommand(
  argv: readonly string[],
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown }; cwd: string },
): Promise<void> {
  const positionals: string[] = [];
  let write = false;
  for (const token of argv) {
    if (token === "-h" || token === "--help") {
      io.stdout.write(MIGRATE_USAGE);
      return;
    }
    if (token === "--write") write = true;
    else if (token.startsWith("-")) throw new CliError(`unknown option '${token}' (see specroute migrate --help)`);
    else positionals.push(token);
  }
  if (positionals.length !== 1) throw new CliError(`usage: ${USAGE_LINE}`);
  const result = await migrate(positionals[0]!, { write, cwd: io.cwd });
  if (!write) io.stdout.write(result.diff);
  const byPlace = (a: MigrateNote, b: MigrateNote) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1);
  for (const note of [...result.notes, ...result.changes].sort(byPlace)) {
    io.stderr.write(`${note.file}:${note.line}: ${note.reason}\n`);
  }
  const files = count(result.changedFiles.length, "file");
  const done = write ? "rewritten" : "to rewrite (dry run; --write applies)";
  io.stderr.write(`specroute migrate: ${files} ${done}, ${count(result.notes.length, "call")} left for you\n`);
}

/** `1 file`, `2 files`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
