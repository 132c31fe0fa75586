import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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

describe("the templates' package.json", () => {
  it.each(TEMPLATES.map(({ name }) => name))("%s pins the versions this repository installs and tests", (name) => {
    const pins = pinsOf(JSON.parse(readFileSync(join(root, "templates", name, "package.json"), "utf8")));
    expect(pins.specroute).toBe("{{specrouteDependency}}");
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
  }, 400_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * Writes the template with the packed CLI, checks what it printed, and installs the project's dependencies.
   * The CLI's package was copied in, not installed from a registry, so init packs it into the project.
   */
  async function generate(template: string): Promise<string> {
    const printed = await sh(tmp, cli, ["init", template, "--template", template]);
    const { install, run: start } = TEMPLATES.find(({ name }) => name === template)!;
    const tarball = `vendor/specroute-${VERSION}.tgz`;
    expect(printed).toContain(
      `\nIts specroute dependency is ${tarball}, packed from the specroute ${VERSION} installed at ${join(tmp, "npx", "node_modules", "specroute")}, which did not come from the npm registry.\n`,
    );
    expect(printed).toContain(`\n\nNext:\n  cd ${template} && ${install}\n  ${start}\n`);
    const project = join(tmp, template);
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(manifest.name).toBe(template);
    const pins = pinsOf(manifest);
    expect(pins.specroute).toBe(`file:${tarball}`);
    await run("tar", ["-xzf", join(project, tarball), "-C", tmp, "--transform", `s,^package,packed-${template},`]);
    expect(readFileSync(join(tmp, `packed-${template}`, "dist", "index.js"))).toEqual(
      readFileSync(join(packageDir, "dist", "index.js")),
    );
    installInto(
      project,
      packageDir,
      Object.keys(pins).filter((name) => name !== "specroute"),
    );
    return project;
  }

  it("pins the version itself when the package was installed from the registry", async () => {
    // What npm records of an install from the registry, in the lockfile of the node_modules it installed into.
    const registry = join(tmp, "from-registry");
    installInto(registry, packageDir, ["zod"]);
    const resolved = `https://registry.npmjs.org/specroute/-/specroute-${VERSION}.tgz`;
    const lock = {
      name: "from-registry",
      lockfileVersion: 3,
      packages: { "node_modules/specroute": { version: VERSION, resolved } },
    };
    writeFileSync(join(registry, "node_modules", ".package-lock.json"), JSON.stringify(lock));
    const bin = join(registry, "node_modules", ".bin", "specroute");
    const printed = await sh(tmp, bin, ["init", "registry-api", "--template", "node-sqlite"]);
    expect(printed).not.toContain("Its specroute dependency");
    expect(pinsOf(JSON.parse(readFileSync(join(tmp, "registry-api", "package.json"), "utf8"))).specroute).toBe(VERSION);
    expect(existsSync(join(tmp, "registry-api", "vendor"))).toBe(false);
  });

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

/**
 * What a user of a fresh clone does: `npx specroute init` in the repository (the CLI runs from source), then
 * a real `npm install` and `npm test` in the new project, with no edit. node-postgres is the template whose
 * install builds nothing natively (better-sqlite3 compiles for minutes here); the others install the same
 * tarball above.
 */
describe.skipIf(!pgUrl)("specroute init from this checkout", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "specroute-checkout-init-"));
  });
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("packs the checkout into the project, which npm installs and whose tests pass", async () => {
    const printed = await sh(tmp, process.execPath, [
      join(root, "bin", "specroute.mjs"),
      "init",
      "api",
      "-t",
      "node-postgres",
    ]);
    const tarball = `vendor/specroute-${VERSION}.tgz`;
    expect(printed).toContain(
      `\nIts specroute dependency is ${tarball}, packed from the specroute checkout at ${root}`,
    );
    const project = join(tmp, "api");
    expect(pinsOf(JSON.parse(readFileSync(join(project, "package.json"), "utf8"))).specroute).toBe(`file:${tarball}`);
    await sh(project, "npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"]);
    const installed = JSON.parse(readFileSync(join(project, "node_modules", "specroute", "package.json"), "utf8"));
    expect(installed.version).toBe(VERSION);
    const n = declaredTests(project);
    const output = await sh(project, "npm", ["test"], userEnv({ DATABASE_URL: pgUrl! }));
    expect(output).toMatch(new RegExp(`Tests\\s+${n} passed \\(${n}\\)`));
  }, 600_000);
});
