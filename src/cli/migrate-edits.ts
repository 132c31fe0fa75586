import type * as TS from "typescript";

/** The TypeScript compiler API `migrate` parses with. */
export type Ts = typeof TS;

/** A replacement of `text[start, end)`; an insertion when start and end are equal. */
export interface Edit {
  start: number;
  end: number;
  text: string;
  /** The import the replacement's text names, added to the file when it lacks it. */
  needs?: NeededImport;
}

export interface NeededImport {
  name: string;
  module: string;
}

/** A line of `migrate`'s report about one file: a call it left, or a change the diff alone would not explain. */
export interface Note {
  line: number;
  reason: string;
}

/** One file being rewritten: its parse, and what is reported about it, in the order it was met. */
export interface ParsedFile {
  ts: Ts;
  source: TS.SourceFile;
  /** What was left for the user to do. */
  notes: Note[];
  /** What was changed and needs saying. */
  changes: Note[];
}

export function lineOf(source: TS.SourceFile, node: TS.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

export function editOf(source: TS.SourceFile, node: TS.Node, replacement: string): Edit {
  return { start: node.getStart(source), end: node.getEnd(), text: replacement };
}

export function insertionAt(position: number, text: string): Edit {
  return { start: position, end: position, text };
}

/** `node` without the parentheses, `as`, `satisfies` and `<T>` casts around it. */
export function unwrapped(ts: Ts, node: TS.Expression): TS.Expression {
  let inner = node;
  while (
    ts.isParenthesizedExpression(inner) ||
    ts.isAsExpression(inner) ||
    ts.isSatisfiesExpression(inner) ||
    ts.isTypeAssertionExpression(inner)
  ) {
    inner = inner.expression;
  }
  return inner;
}

/** `text` from `start` to `end` with `edits` (within that range, none overlapping) made. */
export function applyEdits(text: string, edits: readonly Edit[], start = 0, end = text.length): string {
  let out = "";
  let at = start;
  // An insertion goes before a replacement starting where it is.
  for (const edit of [...edits].sort((a, b) => a.start - b.start || a.end - b.end)) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at, end);
}
