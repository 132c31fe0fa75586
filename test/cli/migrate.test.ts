import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hono } from "hono";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ZodType } from "zod";
import { LEGACY_HOSTNAME_PATTERN } from "../../src/chanfana/legacy-parameters";
import { migrateSource } from "../../src/cli/migrate";
import { ROOT, runCli } from "./run-cli";

const FIXTURE = join(ROOT, "test/cli/fixtures/chanfana2-app");
const FILES = ["tasks.ts", "notes.ts", "errors.ts", "schemas.ts", "app.ts"];
const HELPER_CALL =
  /\b(?:Str|Num|Int|Bool|DateTime|DateOnly|Email|Uuid|Ip|Ipv4|Ipv6|Hostname|Regex|Enumeration|Arr|Obj)\(/;

let base: string;
/** The app `migrate` rewrites. */
let app: string;
/** The same app untouched, its import pointed at specroute, running on the deprecated helper shims. */
let original: string;

const cli = (...argv: string[]) => runCli(argv, base);

/** What migrate reports of each onError handler it changes. */
const GUARDED =
  "onError now answers an HTTPException with its getResponse() (a validation failure's 400) before its own handling";

const TASK = { name: "write docs", owner: "ada@example.com", due: "2026-01-20T10:30:00Z", labels: [] };
const NOTE = { title: "groceries", tags: { shop: "corner" } };
const post = (body: unknown): RequestInit => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});
/** Requests to the fixture app, each with the status the migrated app answers it with. */
const REQUESTS: [path: string, init: RequestInit | undefined, status: number][] = [
  ["/tasks", undefined, 200],
  ["/tasks?page=2&order=desc&verbose=true", undefined, 200],
  ["/tasks?order=sideways", undefined, 400],
  ["/tasks?id=not-a-uuid", undefined, 400],
  ["/tasks", post(TASK), 200],
  ["/tasks", post({ ...TASK, owner: "nobody", reviewers: ["x"] }), 400],
  ["/notes", post(NOTE), 200],
  ["/notes", post({ ...NOTE, tags: { shop: 1 } }), 400],
  ["/notes/7", undefined, 404],
  ["/notes/seven", undefined, 400],
];

/** What `app` answers a request with. */
async function answer(app: Hono, path: string, init?: RequestInit) {
  const response = await app.request(path, init);
  return { path, status: response.status, body: await response.json() };
}

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
    expect(stdout).toContain("+  tags: z.record(z.string(), z.string()).optional(),\n");
    expect(stdout).not.toContain("linked.ts");
    expect(stdout).not.toContain("errors.ts");
    expect(stderr).toContain("4 files to rewrite (dry run; --write applies), 2 calls left for you");
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
    const onErrorLine = await fixtureLine("app.ts", "app.onError(");
    expect(stderr).toContain(`app.ts:${onErrorLine}: ${GUARDED}`);
    expect(stderr).toContain("4 files rewritten, 2 calls left for you");

    const appSource = await read(app, "app.ts");
    expect(appSource).toContain('import { fromHono } from "specroute";');
    expect(appSource).toContain(
      'import { HTTPException } from "hono/http-exception";\n\nexport const app = new Hono();\n' +
        "app.onError((err, c) => {\n  if (err instanceof HTTPException) return err.getResponse();\n" +
        "  if (err instanceof NotFoundError)",
    );
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

  it("documents as the untouched app, and answers as it did but for the validation failures its onError made 500s", async () => {
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
    for (const [path, init, status] of REQUESTS) {
      const [was, is] = [await answer(before.app, path, init), await answer(after.app, path, init)];
      // Untouched, its onError answers the HTTPException a validation failure reaches it as with a 500.
      if (status === 400) expect(was).toEqual({ path, status: 500, body: { error: "Internal" } });
      else expect(is).toEqual(was);
    }
  });

  describe.each([
    ["the latest zod", "zod"],
    ["zod 4.1, the lowest the peer range allows", "zod-lowest"],
  ])("the migrated app, run unedited on %s", (_, zodPackage) => {
    let migrated: { app: Hono; openapi: { getGeneratedSchema(): { paths: Record<string, object> } } };

    beforeAll(async () => {
      vi.resetModules();
      if (zodPackage === "zod") vi.doUnmock("zod");
      else vi.doMock("zod", async () => await import("zod-lowest"));
      migrated = await import(pathToFileURL(join(app, "app.ts")).href);
    });

    afterAll(() => {
      vi.doUnmock("zod");
      vi.resetModules();
    });

    it(`is on ${zodPackage}: only zod 4.1's schemas lack ~standard.jsonSchema`, async () => {
      // Without this, a mock that did not apply would run the lowest zod's tests on the newest.
      const { z } = await import("zod");
      const standard = (z.string() as unknown as { "~standard": Record<string, unknown> })["~standard"];
      expect(standard.jsonSchema === undefined).toBe(zodPackage === "zod-lowest");
    });

    it("documents every operation", () => {
      const { paths } = migrated.openapi.getGeneratedSchema();
      const operations = Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations).toEqual(["GET /tasks", "POST /tasks", "POST /notes", "GET /notes/{id}"]);
    });

    it("answers validation failures 400 in specroute's envelope, and its own errors through its onError", async () => {
      const answers = [];
      for (const [path, init] of REQUESTS) answers.push(await answer(migrated.app, path, init));
      expect(answers.map(({ path, status }) => ({ path, status }))).toEqual(
        REQUESTS.map(([path, , status]) => ({ path, status })),
      );
      for (const { body } of answers.filter(({ status }) => status === 400)) {
        expect(body).toEqual({
          success: false,
          errors: expect.arrayContaining([expect.objectContaining({ code: 7001, path: expect.any(Array) })]),
          result: {},
        });
      }
      expect(answers.find(({ path }) => path === "/notes/7")?.body).toEqual({ error: "no note 7" });
      expect(answers[4]!.body).toEqual({ ...TASK, done: false, size: 1 });
      expect(answers[6]!.body).toEqual(NOTE);
    });

    it("gives the zod 3 forms of a file that imports only zod the meaning zod 3 gave them", async () => {
      const schemas = await import(pathToFileURL(join(app, "schemas.ts")).href);
      const message = (schema: ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;
      expect(message(schemas.Author, undefined)).toBe("Who wrote it?");
      expect(message(schemas.Author, 1)).toBe("An author is a name");
      expect(message(schemas.Color, "green")).toBe("red or blue");
      expect(schemas.Label.description).toBe("A label");
      // Not an RFC 9562 UUID (version 0), as zod 3 accepted.
      expect(schemas.Reference.safeParse("00000000-0000-0000-0000-000000000001").success).toBe(true);
      const accepts = (schema: ZodType) => ["10.0.0.1", "::1"].map((ip) => schema.safeParse(ip).success);
      expect(accepts(schemas.Host)).toEqual([true, false]);
      expect(accepts(schemas.Address)).toEqual([true, true]);
      expect([{ a: 1 }, { a: "1" }].map((scores) => schemas.Scores.safeParse(scores).success)).toEqual([true, false]);
    });
  });

  it("explains its usage and refuses a missing directory", async () => {
    expect((await cli("migrate", "--help")).stdout).toContain("Usage: specroute migrate <dir> [--write]");
    const missing = await cli("migrate", "no-such-dir");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("specroute: cannot read directory 'no-such-dir'\n");
  });

  it("counts one file and one call in the singular, and none in the plural", async () => {
    await mkdir(join(base, "one"));
    await writeFile(join(base, "one", "a.ts"), 'import { Str } from "chanfana";\nexport const a = Str(options);\n');
    const dry = await cli("migrate", "one");
    expect(dry).toEqual({
      code: 0,
      stdout:
        "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n" +
        '-import { Str } from "chanfana";\n+import { Str } from "specroute";\n export const a = Str(options);\n \n',
      stderr:
        "a.ts:2: Str called with options that are not an object literal; left as Str(...)\n" +
        "specroute migrate: 1 file to rewrite (dry run; --write applies), 1 call left for you\n",
    });
    const written = await cli("migrate", "one", "--write");
    expect(written.stderr.split("\n").at(-2)).toBe("specroute migrate: 1 file rewritten, 1 call left for you");
    await mkdir(join(base, "none"));
    expect(await cli("migrate", "none")).toEqual({
      code: 0,
      stdout: "",
      stderr: "specroute migrate: 0 files to rewrite (dry run; --write applies), 0 calls left for you\n",
    });
  });

  it("teaches HTTPException to an onError handler the app imports from another of its files", async () => {
    const split = join(base, "split");
    await mkdir(join(split, "middleware"), { recursive: true });
    const files = {
      "index.ts": [
        'import { fromHono } from "chanfana";',
        'import { errorHandler } from "./middleware/error.js";',
        'import fallback from "./fallback";',
        'import { missing } from "./nowhere";',
        'import { forwarded } from "./forward";',
        "app.onError(errorHandler);",
        "api.onError(fallback);",
        "other.onError(missing);",
        "more.onError(forwarded);",
      ],
      "forward.ts": ['export { errorHandler as forwarded } from "./middleware/error";'],
      "middleware/error.ts": [
        'import type { ErrorHandler } from "hono";',
        "",
        "export const errorHandler: ErrorHandler = (err, c) => {",
        '  return c.json({ error: "Internal" }, 500);',
        "};",
      ],
      "fallback.ts": ["// The last resort.", 'export default (err: Error) => new Response("no", { status: 500 });'],
    };
    for (const [file, lines] of Object.entries(files)) await writeFile(join(split, file), lines.join("\n"));
    const { stderr } = await cli("migrate", "split", "--write");
    expect(stderr.split("\n")).toEqual([
      `fallback.ts:2: ${GUARDED}`,
      "forward.ts:1: onError handler exported as 'forwarded' not found: make it return err.getResponse() for an HTTPException, or validation failures answer what it does",
      "index.ts:8: onError handler imported from './nowhere', not a file under the directory: make it return err.getResponse() for an HTTPException, or validation failures answer what it does",
      `middleware/error.ts:3: ${GUARDED}`,
      "specroute migrate: 3 files rewritten, 2 calls left for you",
      "",
    ]);
    expect((await read(split, "middleware/error.ts")).split("\n")).toEqual([
      'import type { ErrorHandler } from "hono";',
      'import { HTTPException } from "hono/http-exception";',
      "",
      "export const errorHandler: ErrorHandler = (err, c) => {",
      "  if (err instanceof HTTPException) return err.getResponse();",
      '  return c.json({ error: "Internal" }, 500);',
      "};",
    ]);
    expect((await read(split, "fallback.ts")).split("\n")).toEqual([
      "// The last resort.",
      'import { HTTPException } from "hono/http-exception";',
      "",
      'export default (err: Error) => err instanceof HTTPException ? err.getResponse() : new Response("no", { status: 500 });',
    ]);
  });

  it("refuses a wrong number of directories, an unknown option and a file for a directory", async () => {
    const usage = "specroute: usage: specroute migrate <dir> [--write]\n";
    expect(await cli("migrate")).toEqual({ code: 1, stdout: "", stderr: usage });
    expect(await cli("migrate", "app", "original")).toEqual({ code: 1, stdout: "", stderr: usage });
    expect(await cli("migrate", "app", "--dry")).toEqual({
      code: 1,
      stdout: "",
      stderr: "specroute: unknown option '--dry' (see specroute migrate --help)\n",
    });
    expect(await cli("migrate", "outside.ts")).toEqual({
      code: 1,
      stdout: "",
      stderr: "specroute: 'outside.ts' is not a directory\n",
    });
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
      changes: [],
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
        "export const f = Str({ default: undefined });",
      ].join("\n"),
    );
    expect(text.split("\n")[0]).toBe('import { Str, Int, Enumeration } from "specroute";');
    expect(notes).toEqual([
      { line: 3, reason: "Str called with options that are not an object literal; left as Str(...)" },
      { line: 4, reason: "Int with a 'required' that is not true or false; left as Int(...)" },
      { line: 5, reason: "Enumeration with enumCaseSensitive; left as Enumeration(...)" },
      { line: 6, reason: "Str used other than as a call; left as is" },
      { line: 7, reason: "Int options with a spread, shorthand or computed property; left as Int(...)" },
      { line: 8, reason: "Str with default: undefined; left as Str(...)" },
    ]);
  });

  it("rewrites Arr elements and Obj fields: helpers called or not, constructors, literals, shorthand", () => {
    const { text, notes } = rewrite(
      [
        'import { Arr, Obj, Str, Email, Int } from "chanfana";',
        "const name = z.string();",
        "export const a = Arr(Email);",
        "export const b = Obj({ s: String, n: Number, b: Boolean, d: Date, o: name, x: (Int) });",
        'export const c = Obj({ s: "x", n: 1, t: true, f: false, z: null, l: [Str], o: { in: Int() } });',
        "export const d = Obj({ name, Str, String });",
        "export const e = Arr(Obj({ k: Str() }), { description: 'list' });",
        "export const f = Obj({ w: wrap(Str()), m: Str.length });",
        "export const g = Obj({ t: toString, c: constructor, h: hasOwnProperty });",
      ].join("\n"),
    );
    expect(notes).toEqual([]);
    expect(text.split("\n")).toEqual([
      'import { Str } from "specroute";',
      'import { z } from "zod";',
      "const name = z.string();",
      "export const a = z.array(z.email());",
      "export const b = z.object({ s: z.string(), n: z.number(), b: z.boolean(), d: z.iso.datetime(), o: name, x: z.number().int() });",
      'export const c = z.object({ s: z.string().openapi({ example: "x" }), n: z.number().openapi({ example: 1 }), ' +
        "t: z.boolean().openapi({ example: true }), f: z.boolean().openapi({ example: false }), z: z.string().optional(), " +
        "l: z.array(z.string()), o: z.object({ in: z.number().int() }) });",
      "export const d = z.object({ name, Str: z.string(), String: z.string() });",
      "export const e = z.array(z.object({ k: z.string() })).describe('list');",
      "export const f = z.object({ w: wrap(z.string()), m: Str.length });",
      "export const g = z.object({ t: toString, c: constructor, h: hasOwnProperty });",
    ]);
  });

  it("keeps a call it cannot rewrite inside a rewritten parent, and notes each call once, in line order", () => {
    const lines = [
      'import { Arr, Obj, Str, Regex, Enumeration } from "chanfana";',
      "export const a = Obj({ k: Str(opts), v: Str() });",
      "export const b = Obj({ k: Str(opts), v: Str() }, opts);",
      "export const c = Arr(Regex);",
      "export const d = Obj({ e: [] });",
      "export const e = Arr(Enumeration, { required: false });",
      "export const f = Arr(Str(opts), {}, 1);",
      "export const g = Obj({ a: Str(opts), b: [] });",
    ];
    const { text, notes } = rewrite(lines.join("\n"));
    expect(text.split("\n")).toEqual([
      'import { Arr, Obj, Str, Regex, Enumeration } from "specroute";',
      'import { z } from "zod";',
      "export const a = z.object({ k: Str(opts), v: z.string() });",
      "export const b = Obj({ k: Str(opts), v: z.string() }, opts);",
      ...lines.slice(3),
    ]);
    const strOptions = "Str called with options that are not an object literal; left as Str(...)";
    expect(notes).toEqual([
      { line: 2, reason: strOptions },
      { line: 3, reason: strOptions },
      { line: 3, reason: "Obj called with options that are not an object literal; left as Obj(...)" },
      { line: 4, reason: "Regex passed uncalled; left as Arr(...)" },
      { line: 4, reason: "Regex used other than as a call; left as is" },
      { line: 5, reason: "Arr shorthand [] without an element type; left as Obj(...)" },
      { line: 6, reason: "Enumeration passed uncalled; left as Arr(...)" },
      { line: 6, reason: "Enumeration used other than as a call; left as is" },
      { line: 7, reason: "Arr needs one element type and optional options; left as Arr(...)" },
      { line: 7, reason: strOptions },
      { line: 8, reason: strOptions },
      { line: 8, reason: "Arr shorthand [] without an element type; left as Obj(...)" },
    ]);
  });

  it("leaves each malformed helper call as it is and says what is wrong with it", () => {
    const lines = [
      'import { Arr, Obj, Str, Regex, Enumeration } from "chanfana";',
      "export const a = Str(...args);",
      "export const b = Arr();",
      "export const c = Arr(Str, {}, 1);",
      "export const d = Obj();",
      "export const e = Str({}, 1);",
      "export const f = Regex({ description: 'r' });",
      "export const g = Str({ min: 1 });",
      "export const i = Enumeration({ values: { a: 'A' } });",
      "export const j = Obj(fields);",
      "export const k = Obj({ ...base, m() { return 1; } });",
      'export const l = Str({ ["description"]: "x" });',
      "export const m = Enumeration({ values: [x] });",
    ];
    const { text, notes } = rewrite(lines.join("\n"));
    expect(text).toBe(lines.join("\n").replace('"chanfana"', '"specroute"'));
    const enumValues = "Enumeration whose values are not a list of string literals (a mapping, or computed)";
    expect(notes).toEqual([
      { line: 2, reason: "Str(...) with spread arguments; left as Str(...)" },
      { line: 3, reason: "Arr needs one element type and optional options; left as Arr(...)" },
      { line: 4, reason: "Arr needs one element type and optional options; left as Arr(...)" },
      { line: 4, reason: "Str used other than as a call; left as is" },
      { line: 5, reason: "Obj needs one fields object and optional options; left as Obj(...)" },
      { line: 6, reason: "Str called with more than one argument; left as Str(...)" },
      { line: 7, reason: "Regex without a literal pattern option; left as Regex(...)" },
      { line: 8, reason: "Str option 'min' has no zod equivalent here; left as Str(...)" },
      { line: 9, reason: `${enumValues}; left as Enumeration(...)` },
      { line: 10, reason: "Obj called with fields that are not an object literal; left as Obj(...)" },
      { line: 11, reason: "Obj fields with a spread, method or accessor; left as Obj(...)" },
      { line: 12, reason: "Str options with a spread, shorthand or computed property; left as Str(...)" },
      { line: 13, reason: `${enumValues}; left as Enumeration(...)` },
    ]);
  });

  it("adds zod's import after the last import, or in place of a last import left empty", () => {
    const rewritten = (lines: string[]) => rewrite(lines.join("\n")).text.split("\n");
    expect(
      rewritten([
        "// header",
        "import { Str } from 'chanfana';",
        "import { Hono } from 'hono';",
        "export const a = Str();",
      ]),
    ).toEqual([
      "// header",
      "import { Hono } from 'hono';",
      'import { z } from "zod";',
      "export const a = z.string();",
    ]);
    expect(
      rewritten(['import { Hono } from "hono";', 'import { Str } from "chanfana";', "export const a = Str();"]),
    ).toEqual(['import { Hono } from "hono";', 'import { z } from "zod";', "export const a = z.string();"]);
    expect(rewritten(["export const a = Str();", 'import { Str } from "chanfana"'])).toEqual([
      "export const a = z.string();",
      'import { z } from "zod";',
      "",
    ]);
    expect(
      rewritten(['import { Str, fromHono } from "chanfana";', 'import { z } from "zod";', "export const a = Str();"]),
    ).toEqual(['import { fromHono } from "specroute";', 'import { z } from "zod";', "export const a = z.string();"]);
  });

  it("renames default, namespace and type-only imports, and leaves a file without a chanfana import alone", () => {
    const { text } = rewrite(
      [
        'import chanfana, { Str } from "chanfana";',
        'import * as all from "chanfana";',
        'import type { Int } from "chanfana";',
        'import { type Num, Bool } from "specroute";',
        "export const a = Str();",
        "export const b = Bool();",
        "export const c: Int = 1;",
      ].join("\n"),
    );
    expect(text.split("\n")).toEqual([
      'import chanfana, {  } from "specroute";',
      'import * as all from "specroute";',
      'import type { Int } from "specroute";',
      'import { type Num } from "specroute";',
      'import { z } from "zod";',
      "export const a = z.string();",
      "export const b = z.boolean();",
      "export const c: Int = 1;",
    ]);
    const other = 'import { Str } from "other";\nexport const a = Str();';
    expect(rewrite(other)).toEqual({ text: other, notes: [], changes: [] });
  });
});

describe("migrateSource and zod 3", () => {
  const rewritten = (lines: string[]) => migrateSource(ts, "file.ts", lines.join("\n"));

  it("keys a one-argument z.record by strings, under any name zod's namespace is imported as, and nowhere else", () => {
    const { text, notes } = rewritten([
      'import { z } from "zod";',
      'import * as zod from "zod";',
      'import Z from "zod";',
      'import { record } from "other";',
      "export const a = z.record(z.number());",
      "export const b = zod.record(zod.boolean()).optional();",
      "export const c = Z.record(Z.string(), Z.number());",
      "export const d = z.record(...args);",
      "export const e = other.record(z.number());",
      "export const f = record(z.number());",
      "export const g = z.object({ m: z.record(z.record(z.number())) });",
    ]);
    expect(notes).toEqual([]);
    expect(text.split("\n").slice(4)).toEqual([
      "export const a = z.record(z.string(), z.number());",
      "export const b = zod.record(zod.string(), zod.boolean()).optional();",
      "export const c = Z.record(Z.string(), Z.number());",
      "export const d = z.record(...args);",
      "export const e = other.record(z.number());",
      "export const f = record(z.number());",
      "export const g = z.object({ m: z.record(z.string(), z.record(z.string(), z.number())) });",
    ]);
    const notZod = 'import { z } from "zod3-fork";\nexport const a = z.record(z.number());';
    expect(migrateSource(ts, "file.ts", notZod).text).toBe(notZod);
  });

  it("rewrites a zod 3 form inside a helper it rewrites, and a helper inside a zod 3 form", () => {
    const { text } = rewritten([
      'import { Obj, Str } from "chanfana";',
      'import { z } from "zod";',
      "export const a = Obj({ tags: z.record(Str()), id: z.string().uuid() });",
    ]);
    expect(text.split("\n").at(-1)).toBe(
      "export const a = z.object({ tags: z.record(z.string(), z.string()), id: z.string().guid() });",
    );
  });

  it("turns zod 3's required_error, invalid_type_error, errorMap and description params into zod 4's", () => {
    const { text, notes } = rewritten([
      'import { z } from "zod";',
      'export const a = z.string({ required_error: "needed", invalid_type_error: "text" });',
      'export const b = z.coerce.number({ invalid_type_error: "a number", message: "m" });',
      'export const c = z.enum(["x"], { errorMap: () => ({ message: "x only" }) });',
      'export const d = z.string({ description: "a name" }).min(1).optional().parse(v);',
      'export const e = z.object({ description: z.string() }, { description: "with a description" });',
      'export const f = z.number({ required_error: "needed", description: "n" });',
      'export const g = z.enum(["x"], { errorMap: (issue, ctx) => ({ message: ctx.defaultError }) });',
      "export const h = z.object({ description: z.string(), required_error: z.string() });",
    ]);
    expect(text.split("\n").slice(1)).toEqual([
      'export const a = z.string({ error: (issue) => (issue.input === undefined ? "needed" : "text") });',
      'export const b = z.coerce.number({ message: "m", error: (issue) => (issue.input === undefined ? undefined : "a number") });',
      'export const c = z.enum(["x"], { error: () => ({ message: "x only" }) });',
      'export const d = z.string().min(1).optional().describe("a name").parse(v);',
      'export const e = z.object({ description: z.string() }).describe("with a description");',
      'export const f = z.number({ error: (issue) => (issue.input === undefined ? "needed" : undefined) }).describe("n");',
      'export const g = z.enum(["x"], { errorMap: (issue, ctx) => ({ message: ctx.defaultError }) });',
      "export const h = z.object({ description: z.string(), required_error: z.string() });",
    ]);
    expect(notes).toEqual([
      {
        line: 8,
        reason:
          "zod 4 ignores errorMap, and this one reads zod 3's issue or context: rewrite it as an error function of zod 4's issue",
      },
    ]);
  });

  it("checks a zod string's uuid() as zod 3 did, and replaces the ip() zod 4 lacks", () => {
    const { text, notes } = rewritten([
      'import { z } from "zod";',
      'export const a = z.string().min(36).uuid({ message: "an id" }).optional();',
      "export const b = z.string().ip();",
      'export const c = z.string().ip({ version: "v6" }).optional();',
      "export const d = z.string().min(7).ip();",
      'export const e = z.string().ip({ version: "v4", message: "an address" });',
      "export const f = faker.string.uuid();",
    ]);
    expect(text.split("\n").slice(1)).toEqual([
      'export const a = z.string().min(36).guid({ message: "an id" }).optional();',
      "export const b = z.union([z.ipv4(), z.ipv6()]);",
      "export const c = z.ipv6().optional();",
      "export const d = z.string().min(7).ip();",
      'export const e = z.string().ip({ version: "v4", message: "an address" });',
      "export const f = faker.string.uuid();",
    ]);
    const ipNote =
      "zod 4 has no z.string().ip(), and this one has checks or options it cannot carry over; use z.ipv4() or z.ipv6()";
    expect(notes).toEqual([
      { line: 5, reason: ipNote },
      { line: 6, reason: ipNote },
    ]);
  });
});

describe("migrateSource and onError", () => {
  const rewritten = (lines: string[]) => migrateSource(ts, "file.ts", lines.join("\n"));

  it("puts the HTTPException guard first in each handler, under its own name for the error, and says so", () => {
    const { text, changes, notes } = rewritten([
      'import { Hono } from "hono";',
      "const app = new Hono();",
      "app.onError((error, c) => {",
      "  console.error(error);",
      '  return c.json({ error: "Internal" }, 500);',
      "});",
      "app.onError((e, c) => c.json({ message: e.message }, 500));",
      "app.onError(async function (failure, c) { return c.text('no', 500); });",
      "app.onError(handler);",
      "app.onError(declared);",
      "app.onError(() => new Response(null, { status: 500 }));",
      "app.onError(({ message }, c) => c.text(message, 500));",
      "app.onError((err) => {});",
      "const handler: ErrorHandler = (err, c) => c.text('no', 500);",
      "function declared(err: Error, c: Context) {",
      "  return c.text('no', 500);",
      "}",
    ]);
    expect(text.split("\n")).toEqual([
      'import { Hono } from "hono";',
      'import { HTTPException } from "hono/http-exception";',
      "const app = new Hono();",
      "app.onError((error, c) => {",
      "  if (error instanceof HTTPException) return error.getResponse();",
      "  console.error(error);",
      '  return c.json({ error: "Internal" }, 500);',
      "});",
      "app.onError((e, c) => e instanceof HTTPException ? e.getResponse() : c.json({ message: e.message }, 500));",
      "app.onError(async function (failure, c) { if (failure instanceof HTTPException) return failure.getResponse(); return c.text('no', 500); });",
      "app.onError(handler);",
      "app.onError(declared);",
      "app.onError(() => new Response(null, { status: 500 }));",
      "app.onError(({ message }, c) => c.text(message, 500));",
      "app.onError((err) => { if (err instanceof HTTPException) return err.getResponse(); });",
      "const handler: ErrorHandler = (err, c) => err instanceof HTTPException ? err.getResponse() : c.text('no', 500);",
      "function declared(err: Error, c: Context) {",
      "  if (err instanceof HTTPException) return err.getResponse();",
      "  return c.text('no', 500);",
      "}",
    ]);
    expect(changes).toEqual([3, 7, 8, 13, 14, 15].map((line) => ({ line, reason: GUARDED })));
    const unnamed =
      "onError handler without a named error: make it return err.getResponse() for an HTTPException, or validation failures answer what it does";
    expect(notes).toEqual([
      { line: 11, reason: unnamed },
      { line: 12, reason: unnamed },
    ]);
  });

  it("leaves a handler that knows HTTPException or duck-types getResponse(), and notes one it cannot find", () => {
    const lines = [
      'import { fromHono } from "specroute";',
      'import { errorHandler } from "@acme/errors";',
      'import { localHandler } from "./errors";',
      "app.onError((err, c) => (err instanceof HTTPException ? err.getResponse() : c.text('no', 500)));",
      "app.onError((err, c) => ('getResponse' in err ? err.getResponse() : c.text('no', 500)));",
      "app.onError(errorHandler);",
      "app.onError(localHandler);",
      "app.onError(makeHandler());",
    ];
    const { text, notes, changes } = rewritten(lines);
    expect(text).toBe(lines.join("\n"));
    expect(changes).toEqual([]);
    const notFound =
      "is not a function of the app's: make it return err.getResponse() for an HTTPException, or validation failures answer what it does";
    expect(notes).toEqual([
      { line: 6, reason: `onError handler 'errorHandler' ${notFound}` },
      { line: 8, reason: `onError handler 'makeHandler()' ${notFound}` },
    ]);
  });

  it("notes each chanfana 2 handleValidationError override, which specroute never calls", () => {
    const { notes } = rewritten([
      'import { OpenAPIRoute } from "chanfana";',
      "export class ApiRoute extends OpenAPIRoute {",
      "  handleValidationError(errors: z.ZodIssue[]): Response {",
      "    return Response.json({ errors }, { status: 400 });",
      "  }",
      "}",
    ]);
    expect(notes).toEqual([
      {
        line: 3,
        reason:
          "specroute never calls handleValidationError: shape the body in handleError (a MultiException) or onError",
      },
    ]);
  });

  it("leaves the onError of a file that imports neither Hono, chanfana nor specroute", () => {
    const lines = ['import { Probot } from "probot";', "app.onError((err) => { console.log(err); });"];
    expect(rewritten(lines)).toEqual({ text: lines.join("\n"), notes: [], changes: [] });
  });

  it("adds the HTTPException import after zod's, and none where the file imports it already", () => {
    const both = rewritten([
      'import { Str } from "chanfana";',
      "export const name = Str();",
      "app.onError((err, c) => c.text('no', 500));",
    ]);
    expect(both.text.split("\n").slice(0, 2)).toEqual([
      'import { z } from "zod";',
      'import { HTTPException } from "hono/http-exception";',
    ]);
    const imported = rewritten([
      'import { HTTPException } from "hono/http-exception";',
      "app.onError((err, c) => c.text('no', 500));",
    ]);
    expect(imported.text.split("\n")).toEqual([
      'import { HTTPException } from "hono/http-exception";',
      "app.onError((err, c) => err instanceof HTTPException ? err.getResponse() : c.text('no', 500));",
    ]);
  });
});
