import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");
const SEAM = "schema/";

// What reading a schema library's internals looks like: zod's `_zod` member, or a `.def` (its definition).
const INTERNALS = /_zod|\.def\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the schema seam", () => {
  it("is the only part of src/ that reads `_zod` or `.def`", () => {
    const readers: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file).replaceAll("\\", "/");
      if (name.startsWith(SEAM)) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (INTERNALS.test(line)) readers.push(`src/${name}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(readers).toEqual([]);
  });

  it("finds a reader where there is one (the pattern is not dead)", () => {
    expect(INTERNALS.test("const def = (schema as any)._zod.def;")).toBe(true);
    expect(INTERNALS.test("schema.def.type")).toBe(true);
    expect(INTERNALS.test("const definition = schema.definition;")).toBe(false);
  });
});
