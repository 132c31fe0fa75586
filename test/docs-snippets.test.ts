// Every ```ts block of README.md, docs/*.md and the agent files, compiled and run in an app that installed
// the packed package, as a new user copies them.
//
// A block that serves an app (it `export default`s one, or exports the router fromHono/fromIttyRouter
// made) is followed on its page, before the next ```ts block, by an HTML comment on lines of its own,
// invisible where the page is rendered: the requests the page shows, the first first, and the answers it
// describes. The test sends them and fails where an answer differs (a 5xx always does), and where a
// serving block has no such comment. One directive a line:
//
//   <!--
//   request: POST /projects/1/tasks {"id":1,"title":"Write docs","done":false} headers {"x-api-key":"dev"} → 201 {"result":{"id":1}}
//   request: GET /projects/1/tasks → 200
//   -->
//
//   request: METHOD PATH [BODY] [headers {HEADERS}] → STATUS [EXPECTED]
//       BODY is JSON, sent as application/json. EXPECTED is JSON the answer holds: an object's members and
//       an array's items (as many) matched recursively, or a string the answer's text contains (of a
//       stream, what arrives within a second). Requests are sent in order, on one app.
//   on: workerd | postgres
//       Where the block runs, Node by default. workerd: in Miniflare, bundled (esbuild, as Wrangler does)
//       into one worker with the other workerd blocks, each at a host of its own with an empty D1 of its
//       own as env.DB, and LIVE_CHANGES bound to LiveChangesObject where a block exports it.
//       postgres: Node with DATABASE_URL naming an empty schema of SPECROUTE_PG_URL (not run without it).
//       Each ```sql block between the block and its comment is the page's migration, applied to the empty
//       database first.
//   run
//       For a block that serves nothing but acts on the app it imports from a sibling ("./app"): requests
//       before `run` go to that app, then the block runs, then the requests after it.
//
// Every block runs from a new empty directory (its cwd), so `new Database("tasks.db")` starts empty, as a
// new user's does. All of them run in one process (workerd beside it).
import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Answer, Outcome, RequestStep, Step, Trial } from "./docs-snippet-runner";
import { installInto, packPackage } from "./packed-package";

const root = join(__dirname, "..");
const outDir = join(root, ".artifacts", "snippets");
const run = promisify(execFile);

interface Snippet {
  /** `<file>/<position>`, e.g. `docs-getting-started-md/2`: each file's snippets share a directory. */
  name: string;
  code: string;
  /** Where it starts, for messages: `docs/live.md:8`. */
  at: string;
  /** The comment after it that says how to try it (the grammar is at the top of this file). */
  annotation?: string;
  /** The ```sql blocks between it and that comment: its page's migration. */
  migration: string[];
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

/**
 * Every ```ts block of README.md, docs/*.md and the agent files, named after its file and position, with
 * the comment that follows it before the next ```ts block, if any.
 */
function snippets(): Snippet[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => join("docs", file));
  const files = ["README.md", ...docs, ...AGENT_FILES];
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), "utf8");
    const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)];
    return blocks.map((match, index) => {
      const end = match.index + match[0].length;
      const after = text.slice(end, blocks[index + 1]?.index ?? text.length);
      const comment = /^[ \t]*<!--\s*((?:request:|on:|run\b)[\s\S]*?)-->/m.exec(after);
      const before = comment ? after.slice(0, comment.index) : "";
      return {
        name: `${pageOf(file)}/${index + 1}`,
        code: match[1]!,
        at: `${file}:${text.slice(0, match.index).split("\n").length}`,
        annotation: comment?.[1],
        migration: [...before.matchAll(/```sql\n([\s\S]*?)```/g)].flatMap(([, sql]) => statementsOf(sql!)),
      };
    });
  });
}

/** A migration's statements: split at each `;` that ends a line, `--` comments left out. */
const statementsOf = (sql: string) =>
  sql
    .replace(/--.*$/gm, "")
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter(Boolean);

/**
 * A snippet that serves an app as written: it exports one (or a Workers-style `{ fetch }`) as its default,
 * or the router `fromHono`/`fromIttyRouter` made, for its page's other snippets to serve and call.
 */
const servesApp = (snippet: Snippet) =>
  /^export default /m.test(snippet.code) || /^export const \w+ = from(?:Hono|IttyRouter)\(/m.test(snippet.code);

/** Reads a snippet's comment into the steps it asks for and where they run (the grammar is at the top). */
function parseAnnotation(snippet: Snippet): { on: Trial["on"]; steps: Step[] } {
  let on: Trial["on"] = "node";
  const steps: Step[] = [];
  for (const line of snippet.annotation!.split("\n").map((text) => text.trim())) {
    if (line === "") continue;
    const where = /^on: (workerd|postgres)$/.exec(line);
    const request = /^request: ([A-Z]+) (\/\S*)(.*?)\s*→\s*(\d{3})(?:\s+(.+))?$/.exec(line);
    if (line === "run") steps.push({ run: true });
    else if (where) on = where[1] as Trial["on"];
    else if (request) steps.push(requestStep(request as unknown as string[], snippet));
    else throw new Error(`${snippet.at}: the comment after the example has a line this test cannot read: ${line}`);
  }
  return { on, steps };
}

function requestStep([line, method, path, sent, status, expected]: string[], snippet: Snippet): RequestStep {
  const json = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${snippet.at}: not JSON in "${line}": ${text}`);
    }
  };
  let body = sent!.trim();
  let headers: Record<string, string> = {};
  const headersAt = body.lastIndexOf("headers {");
  if (headersAt >= 0) {
    headers = json(body.slice(headersAt + "headers ".length));
    body = body.slice(0, headersAt).trim();
  }
  if (Number(status) >= 500) throw new Error(`${snippet.at}: a 5xx is never the answer an example describes: ${line}`);
  return {
    method: method!,
    path: path!,
    body: body === "" ? undefined : json(body),
    headers,
    status: Number(status),
    expected: expected === undefined ? undefined : json(expected),
  };
}

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

const pgUrl = process.env.SPECROUTE_PG_URL;

/** How each snippet with a comment is tried; a script's requests go to the sibling module it imports. */
function trialsOf(all: Snippet[]): Trial[] {
  return all.flatMap((snippet) => {
    if (snippet.annotation === undefined) return [];
    const { on, steps } = parseAnnotation(snippet);
    const sibling = siblingImports(snippet.code)[0]?.module;
    const runs = steps.some((step) => "run" in step);
    if (runs && !sibling) throw new Error(`${snippet.at}: \`run\` needs the example to import its app from a sibling`);
    return [
      {
        name: snippet.name,
        serves: servesApp(snippet),
        on,
        app: runs ? `${dirname(snippet.name)}/${sibling}` : snippet.name,
        steps,
        migration: snippet.migration,
        env: {},
        skip: on === "postgres" && !pgUrl ? "SPECROUTE_PG_URL is not set" : undefined,
      },
    ];
  });
}

/** Whether `actual` holds `expected`: an object's members and an array's items (as many) recursively, else equal. */
function holds(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => holds(actual[i], item))
    );
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null) return false;
    return Object.entries(expected).every(([key, value]) => holds((actual as Record<string, unknown>)[key], value));
  }
  return Object.is(actual, expected);
}

/** What differs between an answer and what the page describes, or undefined when nothing does. */
function mismatch(step: RequestStep, answer: Answer): string | undefined {
  const got = `answered ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status !== step.status) return `${got}, where the page describes ${step.status}`;
  if (step.expected === undefined) return undefined;
  if (typeof step.expected === "string") {
    return answer.text.includes(step.expected) ? undefined : `${got}, without ${JSON.stringify(step.expected)}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `${got}, which is not JSON`;
  }
  return holds(body, step.expected) ? undefined : `${got}, which does not hold ${JSON.stringify(step.expected)}`;
}

/** Each step of each trial whose answer is not what its page describes (a 5xx never is), as a sentence. */
function failures(trials: Trial[], all: Snippet[], outcomes: Record<string, Outcome>): string[] {
  return trials.flatMap((trial) => {
    const snippet = all.find(({ name }) => name === trial.name)!;
    const outcome = outcomes[trial.name]!;
    const where = `${snippet.at} (${trial.name}, ${trial.on})`;
    const logged = outcome.logged.length > 0 ? `; it logged: ${outcome.logged.join(" | ").slice(0, 400)}` : "";
    const requests = trial.steps.filter((step): step is RequestStep => "method" in step);
    const found = requests.flatMap((step, i) => {
      const answer = outcome.answers[i];
      if (answer === undefined) return [];
      const wrong = mismatch(step, answer);
      return wrong ? [`${where}: ${step.method} ${step.path} ${wrong}${logged}`] : [];
    });
    if (outcome.error) found.push(`${where}: ${outcome.error.split("\n").slice(0, 4).join(" ")}${logged}`);
    return found;
  });
}

/**
 * What a new user does: the package built and packed as `npm pack` makes it, unpacked into a new app's
 * node_modules beside the packages the snippets need (linked from this repository's, so no download),
 * then every snippet compiled there and every one that serves an app sent the requests its page shows.
 */
describe("documentation snippets in an app with the packed package installed", () => {
  const all = snippets();
  const runnable = all.filter(servesApp);
  const trials = trialsOf(all);
  let tmp: string;
  let app: string;
  /** The empty PostgreSQL schema the `on: postgres` snippets get, dropped afterwards. */
  let schema: string | undefined;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "specroute-packed-"));
    app = join(tmp, "app");
    // The runner bundles the workerd snippets (esbuild) and runs them in Miniflare.
    installInto(app, await packPackage(tmp), [...packagesFor(all), "esbuild", "miniflare"]);
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
    copyFileSync(join(__dirname, "docs-snippet-runner.ts"), join(app, "run.ts"));
    if (pgUrl && trials.some((trial) => trial.on === "postgres")) schema = await emptySchema(trials);
  }, 240_000);

  /** Makes an empty schema, applies each `on: postgres` snippet's migration there and points DATABASE_URL at it. */
  async function emptySchema(trials: Trial[]): Promise<string> {
    const name = `docs_snippets_${process.pid}_${Date.now()}`;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${name}"`);
      await client.query(`SET search_path TO "${name}"`);
      const url = new URL(pgUrl!);
      url.searchParams.set("options", `-c search_path=${name}`);
      for (const trial of trials.filter(({ on }) => on === "postgres")) {
        for (const statement of trial.migration) await client.query(statement);
        trial.env = { DATABASE_URL: url.toString() };
      }
    } finally {
      await client.end();
    }
    return name;
  }

  let tried: Promise<Record<string, Outcome>> | undefined;
  /** Tries every snippet once, in one process of the app (snippets may leave handles open: it exits). */
  const tryAll = () => {
    tried ??= (async () => {
      writeFileSync(join(app, "plan.json"), JSON.stringify(trials));
      try {
        await run(
          process.execPath,
          [join(app, "node_modules", "tsx", "dist", "cli.mjs"), "run.ts", "plan.json", "outcomes.json"],
          {
            cwd: app,
            maxBuffer: 64 * 1024 * 1024,
          },
        );
      } catch (err) {
        throw new Error(`the snippets' runner failed: ${(err as { stderr?: string }).stderr || err}`);
      }
      return JSON.parse(readFileSync(join(app, "outcomes.json"), "utf8")) as Record<string, Outcome>;
    })();
    return tried;
  };

  afterAll(async () => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    if (schema) {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP SCHEMA "${schema}" CASCADE`).finally(() => client.end());
    }
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

  it("names each exception class of the built package as chanfana does, in ESM and CommonJS", async () => {
    // What `err.constructor.name` says in an app's onError: a bundler's rename (`_NotFoundException`) would show.
    const script = `const m = await import("specroute"); const c = require("specroute");
      const names = ["ApiException", "InputValidationException", "NotFoundException", "UnauthorizedException", "MultiException"];
      console.log(JSON.stringify(names.map((name) => [m[name].name, c[name].name])));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createRequire } from "node:module"; const require = createRequire(import.meta.url + "/../app/"); ${script}`,
      ],
      { cwd: app },
    );
    const names = [
      "ApiException",
      "InputValidationException",
      "NotFoundException",
      "UnauthorizedException",
      "MultiException",
    ];
    expect(JSON.parse(stdout)).toEqual(names.map((name) => [name, name]));
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

  it("every one that serves an app says on its page which request to send it first", () => {
    expect(runnable.length).toBeGreaterThan(3);
    const unsaid = runnable.filter((snippet) => snippet.annotation === undefined).map(({ at }) => at);
    expect(unsaid, "a serving example needs the comment after it that gives its first request").toEqual([]);
  });

  it("every one answers the requests its page shows as the page describes, from an empty directory", async () => {
    const outcomes = await tryAll();
    expect(
      failures(
        trials.filter((trial) => !trial.skip && trial.on !== "postgres"),
        all,
        outcomes,
      ),
    ).toEqual([]);
  }, 90_000);

  it.skipIf(!pgUrl)(
    "and those on PostgreSQL, each from an empty schema",
    async () => {
      const outcomes = await tryAll();
      expect(
        failures(
          trials.filter((trial) => trial.on === "postgres"),
          all,
          outcomes,
        ),
      ).toEqual([]);
    },
    90_000,
  );

  it("every one that serves an app serves its document, and answers 404 where no route matches", async () => {
    const outcomes = await tryAll();
    for (const { name } of runnable) {
      expect(outcomes[name]?.served, `${name}: ${outcomes[name]?.error}`).toMatchObject({
        document: 200,
        missing: 404,
      });
      expect(outcomes[name]!.served!.servers, name).not.toContain("undefined");
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
    const outcomes = await tryAll();
    expect(Object.fromEntries(written)).toEqual(
      Object.fromEntries(runnable.map(({ name }) => [name, { paths: outcomes[name]?.served?.paths }])),
    );
  }, 90_000);
});
