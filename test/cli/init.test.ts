import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INIT_USAGE, TEMPLATES } from "../../src/cli/init";
import { packageNameProblem, suggestPackageName } from "../../src/cli/package-name";
import { ROOT, runCli } from "./run-cli";

const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const TEMPLATE_NAMES = "node-sqlite, node-postgres, workers-d1, bun";

/** Every file under `dir`, relative and sorted. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(dir, `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]))
    .sort();
}

describe("specroute init", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "specroute-init-"));
  });
  afterAll(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * Runs `specroute init` in-process from the scratch directory, naming the dependency to write: from this
   * checkout init would otherwise build and pack it (init-checkout.test.ts runs that).
   */
  const init = (...argv: string[]) => runCli(["init", ...argv, "--specroute", VERSION], tmp);

  /** Runs it expecting a refusal: exit 1, one line on stderr, nothing on stdout. */
  async function refusal(...argv: string[]) {
    const result = await init(...argv);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr.trimEnd()).not.toContain("\n");
    return result.stderr;
  }

  it("writes every file of the template with the project's name and the --specroute dependency, then prints the two next commands", async () => {
    const result = await init("my-api", "--template", "node-sqlite");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(
      "Created my-api in my-api (node-sqlite template, 10 files)\n\nNext:\n  cd my-api && npm install\n  npm run dev\n",
    );
    const project = join(tmp, "my-api");
    const expected = filesUnder(join(ROOT, "templates", "node-sqlite")).map((file) =>
      file === "gitignore" ? ".gitignore" : file,
    );
    expect(filesUnder(project)).toEqual(expected.sort());
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "my-api", dependencies: { specroute: VERSION } });
    expect(readFileSync(join(project, "src", "app.ts"), "utf8")).toContain('info: { title: "my-api"');
    for (const file of expected) expect(readFileSync(join(project, file), "utf8"), file).not.toMatch(/\{\{\w+\}\}/);
  });

  it("prints each template's own commands, and no cd into the directory it runs in", async () => {
    expect((await init("pg-api", "-t", "node-postgres")).stdout).toContain(
      "\n  cd pg-api && npm install\n  DATABASE_URL=postgres://user:password@127.0.0.1:5432/db npm run dev\n",
    );
    mkdirSync(join(tmp, "here-api"));
    const here = await runCli(["init", ".", "--template=bun", `--specroute=file:../specroute`], join(tmp, "here-api"));
    expect(here).toMatchObject({ code: 0, stderr: "" });
    expect(here.stdout).toBe("Created here-api in . (bun template, 10 files)\n\nNext:\n  bun install\n  bun run dev\n");
    const manifest = JSON.parse(readFileSync(join(tmp, "here-api", "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "here-api", dependencies: { specroute: "file:../specroute" } });
  });

  it("refuses an unknown or missing template, listing the templates", async () => {
    expect(await refusal("x-api", "--template", "deno")).toBe(
      `specroute: unknown template 'deno' (templates: ${TEMPLATE_NAMES})\n`,
    );
    expect(await refusal("x-api")).toBe(`specroute: missing --template (templates: ${TEMPLATE_NAMES})\n`);
    expect(await refusal("x-api", "--template")).toBe(
      `specroute: option '--template' needs a template (templates: ${TEMPLATE_NAMES})\n`,
    );
    expect(await refusal("--template", "bun")).toBe(
      "specroute: missing directory (usage: specroute init <dir> --template <name>)\n",
    );
    expect(await refusal("x-api", "-t", "bun", "--yes")).toBe(
      "specroute: unknown option '--yes' (see specroute init --help)\n",
    );
    expect(readdirSync(tmp)).not.toContain("x-api");
  });

  it("refuses a non-empty directory unless --force, and then still overwrites no file", async () => {
    const dir = join(tmp, "existing");
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "notes.txt"), "mine");
    expect(await refusal("existing", "-t", "node-sqlite")).toBe(
      "specroute: 'existing' is not empty (it holds notes.txt, src): choose a new directory, or pass --force to add the project beside what is there\n",
    );
    expect(filesUnder(dir)).toEqual(["notes.txt"]);

    // Beside files of its own, --force writes the project...
    const forced = await init("existing", "-t", "node-sqlite", "--force");
    expect(forced).toMatchObject({ code: 0, stderr: "" });
    expect(filesUnder(dir)).toContain("src/app.ts");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");

    // ...but never over one: a file the template writes is named, and nothing is written.
    const other = join(tmp, "with-app");
    mkdirSync(join(other, "src"), { recursive: true });
    writeFileSync(join(other, "src", "app.ts"), "// my app");
    expect(await refusal("with-app", "-t", "bun", "--force")).toBe(
      "specroute: 'with-app' already has src/app.ts, which the template writes: nothing was written (init never overwrites a file)\n",
    );
    expect(filesUnder(other)).toEqual(["src/app.ts"]);
    expect(readFileSync(join(other, "src", "app.ts"), "utf8")).toBe("// my app");
  });

  it("counts a directory holding only .git as empty", async () => {
    mkdirSync(join(tmp, "repo-api", ".git"), { recursive: true });
    expect(await init("repo-api", "-t", "workers-d1")).toMatchObject({ code: 0, stderr: "" });
    expect(readdirSync(join(tmp, "repo-api"))).toContain("wrangler.jsonc");
  });

  it("refuses a path that is a file", async () => {
    writeFileSync(join(tmp, "a-file"), "");
    expect(await refusal("a-file", "-t", "bun")).toBe("specroute: 'a-file' exists and is not a directory\n");
  });

  it("checks the package name, offering one npm takes", async () => {
    expect(await refusal("My API", "-t", "node-sqlite")).toBe(
      "specroute: the directory's name 'My API' is not a valid package name (it contains capital letters): pass --name my-api, or choose another directory\n",
    );
    expect(await refusal("hono", "-t", "node-sqlite")).toBe(
      "specroute: the directory's name 'hono' is not a valid package name (the project installs a package of that name, and npm refuses to): pass --name <name>, or choose another directory\n",
    );
    expect(await refusal("api", "-t", "bun", "--name", "_api")).toBe(
      "specroute: --name '_api' is not a valid package name: it starts with a period or an underscore\n",
    );
    expect(readdirSync(tmp)).not.toContain("My API");

    const named = await init("My API", "-t", "node-sqlite", "--name", "my-api-2");
    expect(named).toMatchObject({ code: 0, stderr: "" });
    expect(named.stdout).toContain("\n  cd 'My API' && npm install\n");
    expect(JSON.parse(readFileSync(join(tmp, "My API", "package.json"), "utf8")).name).toBe("my-api-2");
  });

  it("lists in --help every template there is a folder for", () => {
    expect(readdirSync(join(ROOT, "templates")).sort()).toEqual(TEMPLATES.map((template) => template.name).sort());
    for (const { name, summary } of TEMPLATES) expect(INIT_USAGE).toContain(`  ${name.padEnd(16)}${summary}\n`);
  });

  it("gives every template the same app: one hand-written endpoint and one model's auto CRUD", () => {
    for (const file of ["src/hello.ts", "src/notes.ts"]) {
      const texts = TEMPLATES.map(({ name }) => readFileSync(join(ROOT, "templates", name, file), "utf8"));
      expect(new Set(texts).size, file).toBe(1);
    }
  });
});

describe("package names", () => {
  it("takes what npm takes for a new package", () => {
    for (const name of ["my-api", "api2", "a.b", "a_b", "x".repeat(214)])
      expect(packageNameProblem(name), name).toBe(undefined);
  });

  it("refuses what npm refuses, and Node's built-in module names", () => {
    expect(packageNameProblem("")).toBe("it is empty");
    expect(packageNameProblem(" api")).toBe("it starts or ends with a space");
    expect(packageNameProblem("x".repeat(215))).toBe("it is longer than 214 characters");
    expect(packageNameProblem(".api")).toBe("it starts with a period or an underscore");
    expect(packageNameProblem("Api")).toBe("it contains capital letters");
    expect(packageNameProblem("api!")).toBe("it contains one of ~'!()*");
    expect(packageNameProblem("my api")).toBe("it contains characters that are not URL-safe");
    expect(packageNameProblem("node_modules")).toBe("npm reserves it");
    expect(packageNameProblem("http")).toBe("it is the name of a Node.js built-in module");
  });

  it("suggests a name made from a directory's", () => {
    expect(suggestPackageName("My API")).toBe("my-api");
    expect(suggestPackageName("_Draft (2)")).toBe("draft-2");
    expect(suggestPackageName("!!!")).toBe(undefined);
  });
});
