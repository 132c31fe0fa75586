import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as specroute from "../../src";
import { CHANFANA_TYPE_EXPORTS, CHANFANA_VALUE_EXPORTS } from "./fixtures/chanfana-3.3-exports";

const root = join(__dirname, "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** Names the migration guide says specroute does not provide: the `- \`Name\`` bullets between its markers. */
function notProvided(): string[] {
  const guide = read("docs/migrating-from-chanfana.md");
  const block = /<!-- chanfana-exports-not-provided:start -->([\s\S]*?)<!-- chanfana-exports-not-provided:end -->/.exec(
    guide,
  );
  if (!block) throw new Error("docs/migrating-from-chanfana.md lost its chanfana-exports-not-provided markers");
  return [...block[1]!.matchAll(/^- `([A-Za-z0-9_$]+)`/gm)].map((match) => match[1]!);
}

/** The names test/types/chanfana-types.test-d.ts imports from the package root (tsc proves they compile). */
function typeTestImports(): Set<string> {
  const source = read("test/types/chanfana-types.test-d.ts");
  const list = /import \{([^}]*)\} from "\.\.\/\.\.\/src";/.exec(source)?.[1] ?? "";
  return new Set(
    list
      .split(",")
      .map((name) => name.replace(/^\s*type\s+/, "").trim())
      .filter(Boolean),
  );
}

const runtimeExports = new Set(Object.keys(specroute));
const rootSource = read("src/index.ts");
const namedInRoot = (name: string) => new RegExp(`\\b${name}\\b`).test(rootSource);

describe("specroute's package root covers chanfana 3.3's", () => {
  const excused = new Set(notProvided());

  it("exports every value chanfana exports (classes, functions), at runtime", () => {
    const missing = CHANFANA_VALUE_EXPORTS.filter((name) => !excused.has(name) && !runtimeExports.has(name));
    expect(missing).toEqual([]);
  });

  it("exports every type chanfana exports, imported by the type test that tsc checks", () => {
    const imported = typeTestImports();
    const missing = CHANFANA_TYPE_EXPORTS.filter((name) => !excused.has(name) && !imported.has(name));
    expect(missing).toEqual([]);
  });

  it("lists in the migration guide only chanfana names that specroute really lacks", () => {
    const chanfana = new Set<string>([...CHANFANA_VALUE_EXPORTS, ...CHANFANA_TYPE_EXPORTS]);
    const listed = notProvided();
    expect(listed.filter((name) => !chanfana.has(name))).toEqual([]);
    expect(listed.filter((name) => runtimeExports.has(name) || namedInRoot(name))).toEqual([]);
  });
});
