import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** An error the CLI reports as one line on stderr, with exit code 1 and no stack trace. */
export class CliError extends Error {
  override name = "CliError";
}

/** An error's message on one line (esbuild and zod put the useful part on later lines). */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const text = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
  return text || (err instanceof Error ? err.name : "(no message)");
}

/** `file.ts:3:7` of the first stack frame outside Node's internals, relative to `cwd`, if there is one. */
export function errorLocation(err: unknown, cwd: string): string | undefined {
  if (!(err instanceof Error) || typeof err.stack !== "string") return undefined;
  for (const frame of err.stack.split("\n")) {
    const match = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(frame);
    if (!match) continue;
    const [, where, line, column] = match;
    let file = where!;
    if (file.startsWith("file://")) file = fileURLToPath(file.replace(/\?.*$/, ""));
    if (!isAbsolute(file)) continue;
    return `${relative(cwd, file) || file}:${line}:${column}`;
  }
  return undefined;
}
