import type * as TS from "typescript";
import {
  type Edit,
  insertionAt,
  lineOf,
  type NeededImport,
  type ParsedFile,
  type Ts,
  unwrapped,
} from "./migrate-edits";

export const HTTP_EXCEPTION_IMPORT: NeededImport = { name: "HTTPException", module: "hono/http-exception" };

/** A handler that names HTTPException, or duck-types its getResponse(), already answers framework errors. */
const KNOWS_HTTP_EXCEPTION = /\bHTTPException\b|\bgetResponse\b/;

const GUARDED =
  "onError now answers an HTTPException with its getResponse() (a validation failure's 400) before its own handling";
/** What to do by hand for a handler `migrate` cannot change. */
export const NOT_GUARDED =
  "make it return err.getResponse() for an HTTPException, or validation failures answer what it does";

type Handler = TS.FunctionDeclaration | TS.ArrowFunction | TS.FunctionExpression;

/** An onError handler a file imports from another of the app's modules, by that module's specifier and export. */
export interface ImportedHandler {
  specifier: string;
  exported: string;
  line: number;
}

/**
 * Edits that make each onError handler in the file answer an HTTPException with its own response
 * before anything else: specroute throws a validation failure to onError as one (chanfana 2 answered
 * it itself), and a handler that knows only the app's errors would make it a 500. The handlers are
 * those the file passes to onError, and `exported`, its exports other files pass to it. Each
 * change is reported; a handler it cannot find or change is noted.
 */
export function onErrorEdits(file: ParsedFile, exported: ReadonlySet<string>): Edit[] {
  const { ts, source } = file;
  const handlers = new Set<Handler>();
  for (const argument of onErrorArguments(ts, source)) {
    const inner = unwrapped(ts, argument);
    const handler = isHandler(ts, inner)
      ? inner
      : ts.isIdentifier(inner)
        ? localFunction(ts, source, inner.text)
        : undefined;
    if (handler) handlers.add(handler);
    // One imported from the app's own modules is changed there (migrate finds it first).
    else if (!(ts.isIdentifier(inner) && isRelative(importOf(ts, source, inner.text)?.specifier))) {
      file.notes.push({
        line: lineOf(source, argument),
        reason: `onError handler '${argument.getText(source)}' is not a function of the app's: ${NOT_GUARDED}`,
      });
    }
  }
  for (const name of exported) {
    const handler = exportedFunction(ts, source, name);
    if (handler) handlers.add(handler);
    else file.notes.push({ line: 1, reason: `onError handler exported as '${name}' not found: ${NOT_GUARDED}` });
  }
  return [...handlers].flatMap((handler) => guardEdits(file, handler));
}

/** The handlers the file passes to onError that it imports from the app's own modules (relative specifiers). */
export function importedOnErrorHandlers(ts: Ts, source: TS.SourceFile): ImportedHandler[] {
  return onErrorArguments(ts, source).flatMap((argument) => {
    const inner = unwrapped(ts, argument);
    const imported = ts.isIdentifier(inner) ? importOf(ts, source, inner.text) : undefined;
    return imported && isRelative(imported.specifier) ? [{ ...imported, line: lineOf(source, argument) }] : [];
  });
}

/** The arguments of the `x.onError(handler)` calls of a file that imports Hono, chanfana or specroute. */
function onErrorArguments(ts: Ts, source: TS.SourceFile): TS.Expression[] {
  const found: TS.Expression[] = [];
  const usesHono = source.statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      /^(?:hono(?:\/.*)?|chanfana|specroute)$/.test(statement.moduleSpecifier.text),
  );
  if (!usesHono) return found;
  const visit = (node: TS.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "onError" &&
      node.arguments.length === 1
    ) {
      found.push(node.arguments[0]!);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The edit putting the HTTPException guard first in `handler`, reported; none if it knows HTTPException already. */
function guardEdits(file: ParsedFile, handler: Handler): Edit[] {
  const { ts, source } = file;
  const [parameter] = handler.parameters;
  if (!handler.body || KNOWS_HTTP_EXCEPTION.test(handler.getText(source))) return [];
  if (!parameter || !ts.isIdentifier(parameter.name)) {
    file.notes.push({ line: lineOf(source, handler), reason: `onError handler without a named error: ${NOT_GUARDED}` });
    return [];
  }
  file.changes.push({ line: lineOf(source, handler), reason: GUARDED });
  return [{ ...guardInsertion(file, handler.body, parameter.name.text), needs: HTTP_EXCEPTION_IMPORT }];
}

function guardInsertion(file: ParsedFile, body: TS.ConciseBody, error: string): Edit {
  const { ts, source } = file;
  if (!ts.isBlock(body)) {
    return insertionAt(body.getStart(source), `${error} instanceof HTTPException ? ${error}.getResponse() : `);
  }
  const guard = `if (${error} instanceof HTTPException) return ${error}.getResponse();`;
  const [first] = body.statements;
  if (first === undefined) return insertionAt(body.getStart(source) + 1, ` ${guard} `);
  const start = first.getStart(source);
  const indent = source.text.slice(source.text.lastIndexOf("\n", start - 1) + 1, start);
  // A body written on the line of its `{` stays on one line.
  return insertionAt(start, /^\s*$/.test(indent) ? `${guard}\n${indent}` : `${guard} `);
}

function isHandler(ts: Ts, node: TS.Node): node is Handler {
  return ts.isArrowFunction(node) || ts.isFunctionExpression(node);
}

/** The top-level function declared in `source` as `name`: `function name() {}` or `const name = () => {}`. */
function localFunction(ts: Ts, source: TS.SourceFile, name: string): Handler | undefined {
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name && statement.body) return statement;
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const value = declaration.initializer && unwrapped(ts, declaration.initializer);
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name && value && isHandler(ts, value)) {
        return value;
      }
    }
  }
  return undefined;
}

/** The function `source` exports as `exported` ("default" for its default export). */
function exportedFunction(ts: Ts, source: TS.SourceFile, exported: string): Handler | undefined {
  for (const statement of source.statements) {
    if (exported === "default" && ts.isExportAssignment(statement) && !statement.isExportEquals) {
      const value = unwrapped(ts, statement.expression);
      if (isHandler(ts, value)) return value;
      return ts.isIdentifier(value) ? localFunction(ts, source, value.text) : undefined;
    }
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    if (
      exported === "default" &&
      ts.isFunctionDeclaration(statement) &&
      modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword)
    ) {
      return statement;
    }
    const clause = ts.isExportDeclaration(statement) && !statement.moduleSpecifier ? statement.exportClause : undefined;
    const element = clause && ts.isNamedExports(clause) && clause.elements.find((e) => e.name.text === exported);
    if (element) return localFunction(ts, source, (element.propertyName ?? element.name).text);
  }
  return exported === "default" ? undefined : localFunction(ts, source, exported);
}

/** The module and exported name of the import that binds `name` in `source`. */
function importOf(ts: Ts, source: TS.SourceFile, name: string): Omit<ImportedHandler, "line"> | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    if (clause?.name?.text === name) return { specifier, exported: "default" };
    const bindings = clause?.namedBindings;
    const element = bindings && ts.isNamedImports(bindings) && bindings.elements.find((e) => e.name.text === name);
    if (element) return { specifier, exported: (element.propertyName ?? element.name).text };
  }
  return undefined;
}

function isRelative(specifier: string | undefined): boolean {
  return specifier?.startsWith("./") === true || specifier?.startsWith("../") === true;
}
