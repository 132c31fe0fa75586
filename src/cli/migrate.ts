import { lstat, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import type * as TS from "typescript";
import { LEGACY_HOSTNAME_PATTERN } from "../chanfana/legacy-parameters";
import { CliError } from "./errors";
import { unifiedDiff } from "./line-diff";

type Ts = typeof TS;

/** A helper call `migrate` left as it was (it still works through specroute's deprecated shims). */
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
  notes: MigrateNote[];
}

const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git"]);
const OLD_PACKAGE = "chanfana";
const NEW_PACKAGE = "specroute";

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

/**
 * Rewrites the chanfana 2/3 sources under `dir` for specroute: the import names "specroute", and
 * chanfana 2 helper calls become native zod. Returns the diff; writes files only with `write`.
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
  const result: MigrateResult = { diff: "", changedFiles: [], notes: [] };
  for (const file of await sourceFiles(root)) {
    const name = relative(root, file).split(sep).join("/");
    const before = await readFile(file, "utf8");
    const { text, notes } = migrateSource(ts, name, before);
    result.notes.push(...notes.map((note) => ({ file: name, ...note })));
    if (text === before) continue;
    result.diff += unifiedDiff(name, before, text);
    result.changedFiles.push(name);
    if (options.write) await writeFile(file, text);
  }
  return result;
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

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Rewrites one file's text. Calls it cannot rewrite exactly (options not written as a literal,
 * Enumeration mappings, spreads) are left as they are and noted with their line.
 */
export function migrateSource(
  ts: Ts,
  fileName: string,
  text: string,
): { text: string; notes: { line: number; reason: string }[] } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const notes: { line: number; reason: string }[] = [];
  const lineOf = (node: TS.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

  const imports = source.statements.filter(
    (statement): statement is TS.ImportDeclaration =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      [OLD_PACKAGE, NEW_PACKAGE].includes(statement.moduleSpecifier.text),
  );
  if (imports.length === 0) return { text, notes };

  // Local name → helper name, for `import { Str as S }` too.
  const helpers = new Map<string, string>();
  for (const declaration of imports) {
    const bindings = declaration.importClause?.namedBindings;
    if (declaration.importClause?.isTypeOnly || !bindings || !ts.isNamedImports(bindings)) continue;
    for (const specifier of bindings.elements) {
      const imported = (specifier.propertyName ?? specifier.name).text;
      if (HELPERS.has(imported) && !specifier.isTypeOnly) helpers.set(specifier.name.text, imported);
    }
  }

  class Unmigratable extends Error {}
  const fail = (reason: string): never => {
    throw new Unmigratable(reason);
  };
  const helperOf = (node: TS.Node) => (ts.isIdentifier(node) ? helpers.get(node.text) : undefined);

  /** The zod text for a helper call, or throws Unmigratable. */
  const callToZod = (call: TS.CallExpression, helper: string): string => {
    const args = call.arguments;
    if (args.some((arg) => ts.isSpreadElement(arg))) fail(`${helper}(...) with spread arguments`);
    if (helper === "Arr") {
      if (args.length === 0 || args.length > 2) fail("Arr needs one element type and optional options");
      return withOptions(`z.array(${memberToZod(args[0]!)})`, optionsOf(args[1], helper, COMMON_OPTIONS));
    }
    if (helper === "Obj") {
      if (args.length === 0 || args.length > 2) fail("Obj needs one fields object and optional options");
      return withOptions(`z.object(${fieldsToZod(args[0]!)})`, optionsOf(args[1], helper, COMMON_OPTIONS));
    }
    if (args.length > 1) fail(`${helper} called with more than one argument`);
    if (helper === "Regex") {
      const options = optionsOf(args[0], helper, new Set([...COMMON_OPTIONS, "pattern", "patternError"]));
      const pattern = options.get("pattern") ?? fail("Regex without a literal pattern option");
      // chanfana 2's message for a mismatch, kept so answers stay the same.
      return withOptions(`z.string().regex(${pattern}, ${options.get("patternError") ?? '"Invalid"'})`, options);
    }
    if (helper === "Enumeration") {
      const options = optionsOf(args[0], helper, new Set([...COMMON_OPTIONS, "values", "enumCaseSensitive"]));
      const sensitive = options.get("enumCaseSensitive");
      if (sensitive !== undefined && sensitive !== "true") fail("Enumeration with enumCaseSensitive");
      const values = optionNodes.get("values");
      if (!values || !ts.isArrayLiteralExpression(values) || values.elements.some((e) => !ts.isStringLiteralLike(e))) {
        fail("Enumeration whose values are not a list of string literals (a mapping, or computed)");
      }
      return withOptions(`z.enum(${options.get("values")})`, options);
    }
    return withOptions(BASES[helper]!, optionsOf(args[0], helper, COMMON_OPTIONS));
  };

  // The nodes of the options object read last, for checks on their shape.
  let optionNodes = new Map<string, TS.Expression>();

  /** The options of a call as source text by name, from an object literal only. */
  const optionsOf = (node: TS.Expression | undefined, helper: string, allowed: Set<string>): Map<string, string> => {
    const texts = new Map<string, string>();
    optionNodes = new Map();
    if (node === undefined) return texts;
    if (!ts.isObjectLiteralExpression(node)) fail(`${helper} called with options that are not an object literal`);
    for (const property of (node as TS.ObjectLiteralExpression).properties) {
      if (
        !ts.isPropertyAssignment(property) ||
        !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
      ) {
        fail(`${helper} options with a spread, shorthand or computed property`);
      }
      const assignment = property as TS.PropertyAssignment;
      const name = (assignment.name as TS.Identifier | TS.StringLiteral).text;
      if (!allowed.has(name)) fail(`${helper} option '${name}' has no zod equivalent here`);
      texts.set(name, assignment.initializer.getText(source));
      optionNodes.set(name, assignment.initializer);
    }
    const required = optionNodes.get("required");
    if (
      required !== undefined &&
      required.kind !== ts.SyntaxKind.TrueKeyword &&
      required.kind !== ts.SyntaxKind.FalseKeyword
    ) {
      fail(`${helper} with a 'required' that is not true or false`);
    }
    if (optionNodes.get("default")?.kind === ts.SyntaxKind.UndefinedKeyword) fail(`${helper} with default: undefined`);
    return texts;
  };

  /** Chains the options in the order specroute's shims apply them, so the document is the same. */
  const withOptions = (base: string, options: Map<string, string>): string => {
    const metadata = ["example", "format", "deprecated"].filter((name) => options.has(name));
    let out = base;
    if (metadata.length > 0)
      out += `.openapi({ ${metadata.map((name) => `${name}: ${options.get(name)}`).join(", ")} })`;
    if (options.get("required") === "false") out += ".optional()";
    if (options.has("default")) out += `.default(${options.get("default")})`;
    if (options.has("description")) out += `.describe(${options.get("description")})`;
    return out;
  };

  /** An `Arr` element or `Obj` field: a helper (called or not), chanfana 2 shorthand, or any other schema as written. */
  const memberToZod = (node: TS.Expression): string => {
    if (ts.isParenthesizedExpression(node)) return memberToZod(node.expression);
    if (ts.isCallExpression(node)) {
      const helper = helperOf(node.expression);
      if (helper === undefined) return rewriteInside(node);
      try {
        return callToZod(node, helper);
      } catch (err) {
        // The shim still returns a zod schema, so the call can stay inside a rewritten parent.
        if (!(err instanceof Unmigratable)) throw err;
        noteUnmigratable(node, helper, err);
        return rewriteInside(node);
      }
    }
    const uncalled = helperOf(node);
    if (uncalled === "Regex" || uncalled === "Enumeration") fail(`${uncalled} passed uncalled`);
    if (uncalled !== undefined) return callToZod(ts.factory.createCallExpression(node, undefined, []), uncalled);
    if (ts.isIdentifier(node)) {
      const constructors: Record<string, string> = {
        String: "z.string()",
        Number: "z.number()",
        Boolean: "z.boolean()",
        Date: "z.iso.datetime()",
      };
      return constructors[node.text] ?? node.getText(source);
    }
    if (ts.isStringLiteralLike(node)) return `z.string().openapi({ example: ${node.getText(source)} })`;
    if (ts.isNumericLiteral(node)) return `z.number().openapi({ example: ${node.getText(source)} })`;
    if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
      return `z.boolean().openapi({ example: ${node.getText(source)} })`;
    }
    if (node.kind === ts.SyntaxKind.NullKeyword) return "z.string().optional()";
    if (ts.isArrayLiteralExpression(node)) {
      if (node.elements.length === 0) fail("Arr shorthand [] without an element type");
      return `z.array(${memberToZod(node.elements[0]!)})`;
    }
    if (ts.isObjectLiteralExpression(node)) return `z.object(${fieldsToZod(node)})`;
    return rewriteInside(node);
  };

  /** An object literal of fields, its layout kept, each value rewritten. */
  const fieldsToZod = (node: TS.Expression): string => {
    if (!ts.isObjectLiteralExpression(node)) fail("Obj called with fields that are not an object literal");
    const edits: Edit[] = [];
    for (const property of (node as TS.ObjectLiteralExpression).properties) {
      if (ts.isPropertyAssignment(property)) {
        edits.push(editOf(property.initializer, memberToZod(property.initializer)));
      } else if (ts.isShorthandPropertyAssignment(property)) {
        const value = memberToZod(property.name);
        if (value !== property.name.text) edits.push(editOf(property, `${property.name.text}: ${value}`));
      } else {
        fail("Obj fields with a spread, method or accessor");
      }
    }
    return editedText(node, edits);
  };

  const editOf = (node: TS.Node, replacement: string): Edit => ({
    start: node.getStart(source),
    end: node.getEnd(),
    text: replacement,
  });

  /** `node`'s text with the helper calls inside it rewritten (those that can be). */
  const rewriteInside = (node: TS.Node): string => editedText(node, collectEdits(node));

  // A source file's own start would skip its leading comments.
  const editedText = (node: TS.Node, edits: Edit[]): string =>
    applyEdits(text, edits, node === source ? 0 : node.getStart(source), node.getEnd());

  /** Edits for the outermost helper calls under `node`; an unmigratable call is noted and its arguments still visited. */
  const collectEdits = (node: TS.Node): Edit[] => {
    const edits: Edit[] = [];
    const visit = (child: TS.Node): void => {
      if (ts.isImportDeclaration(child)) return;
      if (ts.isCallExpression(child)) {
        const helper = helperOf(child.expression);
        if (helper !== undefined) {
          try {
            edits.push(editOf(child, callToZod(child, helper)));
            return;
          } catch (err) {
            if (!(err instanceof Unmigratable)) throw err;
            noteUnmigratable(child, helper, err);
            ts.forEachChild(child, visit);
            return;
          }
        }
      }
      ts.forEachChild(child, visit);
    };
    ts.forEachChild(node, visit);
    return edits;
  };
  const noteUnmigratable = (call: TS.CallExpression, helper: string, err: Error) =>
    notes.push({ line: lineOf(call), reason: `${err.message}; left as ${helper}(...)` });

  const edits = collectEdits(source);

  // A helper named anywhere but as a call cannot be rewritten here (it may be passed around).
  const findStrayUses = (node: TS.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (edits.some((edit) => node.getStart(source) >= edit.start && node.getEnd() <= edit.end)) return;
    if (ts.isIdentifier(node) && helpers.has(node.text)) {
      const called = ts.isCallExpression(node.parent) && node.parent.expression === node;
      if (!called) notes.push({ line: lineOf(node), reason: `${node.text} used other than as a call; left as is` });
    }
    ts.forEachChild(node, findStrayUses);
  };
  findStrayUses(source);

  const body = editedText(source, edits);
  return { text: rewriteImports(ts, fileName, body, helpers, edits.length > 0), notes: uniqueByLine(notes) };
}

/**
 * Points the chanfana import at specroute and drops the helpers the rewritten `text` no longer
 * names (those it still names stay: the deprecated shims); adds zod's `z` when `needsZod`.
 */
function rewriteImports(
  ts: Ts,
  fileName: string,
  text: string,
  helpers: Map<string, string>,
  needsZod: boolean,
): string {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const stillUsed = new Set<string>();
  const findUses = (node: TS.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node) && helpers.has(node.text)) stillUsed.add(node.text);
    ts.forEachChild(node, findUses);
  };
  findUses(source);

  const edits: Edit[] = [];
  const replace = (node: TS.Node, replacement: string) =>
    edits.push({ start: node.getStart(source), end: node.getEnd(), text: replacement });
  const removed = new Map<TS.Node, Edit>();
  for (const declaration of source.statements) {
    if (!ts.isImportDeclaration(declaration) || !ts.isStringLiteral(declaration.moduleSpecifier)) continue;
    const specifier = declaration.moduleSpecifier;
    if (![OLD_PACKAGE, NEW_PACKAGE].includes(specifier.text)) continue;
    const bindings = declaration.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && !declaration.importClause?.isTypeOnly) {
      const kept = bindings.elements.filter(
        (element) => !helpers.has(element.name.text) || stillUsed.has(element.name.text),
      );
      if (kept.length === 0 && !declaration.importClause?.name) {
        // Nothing left to import: the whole line goes.
        const end = text[declaration.getEnd()] === "\n" ? declaration.getEnd() + 1 : declaration.getEnd();
        const removal = { start: declaration.getStart(source), end, text: "" };
        edits.push(removal);
        removed.set(declaration, removal);
        continue;
      }
      if (kept.length !== bindings.elements.length) {
        replace(bindings, `{ ${kept.map((element) => element.getText(source)).join(", ")} }`);
      }
    }
    if (specifier.text === OLD_PACKAGE) {
      const quote = specifier.getText(source)[0];
      replace(specifier, `${quote}${NEW_PACKAGE}${quote}`);
    }
  }
  if (needsZod && !importsZod(ts, source)) {
    const last = source.statements.filter((statement) => ts.isImportDeclaration(statement)).at(-1)!;
    const removal = removed.get(last);
    // zod's import takes the place of a removed last import, else goes after it.
    if (removal) removal.text = 'import { z } from "zod";\n';
    else edits.push({ start: last.getEnd(), end: last.getEnd(), text: '\nimport { z } from "zod";' });
  }
  return applyEdits(text, edits);
}

/** `text` from `start` to `end` with `edits` (within that range, none overlapping) made. */
function applyEdits(text: string, edits: readonly Edit[], start = 0, end = text.length): string {
  let out = "";
  let at = start;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at, end);
}

function importsZod(ts: Ts, source: TS.SourceFile): boolean {
  return source.statements.some((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return false;
    if (statement.moduleSpecifier.text !== "zod") return false;
    const bindings = statement.importClause?.namedBindings;
    return !!bindings && ts.isNamedImports(bindings) && bindings.elements.some((element) => element.name.text === "z");
  });
}

/** Notes in line order, each once (a call inside another unmigratable call is seen twice). */
function uniqueByLine<T extends { line: number; reason: string }>(notes: T[]): T[] {
  const seen = new Set<string>();
  return notes
    .filter((note) => !seen.has(`${note.line}:${note.reason}`) && !!seen.add(`${note.line}:${note.reason}`))
    .sort((a, b) => a.line - b.line);
}

export const MIGRATE_USAGE = `Usage: specroute migrate <dir> [--write]

Rewrites the sources under <dir> from chanfana 2/3 to specroute: the import line names "specroute",
and chanfana 2 helper calls (Str, Int, Enumeration, Arr, Obj, ...) become native zod. Prints a
unified diff and changes nothing unless --write is given. Calls it cannot rewrite exactly are
listed on stderr with file and line; they keep working through specroute's deprecated helpers.
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
  if (positionals.length !== 1) throw new CliError("usage: specroute migrate <dir> [--write]");
  const result = await migrate(positionals[0]!, { write, cwd: io.cwd });
  if (!write) io.stdout.write(result.diff);
  for (const note of result.notes) io.stderr.write(`${note.file}:${note.line}: ${note.reason}\n`);
  const files = result.changedFiles.length;
  io.stderr.write(
    `specroute migrate: ${files} file${files === 1 ? "" : "s"} ${write ? "rewritten" : "to rewrite (dry run; --write applies)"}, ` +
      `${result.notes.length} call${result.notes.length === 1 ? "" : "s"} left for you\n`,
  );
}
