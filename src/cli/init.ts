import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "./errors";
import { packageNameProblem, suggestPackageName } from "./package-name";
import { type PackageSource, packageSource, packPackage } from "./package-source";

/** A project `specroute init` can write: the folder under `templates/` and how to start it. */
export interface Template {
  name: string;
  summary: string;
  /** The two commands printed once the project is written; the first runs after `cd <dir> &&`. */
  install: string;
  run: string;
}

/** Every template, in the order `specroute init --help` lists them. */
export const TEMPLATES: readonly Template[] = [
  {
    name: "node-sqlite",
    summary: "Hono on Node, SQLite in a file (better-sqlite3); tests on vitest",
    install: "npm install",
    run: "npm run dev",
  },
  {
    name: "node-postgres",
    summary: "Hono on Node, PostgreSQL from DATABASE_URL, --workers N; tests on vitest",
    install: "npm install",
    run: "DATABASE_URL=postgres://user:password@127.0.0.1:5432/db npm run dev",
  },
  {
    name: "workers-d1",
    summary: "Hono on Cloudflare Workers with D1 (wrangler.jsonc, a migration); tests in workerd",
    install: "npm install",
    run: "npm run dev",
  },
  {
    name: "bun",
    summary: "Hono on Bun with bun:sqlite; tests on bun test",
    install: "bun install",
    run: "bun run dev",
  },
];

const TEMPLATE_NAMES = TEMPLATES.map((template) => template.name).join(", ");

/** What `specroute init --help` prints. */
export const INIT_USAGE = `Usage: specroute init <dir> --template <name> [--name <name>] [--force]

Writes a new project into <dir> (created when missing): one hand-written endpoint and the
auto CRUD endpoints of one model, with tests. Prints the commands that install and start it.

Templates:
${TEMPLATES.map((template) => `  ${template.name.padEnd(16)}${template.summary}`).join("\n")}

Options:
  -t, --template <name>  the template to write (required)
  --name <name>          the package name; default: the directory's name, which must then be
                         a valid npm package name
  --specroute <spec>     the project's specroute dependency (a version, or file:<path>);
                         default: this version when it was installed from the registry,
                         else this build packed into vendor/ (from a checkout, built first)
  --force                write into a directory that is not empty; a file already there is
                         still never overwritten: init names it and writes nothing
  -h, --help             show this help
`;

/** What `initProject` is asked to do. */
export interface InitOptions {
  dir: string;
  template: string;
  /** The package name; default: the directory's name. */
  name?: string;
  /** Write into a non-empty directory (never over a file already there). */
  force?: boolean;
  /**
   * The project's `specroute` dependency as package.json writes it. Default: this version when it came
   * from a registry, else this build packed into the project's `vendor/` (see {@link packageSource}).
   */
  specroute?: string;
  /** Directory `dir` is relative to. Default `process.cwd()`. */
  cwd?: string;
}

/** What `initProject` wrote. */
export interface InitResult {
  /** The project's directory, absolute. */
  root: string;
  name: string;
  /** Every file written, relative to `root`, `/`-separated. */
  files: string[];
  /** The two commands to run next, from the directory init ran in. */
  next: [string, string];
  /** Where the project's specroute comes from, when it is not the registry's: said to the user. */
  packed?: string;
}

/** Template files whose name npm pack would drop or act on, stored under another name. */
const RENAMED: Record<string, string> = { gitignore: ".gitignore" };
/** What a directory may hold and still count as empty (a repository just created with `git init`). */
const IGNORED_ENTRIES = new Set([".git"]);

/**
 * Writes the project of template `options.template` into `options.dir`. Everything is checked
 * before the first file is written: the template, the package name, and the directory, which must
 * be empty unless `force` is set, and then still hold none of the template's files.
 *
 * @example
 * const { next } = await initProject({ dir: "my-api", template: "node-sqlite" });
 * // next: ["cd my-api && npm install", "npm run dev"]
 */
export async function initProject(options: InitOptions): Promise<InitResult> {
  const template = TEMPLATES.find((candidate) => candidate.name === options.template);
  if (!template) throw new CliError(`unknown template '${options.template}' (templates: ${TEMPLATE_NAMES})`);
  const cwd = options.cwd ?? process.cwd();
  const root = resolve(cwd, options.dir);
  const source = packageSource(packageRoot());
  const name = options.name ?? basename(root);
  const files: Record<string, string | Uint8Array> = await templateFiles(join(source.root, "templates", template.name));
  checkName(name, options.name === undefined, dependenciesOf(files));
  const tarball =
    options.specroute === undefined && source.kind !== "published" ? `specroute-${source.version}.tgz` : undefined;
  if (tarball) files[`vendor/${tarball}`] = new Uint8Array(0);
  await checkDirectory(root, options.dir, Boolean(options.force), Object.keys(files));

  // An unpublished specroute is packed before the first file is written, so a failed build writes nothing.
  if (tarball) files[`vendor/${tarball}`] = await packedTarball(source, tarball);
  const dependency = options.specroute ?? (tarball ? `file:vendor/${tarball}` : source.version);
  const values: Record<string, string> = { name, specrouteDependency: dependency };
  for (const [file, content] of Object.entries(files)) {
    const target = join(root, ...file.split("/"));
    await mkdir(dirname(target), { recursive: true });
    try {
      // "wx": a file that appeared since the check is refused, not overwritten.
      await writeFile(target, typeof content === "string" ? render(content, values) : content, { flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new CliError(`${display(cwd, target)} exists`);
      throw err;
    }
  }

  const where = display(cwd, root);
  const install = where === "." ? template.install : `cd ${where} && ${template.install}`;
  const packed = tarball && `vendor/${tarball}, packed from ${describeSource(source)}`;
  return { root, name, files: Object.keys(files).sort(), next: [install, template.run], ...(packed && { packed }) };
}

/** The bytes of `source` packed as `npm pack` does. */
async function packedTarball(source: PackageSource, expected: string): Promise<Uint8Array> {
  const scratch = mkdtempSync(join(tmpdir(), "specroute-init-"));
  try {
    const packed = await packPackage(source, scratch);
    if (packed !== expected) throw new Error(`npm pack wrote ${packed}, not ${expected}`);
    return await readFile(join(scratch, packed));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function describeSource(source: PackageSource): string {
  return source.kind === "checkout"
    ? `the specroute checkout at ${source.root} (built now)`
    : `the specroute ${source.version} installed at ${source.root}, which did not come from the npm registry`;
}

/** `specroute init`: parse the arguments, write the project, print what to run next. */
export async function initCommand(
  argv: readonly string[],
  io: { stdout: { write(text: string): unknown }; cwd: string },
): Promise<void> {
  const args = parseInitArgs(argv);
  if (args === "help") {
    io.stdout.write(INIT_USAGE);
    return;
  }
  const result = await initProject({ ...args, cwd: io.cwd });
  const packed = result.packed ? `Its specroute dependency is ${result.packed}.\n` : "";
  io.stdout.write(
    `Created ${result.name} in ${display(io.cwd, result.root)} (${args.template} template, ${result.files.length} files)\n${packed}\n` +
      `Next:\n  ${result.next[0]}\n  ${result.next[1]}\n`,
  );
}

function parseInitArgs(argv: readonly string[]): Omit<InitOptions, "cwd"> | "help" {
  const positionals: string[] = [];
  const values: { template?: string; name?: string; specroute?: string } = {};
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "-h" || token === "--help") return "help";
    if (token === "--force") {
      force = true;
      continue;
    }
    if (!token.startsWith("-")) {
      positionals.push(token);
      continue;
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const flag = eq === -1 ? token : token.slice(0, eq);
    const option = INIT_VALUE_OPTIONS[flag];
    if (option === undefined) throw new CliError(`unknown option '${flag}' (see specroute init --help)`);
    const value = eq === -1 ? argv[++i] : token.slice(eq + 1);
    if (value === undefined || value === "" || (eq === -1 && value.startsWith("-"))) {
      throw new CliError(
        option === "template"
          ? `option '${flag}' needs a template (templates: ${TEMPLATE_NAMES})`
          : `option '${flag}' needs a value`,
      );
    }
    if (values[option] !== undefined) throw new CliError(`option '${flag}' given more than once`);
    values[option] = value;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined) throw new CliError("missing directory (usage: specroute init <dir> --template <name>)");
  if (extra.length > 0)
    throw new CliError(`unexpected argument '${extra[0]}' (usage: specroute init <dir> --template <name>)`);
  if (values.template === undefined) throw new CliError(`missing --template (templates: ${TEMPLATE_NAMES})`);
  return { dir, template: values.template, name: values.name, specroute: values.specroute, force };
}

const INIT_VALUE_OPTIONS: Record<string, "template" | "name" | "specroute" | undefined> = {
  "-t": "template",
  "--template": "template",
  "--name": "name",
  "--specroute": "specroute",
};

/** The package's folder (its package.json and `templates/`), found from this module in `src/cli/` or `dist/`. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 3; up++, dir = dirname(dir)) {
    if (existsSync(join(dir, "templates")) && existsSync(join(dir, "package.json"))) return dir;
  }
  throw new CliError("this install of specroute has no templates folder: reinstall specroute");
}

/** Every file of a template, by its path in the new project (`/`-separated), with its text. */
async function templateFiles(dir: string, prefix = ""): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const source = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, await templateFiles(source, `${prefix}${entry.name}/`));
    else if (entry.isFile()) files[`${prefix}${RENAMED[entry.name] ?? entry.name}`] = await readFile(source, "utf8");
  }
  return files;
}

/** The packages the template's package.json installs: npm refuses a project named like one of them. */
function dependenciesOf(files: Record<string, string | Uint8Array>): string[] {
  const manifest = JSON.parse((files["package.json"] as string | undefined) ?? "{}");
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})];
}

function checkName(name: string, fromDirectory: boolean, dependencies: string[]): void {
  const problem = dependencies.includes(name)
    ? "the project installs a package of that name, and npm refuses to"
    : packageNameProblem(name);
  if (problem === undefined) return;
  if (!fromDirectory) throw new CliError(`--name '${name}' is not a valid package name: ${problem}`);
  const suggestion = suggestPackageName(name);
  const fix = suggestion && !dependencies.includes(suggestion) ? `--name ${suggestion}` : "--name <name>";
  throw new CliError(
    `the directory's name '${name}' is not a valid package name (${problem}): pass ${fix}, or choose another directory`,
  );
}

/** Refuses a path that is not a directory, a non-empty directory without `force`, and any file the template would overwrite. */
async function checkDirectory(root: string, given: string, force: boolean, files: string[]): Promise<void> {
  let entries: string[];
  try {
    if (!(await stat(root)).isDirectory()) throw new CliError(`'${given}' exists and is not a directory`);
    entries = await readdir(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  const held = entries.filter((entry) => !IGNORED_ENTRIES.has(entry));
  if (held.length > 0 && !force) {
    throw new CliError(
      `'${given}' is not empty (it holds ${listed(held)}): choose a new directory, or pass --force to add the project beside what is there`,
    );
  }
  const existing = files.filter((file) => existsSync(join(root, ...file.split("/"))));
  if (existing.length > 0) {
    throw new CliError(
      `'${given}' already has ${listed(existing)}, which the template writes: nothing was written (init never overwrites a file)`,
    );
  }
}

/** Replaces each `{{key}}` with its value; a placeholder with no value is a broken template. */
function render(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (placeholder, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`the template uses ${placeholder}, which init does not fill`);
    return value;
  });
}

/** A few names of a list, for a one-line message. */
function listed(names: string[]): string {
  const sorted = [...names].sort();
  return sorted.length <= 5 ? sorted.join(", ") : `${sorted.slice(0, 5).join(", ")} and ${sorted.length - 5} more`;
}

/** A path as the user would type it from `cwd`: relative, quoted when the shell needs it. */
function display(cwd: string, path: string): string {
  const fromCwd = relative(cwd, path).split(sep).join("/") || ".";
  const shown = fromCwd.startsWith("../") ? path : fromCwd;
  return /^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}
