import type { Logger } from "../../src";

/** A Logger that keeps what each level was given, in order. */
export function recordingLogger(): Logger & { lines: Record<string, unknown[][]> } {
  const lines: Record<string, unknown[][]> = {};
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      lines[level] ??= [];
      lines[level].push(args);
    };
  return {
    lines,
    log: at("log"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    debug: at("debug"),
    trace: at("trace"),
  };
}
