/** The lines of a unified diff between `before` and `after` of one file; empty when they are equal. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const a = before.split("\n");
  const b = after.split("\n");
  const ops = lineOps(a, b);
  const hunks: string[] = [];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === " ") {
      i++;
      continue;
    }
    // A hunk runs from `context` lines before the first change to `context` lines after the last change near it.
    const start = Math.max(0, i - context);
    let end = i;
    while (end < ops.length) {
      let next = end;
      while (next < ops.length && ops[next]!.kind !== " ") next++;
      let gap = next;
      while (gap < ops.length && ops[gap]!.kind === " ") gap++;
      if (gap >= ops.length || gap - next > 2 * context) {
        end = Math.min(ops.length, next + context);
        break;
      }
      end = gap;
    }
    const slice = ops.slice(start, end);
    const first = slice[0]!;
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    hunks.push(
      `@@ -${oldCount === 0 ? first.oldLine : first.oldLine + 1},${oldCount} +${newCount === 0 ? first.newLine : first.newLine + 1},${newCount} @@\n` +
        slice.map((op) => `${op.kind}${op.text}\n`).join(""),
    );
    i = end;
  }
  return `--- a/${path}\n+++ b/${path}\n${hunks.join("")}`;
}

interface LineOp {
  kind: " " | "-" | "+";
  text: string;
  /** Lines of each side before this one. */
  oldLine: number;
  newLine: number;
}

// A longest-common-subsequence table; source files are small enough for the quadratic cost.
function lineOps(a: readonly string[], b: readonly string[]): LineOp[] {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: LineOp[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i]!, oldLine: i++, newLine: j++ });
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      ops.push({ kind: "-", text: a[i]!, oldLine: i++, newLine: j });
    } else {
      ops.push({ kind: "+", text: b[j]!, oldLine: i, newLine: j++ });
    }
  }
  return ops;
}
