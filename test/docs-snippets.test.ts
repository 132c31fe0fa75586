import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installInto, packPackage } from "./packed-package";

const root = join(__dirname, "..");
const outDir = join(root, ".artifacts", "snippets");
const run = promisify(execFile);

interface Snippet {
  /** `<file>/<position>`, e.g. `docs-getting-started-md/2`: each file's snippets share a directory. */
  name: string;
  code: string;
}

/** Files written for coding agents that ship in the package (each skill's SKILL.md too), held to the same standard. */
const AGENT_FILES = [
  "AGENTS.md",
  "llms.txt",
  ...readdirSync(join(root, "skills"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith("SKILL.md"))
    .map((file) => join("skills", file)),
];

/** The directory a file's snippets share: `docs/getting-started.md` → `docs-getting-started-md`. */
const pageOf = (file: string) => file.replace(/[^A-Za-z0-9]+/g, "-");

/** Every ```ts block of README.md, docs/*.md and the agent files, named after its file and position. */
function snippets(): Snippet[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => join("docs", file));
  const files = ["README.md", ...docs, ...AGENT_FILES];
  return files.flatMap((file) =>
    [...readFileSync(join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({
      name: `${pageOf(file)}/${index + 1}`,
      code: match[1]!,
    })),
  );
}

/** A snippet a module could serve as written: it exports an app (or a Workers-style `{ fetch }`) as its default. */
const isRunnable = (snippet: Snippet) => /^export default /m.test(snippet.code);

/** What `code` imports by name from a sibling module (`import { A, type B } from "./x"`). */
function siblingImports(code: string): Array<{ module: string; names: string[] }> {
  return [...code.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']\.\/([\w-]+)["']/gm)].map(
    ([, list, module]) => ({
      module: module!,
      names: list!.split(",").map((item) =>
        item
          .replace(/\btype\s+/, "")
          .replace(/\s+as\s+\w+/, "")
          .trim(),
      ),
    }),
  );
}

const exportsName = (code: string, name: string) =>
  new RegExp(`^export (?:abstract |async )*(?:class|const|let|function|type|interface) ${name}\\b`, "m").test(code);

/**
 * Writes each snippet to `<dir>/<name>.ts`. A snippet importing `{ A } from "./x"` gets, as `x.ts` beside
 * it, the snippet of the same page that exports `A` (getting-started's "./search-tasks").
 */
function writeSnippets(dir: string, all: Snippet[]): void {
  for (const { name, code } of all) {
    const page = dirname(name);
    mkdirSync(join(dir, page), { recursive: true });
    writeFileSync(join(dir, `${name}.ts`), code);
    for (const { module, names } of siblingImports(code)) {
      const provider = all.find(
        (other) =>
          dirname(other.name) === page && other.name !== name && names.every((id) => exportsName(other.code, id)),
      );
      if (provider) writeFileSync(join(dir, page, `${module}.ts`), provider.code);
    }
  }
}

/**
 * The packages the snippets need besides specroute: its peers (the README's install line and the docs
 * say to add them), what the snippets import, what an `// npm install ...` comment in them names, the
 * `@types` of each, and what compiling and running them takes.
 */
function packagesFor(all: Snippet[]): string[] {
  const peers = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).peerDependencies ?? {});
  const names = new Set(["@types/node", "tsx", ...peers]);
  for (const { code } of all) {
    for (const [, specifier] of code.matchAll(/^import\s+(?:[^"']*\sfrom\s+)?["']([^"'.][^"']*)["']/gm)) {
      names.add(
        specifier!
          .split("/")
          .slice(0, specifier!.startsWith("@") ? 2 : 1)
          .join("/"),
      );
    }
    for (const [, list] of code.matchAll(/\/\/ npm install (.+)$/gm)) {
      for (const name of list!.trim().split(/\s+/)) names.add(name);
    }
  }
  for (const name of [...names]) {
    const types = `@types/${name.replace(/^@/, "").replace("/", "__")}`;
    if (existsSync(join(root, "node_modules", types))) names.add(types);
  }
  return [...names].filter((name) => name !== "specroute" && !name.startsWith("node:")).sort();
}

describe("documentation snippets", () => {
  it("the README quick start runs as written", async () => {
    const quickStart = snippets().find(
      (snippet) => snippet.name.startsWith("README") && snippet.code.includes("fromHono"),
    );
    expect(quickStart).toBeDefined();
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, "quick-start-run.ts");
    writeFileSync(file, quickStart!.code);
    const { app } = await import(file);
    const created = await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 1, title: "Try specroute" }),
    });
    expect(await created.json()).toEqual({ id: 1, title: "Try specroute", done: false });
    expect(await (await app.request("/tasks/1")).json()).toEqual({ id: 1, title: "Try specroute", done: false });
    expect((await app.request("/tasks/2")).status).toBe(404);
    const invalid = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" };
    expect((await app.request("/tasks", invalid)).status).toBe(400);
    const doc = await (await app.request("/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(["/tasks", "/tasks/{id}"]);
  });
});

/** Imports each snippet named in SNIPPETS as an app module does, asks its default export for its document and a path no route matches. */
const RUNNER = `const results = {};
for (const name of process.env.SNIPPETS.split(",")) {
  try {
    const exported = (await import(\`./src/\${name}.ts\`)).default;
    const call = (path) => exported.fetch(new Request(\`http://localhost\${path}\`));
    const document = await call("/openapi.json");
    const body = document.status === 200 ? await document.json() : {};
    const missing = await call("/specroute-no-such-route");
    results[name] = {
      document: document.status,
      paths: Object.keys(body.paths ?? {}),
      servers: (body.servers ?? []).map((server) => server.url),
      missing: missing === undefined ? "undefined" : missing.status,
    };
  } catch (err) {
    results[name] = { error: String(err?.stack ?? err) };
  }
}
process.stdout.write("\\n" + JSON.stringify(results) + "\\n");
process.exit(0);
`;

/** What the runner found per snippet. */
type Served = Record<string, { document: number; paths: string[]; servers: string[]; missing: number | "undefined" }>;

/**
 * What a new user does: the package built and packed as `npm pack` makes it, unpacked into a new app's
 * node_modules beside the packages the snippets need (linked from this repository's, so no download),
 * then every snippet compiled there and every one that exports an app run.
 */
describe("documentation snippets in an app with the packed package installed", () => {
  const all = snippets();
  const runnable = all.filter(isRunnable);
  let tmp: string;
  let app: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "specroute-packed-"));
    app = join(tmp, "app");
    installInto(app, await packPackage(tmp), packagesFor(all));
    writeFileSync(join(app, "package.json"), JSON.stringify({ private: true, type: "module" }));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          lib: ["ES2023", "DOM", "DOM.Iterable"],
          types: ["node"],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ["src"],
      }),
    );
    writeSnippets(join(app, "src"), all);
    writeFileSync(join(app, "run.mjs"), RUNNER);
  }, 240_000);

  let served: Promise<Served> | undefined;
  /** Runs every runnable snippet once, in one process of the app (snippets may leave handles open: it exits). */
  const serve = () => {
    served ??= run(process.execPath, [join(app, "node_modules", "tsx", "dist", "cli.mjs"), "run.mjs"], {
      cwd: app,
      env: { ...process.env, SNIPPETS: runnable.map((snippet) => snippet.name).join(",") },
    }).then(
      ({ stdout }) => JSON.parse(stdout.slice(stdout.lastIndexOf("\n{") + 1)) as Served,
      (err) => {
        throw new Error(`the snippets' runner failed: ${err.stderr || err}`);
      },
    );
    return served;
  };

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("packs the files the package names, LICENSE included, without the sources", () => {
    const installed = join(app, "node_modules", "specroute");
    expect(readdirSync(installed).sort()).toEqual([
      "AGENTS.md",
      "LICENSE",
      "README.md",
      "bin",
      "dist",
      "docs",
      "llms.txt",
      "package.json",
      "skills",
      "templates",
    ]);
  });

  it("all type-check with TypeScript 5.9 and TypeScript 7", async () => {
    expect(all.length).toBeGreaterThan(3);
    for (const file of AGENT_FILES) {
      expect(all.filter((snippet) => dirname(snippet.name) === pageOf(file)).length, file).toBeGreaterThan(0);
    }
    const compilers = {
      "5.9": join(root, "node_modules", "typescript", "bin", "tsc"),
      "7": join(root, "test", "cli", "typescript-7", "node_modules", "typescript", "bin", "tsc"),
    };
    const results = await Promise.all(
      Object.entries(compilers).map(async ([version, tsc]) => {
        const { stdout: versionLine } = await run(process.execPath, [tsc, "--version"]);
        expect(versionLine).toContain(`Version ${version}`);
        try {
          await run(process.execPath, [tsc, "-p", join(app, "tsconfig.json")], { cwd: app });
          return { version, errors: "" };
        } catch (err) {
          return { version, errors: (err as { stdout?: string }).stdout || String(err) };
        }
      }),
    );
    expect(results).toEqual(Object.keys(compilers).map((version) => ({ version, errors: "" })));
  }, 120_000);

  it("every one that exports an app serves its document, and answers 404 where no route matches", async () => {
    expect(runnable.length).toBeGreaterThan(3);
    const results = await serve();
    for (const { name } of runnable) {
      expect(results[name], name).toMatchObject({ document: 200, missing: 404 });
      expect(results[name]!.servers, name).not.toContain("undefined");
    }
  }, 60_000);

  it("specroute openapi writes the document each one serves", async () => {
    const bin = join(app, "node_modules", "specroute", "bin", "specroute.mjs");
    const written = await Promise.all(
      runnable.map(async ({ name }) => {
        try {
          const { stdout } = await run(process.execPath, [bin, "openapi", `src/${name}.ts`], { cwd: app });
          return [name, { paths: Object.keys(JSON.parse(stdout).paths ?? {}) }] as const;
        } catch (err) {
          return [name, { error: String((err as { stderr?: string }).stderr || err) }] as const;
        }
      }),
    );
    const results = await serve();
    expect(Object.fromEntries(written)).toEqual(
      Object.fromEntries(runnable.map(({ name }) => [name, { paths: results[name]?.paths }])),
    );
  }, 90_000);
});
