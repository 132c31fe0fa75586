import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEGACY_HOSTNAME_PATTERN } from "../../src/chanfana/legacy-parameters";
import { migrateSource } from "../../src/cli/migrate";
import { ROOT, runCli } from "./run-cli";

const FIXTURE = join(ROOT, "test/cli/fixtures/chanfana2-app");
const FILES = ["tasks.ts", "app.ts"];
const HELPER_CALL =
  /\b(?:Str|Num|Int|Bool|DateTime|DateOnly|Email|Uuid|Ip|Ipv4|Ipv6|Hostname|Regex|Enumeration|Arr|Obj)\(/;

let base: string;
/** The app `migrate` rewrites. */
let app: string;
/** The same app untouched, its import pointed at specroute, running on the deprecated helper shims. */
let original: string;

const cli = (...argv: string[]) => runCli(argv, base);

const read = (dir: string, file: string) => readFile(join(dir, file), "utf8");

/** The 1-based lines of `file` in the fixture that contain `text`. */
async function fixtureLine(file: string, text: string): Promise<number> {
  const lines = (await readFile(join(FIXTURE, `${file}.fixture`), "utf8")).split("\n");
  return lines.findIndex((line) => line.includes(text)) + 1;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "specroute-migrate-"));
  app = join(base, "app");
  original = join(base, "original");
  await mkdir(app);
  await mkdir(original);
  for (const file of FILES) {
    await copyFile(join(FIXTURE, `${file}.fixture`), join(app, file));
    const text = await readFile(join(FIXTURE, `${file}.fixture`), "utf8");
    await writeFile(join(original, file), text.replace('from "chanfana"', 'from "specroute"'));
  }
  // zod and hono resolve from the temp dirs as from a project; migrate must skip node_modules.
  await symlink(join(ROOT, "node_modules"), join(base, "node_modules"));
  await symlink(join(ROOT, "node_modules"), join(app, "node_modules"));
  // A chanfana file outside the directory, reachable through a symlink inside it.
  await writeFile(join(base, "outside.ts"), 'import { Str } from "chanfana";\nexport const name = Str();\n');
  await symlink(join(base, "outside.ts"), join(app, "linked.ts"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("specroute migrate", () => {
  it("prints a diff and the calls it leaves, changing nothing, by default", async () => {
    const { code, stdout, stderr } = await cli("migrate", "app");
    expect(code).toBe(0);
    expect(stdout).toContain("--- a/app.ts\n+++ b/app.ts\n");
    expect(stdout).toContain('-import { fromHono } from "chanfana";\n+import { fromHono } from "specroute";\n');
    expect(stdout).toContain('+  name: z.string().openapi({ example: "write docs" }).describe("Task name"),\n');
    expect(stdout).toContain('+import { z } from "zod";\n');
    expect(stdout).not.toContain("linked.ts");
    expect(stderr).toContain("2 files to rewrite (dry run; --write applies), 2 calls left for you");
    for (const file of FILES)
      expect(await read(app, file)).toBe(await readFile(join(FIXTURE, `${file}.fixture`), "utf8"));
  });

  it("with --write rewrites imports and helper calls, and names file:line of each call it left", async () => {
    const { code, stdout, stderr } = await cli("migrate", "app", "--write");
    expect(code).toBe(0);
    expect(stdout).toBe("");
    const ownerLine = await fixtureLine("tasks.ts", "Email(ownerOptions)");
    const priorityLine = await fixtureLine("tasks.ts", "values: priorities");
    expect(stderr).toContain(`tasks.ts:${ownerLine}: Email called with options that are not an object literal`);
    expect(stderr).toContain(`tasks.ts:${priorityLine}: Enumeration whose values are not a list of string literals`);
    expect(stderr).toContain("2 files rewritten, 2 calls left for you");

    expect(await read(app, "app.ts")).toContain('import { fromHono } from "specroute";');
    const tasks = await read(app, "tasks.ts");
    expect(tasks).toContain('import { contentJson, Email, Enumeration, OpenAPIRoute } from "specroute";');
    expect(tasks).not.toContain('from "chanfana"');
    const leftCalls = tasks.split("\n").filter((line) => HELPER_CALL.test(line) && !line.startsWith("//"));
    expect(leftCalls.map((line) => line.trim())).toEqual([
      "owner: Email(ownerOptions),",
      "priority: Enumeration({ values: priorities, required: false }),",
    ]);

    // A second run finds nothing left to rewrite.
    const again = await cli("migrate", "app");
    expect(again.stdout).toBe("");
  });

  it("never touches a file outside the directory, even through a symlink", async () => {
    expect(await readFile(join(base, "outside.ts"), "utf8")).toContain('from "chanfana"');
  });

  it("leaves an app that typechecks against specroute", () => {
    const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
    const program = ts.createProgram({ rootNames: FILES.map((file) => join(app, file)), options });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName.startsWith(app))
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    expect(errors).toEqual([]);
  }, 120_000);

  it("documents and answers as the app did before", async () => {
    const before = await import(pathToFileURL(join(original, "app.ts")).href);
    const after = await import(pathToFileURL(join(app, "app.ts")).href);
    const document = after.openapi.getGeneratedSchema();
    expect(document).toEqual(before.openapi.getGeneratedSchema());
    expect(document.paths["/tasks"].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      "page",
      "order",
      "verbose",
      "id",
    ]);

    const task = { name: "write docs", owner: "ada@example.com", due: "2026-01-20T10:30:00Z", labels: [] };
    const requests: [string, RequestInit?][] = [
      ["/tasks"],
      ["/tasks?page=2&order=desc&verbose=true"],
      ["/tasks?order=sideways"],
      ["/tasks?id=not-a-uuid"],
      ["/tasks", { method: "POST", body: JSON.stringify(task), headers: { "content-type": "application/json" } }],
      [
        "/tasks",
        {
          method: "POST",
          body: JSON.stringify({ ...task, owner: "nobody", reviewers: ["x"] }),
          headers: { "content-type": "application/json" },
        },
      ],
    ];
    const statuses: number[] = [];
    for (const [path, init] of requests) {
      const [was, is] = [await before.app.request(path, init), await after.app.request(path, init)];
      statuses.push(is.status);
      expect({ path, status: is.status, body: await is.json() }).toEqual({
        path,
        status: was.status,
        body: await was.json(),
      });
    }
    expect(statuses).toEqual([200, 200, 400, 400, 200, 400]);
    const created = await after.app.request(requests[4]![0], requests[4]![1]);
    expect(await created.json()).toEqual({ ...task, done: false, size: 1 });
  });

  it("explains its usage and refuses a missing directory", async () => {
    expect((await cli("migrate", "--help")).stdout).toContain("Usage: specroute migrate <dir> [--write]");
    const missing = await cli("migrate", "no-such-dir");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("specroute: cannot read directory 'no-such-dir'\n");
  });
});

describe("specroute migrate and the TypeScript installed", () => {
  /** TypeScript 7 as `npm i -D typescript` installs it today, in its own project (see its package.json). */
  const typescript7 = join(ROOT, "test/cli/typescript-7/node_modules/typescript");

  /** A project with TypeScript 7 and the chanfana app to migrate; `packages` are linked into its node_modules too. */
  async function projectWithTypescript7(name: string, packages: Record<string, string> = {}): Promise<string> {
    const project = join(base, name);
    await mkdir(join(project, "app"), { recursive: true });
    await copyFile(join(FIXTURE, "app.ts.fixture"), join(project, "app", "app.ts"));
    for (const [packageName, target] of Object.entries({ typescript: typescript7, ...packages })) {
      const link = join(project, "node_modules", packageName);
      await mkdir(dirname(link), { recursive: true });
      await symlink(target, link);
    }
    return project;
  }

  it("with TypeScript 7, which has no compiler API, says which TypeScript it needs and how to add it", async () => {
    const { version } = JSON.parse(await readFile(join(typescript7, "package.json"), "utf8"));
    expect(version).toMatch(/^7\./);
    const result = await runCli(["migrate", "app"], await projectWithTypescript7("typescript-7-only"));
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `specroute: specroute migrate needs the compiler API of TypeScript 5.x or 6.x, which typescript ${version} ` +
        "does not have (TypeScript 7 ships none): add TypeScript 6's beside it with npm install -D @typescript/typescript6\n",
    });
  });

  it("with TypeScript 7, uses the compiler API installed beside it as @typescript/typescript6", async () => {
    // The repository's TypeScript 5.9 stands in for TypeScript 6 there (the same API): the real package
    // cannot be a devDependency, as the typescript@6 it brings would take over node_modules/.bin/tsc.
    const project = await projectWithTypescript7("typescript-7-and-6", {
      "@typescript/typescript6": join(ROOT, "node_modules", "typescript"),
    });
    const result = await runCli(["migrate", "app"], project);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('-import { fromHono } from "chanfana";\n+import { fromHono } from "specroute";\n');
  });
});

describe("migrateSource", () => {
  const rewrite = (text: string) => migrateSource(ts, "file.ts", text);

  it("changes only the import of a chanfana 3 file without helpers, adding no zod import", () => {
    const text = '// app\nimport { fromHono, OpenAPIRoute } from "chanfana";\nimport { z } from "zod";\n';
    expect(rewrite(text)).toEqual({
      text: '// app\nimport { fromHono, OpenAPIRoute } from "specroute";\nimport { z } from "zod";\n',
      notes: [],
    });
  });

  it("rewrites every helper into the zod its shim builds, options in the shim's order", () => {
    const { text, notes } = rewrite(
      [
        'import { Num, DateOnly, Ip, Ipv4, Hostname, Regex, Str as S, Enumeration } from "chanfana";',
        "export const a = Num({ description: 'n', deprecated: true, required: false });",
        'export const b = DateOnly({ example: "2024-01-20" });',
        "export const c = Ip();",
        "export const d = Ipv4({ default: '127.0.0.1' });",
        "export const e = Hostname();",
        'export const f = Regex({ pattern: /^[a-z]+$/, patternError: "lower case" });',
        "export const g = Regex({ pattern: /^x$/ });",
        "export const h = S({ required: true, default: '' });",
        'export const i = Enumeration({ values: ["a"], enumCaseSensitive: true });',
      ].join("\n"),
    );
    expect(notes).toEqual([]);
    expect(text.split("\n")).toEqual([
      'import { z } from "zod";',
      "export const a = z.number().openapi({ deprecated: true }).optional().describe('n');",
      'export const b = z.iso.date().openapi({ example: "2024-01-20" });',
      "export const c = z.union([z.ipv4(), z.ipv6()]);",
      "export const d = z.ipv4().default('127.0.0.1');",
      `export const e = z.string().regex(/${LEGACY_HOSTNAME_PATTERN.source}/);`,
      'export const f = z.string().regex(/^[a-z]+$/, "lower case");',
      'export const g = z.string().regex(/^x$/, "Invalid");',
      "export const h = z.string().default('');",
      'export const i = z.enum(["a"]);',
    ]);
  });

  it("leaves and reports what it cannot rewrite exactly, keeping those helpers imported", () => {
    const { text, notes } = rewrite(
      [
        'import { Str, Int, Enumeration } from "chanfana";',
        "const options = { required: false };",
        "export const a = Str(options);",
        "export const b = Int({ required: flag });",
        'export const c = Enumeration({ values: ["a"], enumCaseSensitive: false });',
        "export const d = [Str].map((helper) => helper());",
        "export const e = Int({ ...options });",
      ].join("\n"),
    );
    expect(text.split("\n")[0]).toBe('import { Str, Int, Enumeration } from "specroute";');
    expect(notes).toEqual([
      { line: 3, reason: "Str called with options that are not an object literal; left as Str(...)" },
      { line: 4, reason: "Int with a 'required' that is not true or false; left as Int(...)" },
      { line: 5, reason: "Enumeration with enumCaseSensitive; left as Enumeration(...)" },
      { line: 6, reason: "Str used other than as a call; left as is" },
      { line: 7, reason: "Int options with a spread, shorthand or computed property; left as Int(...)" },
    ]);
  });
});
