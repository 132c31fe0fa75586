import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEMPLATES } from "../../src/cli/init";
import { installedVersion, installInto, packPackage, root, run } from "../packed-package";

const pgUrl = process.env.SPECROUTE_PG_URL;
const VERSION = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;

/** A template's dependencies and devDependencies, by name, as its package.json pins them. */
function pinsOf(manifest: { dependencies?: object; devDependencies?: object }): Record<string, string> {
  return { ...manifest.dependencies, ...manifest.devDependencies } as Record<string, string>;
}

/** How many tests a template's test file declares: the project's run must pass every one. */
const declaredTests = (project: string) =>
  readFileSync(join(project, "test", "app.test.ts"), "utf8").match(/^\s*it\(/gm)!.length;

describe("the templates' package.json", () => {
  it.each(TEMPLATES.map(({ name }) => name))("%s pins the versions this repository installs and tests", (name) => {
    const pins = pinsOf(JSON.parse(readFileSync(join(root, "templates", name, "package.json"), "utf8")));
    expect(pins.specroute).toBe("{{specrouteVersion}}");
    delete pins.specroute;
    expect(pins).toEqual(Object.fromEntries(Object.keys(pins).map((dep) => [dep, installedVersion(dep)])));
  });
});

/**
 * What a user does: `npx specroute init <dir> --template <name>` from the packed package, install, then the
 * project's own type check and tests. The install links each pinned package from this repository's
 * node_modules (the test above holds them to the same versions), so nothing is downloaded.
 */
describe("specroute init from the packed package: each new project's own tests pass", () => {
  let tmp: string;
  let packageDir: string;
  /** The CLI as `npx specroute` runs it: the package installed with its one required peer, zod. */
  let cli: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "specroute-templates-"));
    packageDir = await packPackage(tmp);
    installInto(join(tmp, "npx"), packageDir, ["zod"]);
    cli = join(tmp, "npx", "node_modules", ".bin", "specroute");
  }, 180_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** This process's environment without vitest's own variables, with plain output, and `extra`. */
  const userEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST"))),
    NO_COLOR: "1",
    ...extra,
  });

  /** Runs a command in `cwd` and returns what it printed; a failure throws with its output. */
  async function sh(cwd: string, command: string, args: string[], env = userEnv()): Promise<string> {
    try {
      const { stdout, stderr } = await run(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
      return `${stdout}${stderr}`;
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: string; stderr?: string };
      throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? err}`);
    }
  }

  /** Writes the template with the packed CLI, checks what it printed, and installs the project's dependencies. */
  async function generate(template: string): Promise<string> {
    const printed = await sh(tmp, cli, ["init", template, "--template", template]);
    const { install, run: start } = TEMPLATES.find(({ name }) => name === template)!;
    expect(printed).toContain(`\n\nNext:\n  cd ${template} && ${install}\n  ${start}\n`);
    const project = join(tmp, template);
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(manifest.name).toBe(template);
    const pins = pinsOf(manifest);
    expect(pins.specroute).toBe(VERSION);
    installInto(
      project,
      packageDir,
      Object.keys(pins).filter((name) => name !== "specroute"),
    );
    return project;
  }

  it("node-sqlite: npm run typecheck and npm test pass", async () => {
    const project = await generate("node-sqlite");
    await sh(project, "npm", ["run", "typecheck"]);
    const n = declaredTests(project);
    expect(await sh(project, "npm", ["test"])).toMatch(new RegExp(`Tests\\s+${n} passed \\(${n}\\)`));
  }, 120_000);

  it.skipIf(!pgUrl)(
    `node-postgres: npm run typecheck and npm test pass (${pgUrl ? "SPECROUTE_PG_URL" : "SPECROUTE_PG_URL unset: skipped"})`,
    async () => {
      const project = await generate("node-postgres");
      await sh(project, "npm", ["run", "typecheck"]);
      const n = declaredTests(project);
      const output = await sh(project, "npm", ["test"], userEnv({ DATABASE_URL: pgUrl! }));
      expect(output).toMatch(new RegExp(`Tests\\s+${n} passed \\(${n}\\)`));
    },
    120_000,
  );

  it("workers-d1: npm run typecheck and npm test (in workerd) pass, and wrangler bundles the Worker", async () => {
    const project = await generate("workers-d1");
    await sh(project, "npm", ["run", "typecheck"]);
    const n = declaredTests(project);
    expect(await sh(project, "npm", ["test"])).toMatch(new RegExp(`Tests\\s+${n} passed \\(${n}\\)`));
    // What `npm run deploy` uploads, built without uploading: the bundle must resolve every import.
    const bundle = join(tmp, "workers-d1-bundle");
    const wrangler = userEnv({ WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: join(tmp, "wrangler-logs") });
    const bin = join(project, "node_modules", ".bin", "wrangler");
    const output = await sh(project, bin, ["deploy", "--dry-run", "--outdir", bundle], wrangler);
    expect(output).toContain("--dry-run: exiting now.");
    expect(readFileSync(join(bundle, "index.js"), "utf8")).toContain("Hello, ");
  }, 120_000);

  it("bun: bun run typecheck and bun test pass", async () => {
    const project = await generate("bun");
    // The bun binary the registry's `bun` package installs (node_modules/.bin/bun), as `bun` on the PATH.
    const installed = join(root, "node_modules", ".bin", "bun");
    expect(existsSync(installed), "node_modules/.bin/bun (the bun package, from npm ci)").toBe(true);
    const bin = join(tmp, "bun-bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(realpathSync(installed), join(bin, "bun"));
    const env = userEnv({ PATH: `${bin}${delimiter}${process.env.PATH}` });
    await sh(project, "bun", ["run", "typecheck"], env);
    const n = declaredTests(project);
    expect(await sh(project, "bun", ["run", "test"], env)).toMatch(new RegExp(`\\b${n} pass\\n\\s*0 fail\\b`));
  }, 120_000);
});
