// The program test/docs-snippets.test.ts runs inside the app it installed (copied there as run.ts and
// started with tsx, cwd the app): it imports every documentation snippet that serves an app, each from a
// new empty directory, sends each the requests its page shows, and writes what they answered to a file.
// The workerd snippets run in Miniflare, beside this process. It imports only what the app has installed:
// the packed specroute, the snippets' packages, esbuild and Miniflare.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

/** A request a page shows, and the answer it describes. */
export interface RequestStep {
  method: string;
  path: string;
  body?: unknown;
  headers: Record<string, string>;
  status: number;
  /** JSON the answer contains (an object or array matched as a subset), or a string its text contains. */
  expected?: unknown;
}

/** Sends a request, or (`run`) imports the snippet itself: a script that acts on the app it imports. */
export type Step = RequestStep | { run: true };

/** How one snippet is tried. */
export interface Trial {
  /** The snippet, `<page>/<position>`; its module is `src/<name>.ts`. */
  name: string;
  /** It serves an app: also ask it for its document and a path no route matches. */
  serves: boolean;
  /** Node (in this process), workerd (Miniflare, an empty D1 as DB) or Node on an empty PostgreSQL schema. */
  on: "node" | "workerd" | "postgres";
  /** The module whose app the requests go to: the snippet's own, or for a script the sibling it imports. */
  app: string;
  steps: Step[];
  /** Statements applied to the empty database before the snippet starts: the page's migration. */
  migration: string[];
  /** Set in process.env while the snippet runs (DATABASE_URL for PostgreSQL). */
  env: Record<string, string>;
  /** Left untried, with the reason (PostgreSQL without SPECROUTE_PG_URL). */
  skip?: string;
}

/** What the app answered a request (`status` "undefined" when its fetch returned nothing). */
export interface Answer {
  status: number | "undefined";
  contentType: string;
  /** The body's text; of a stream, what arrived until the expected text did, or for up to a second. */
  text: string;
}

export interface Outcome {
  /** What the app serves besides its routes: its document and an unmatched path. */
  served?: { document: number; paths: string[]; servers: string[]; missing: number | "undefined" };
  /** The answer to each step that is a request, in order (a `run` step answers nothing). */
  answers: Answer[];
  /** Where the trial stopped: an import that threw, a request that threw or never answered. */
  error?: string;
  /** What the app logged through console.error meanwhile (a 500's cause). */
  logged: string[];
}

type Fetcher = (url: string, init: RequestInit) => Promise<Response | undefined>;

const ORIGIN = "http://localhost";
const REQUEST_TIMEOUT_MS = 10_000;
const STREAM_WAIT_MS = 1_000;

async function main() {
  const [planFile, resultFile] = process.argv.slice(2) as [string, string];
  const trials = JSON.parse(readFileSync(planFile, "utf8")) as Trial[];
  const outcomes: Record<string, Outcome> = {};
  for (const trial of trials) outcomes[trial.name] = { answers: [], logged: [] };
  const logged = captureErrors();
  // workerd runs beside this process: its trials go on while the Node ones run here.
  const workerd = tryInWorkerd(
    trials.filter((trial) => trial.on === "workerd"),
    outcomes,
  );
  for (const trial of trials) {
    if (trial.on === "workerd") continue;
    if (!trial.skip) await tryInNode(trial, outcomes[trial.name]!, logged);
    else if (trial.serves) await serveInNode(trial, outcomes[trial.name]!, logged);
  }
  await workerd;
  writeFileSync(resultFile, JSON.stringify(outcomes));
  // Snippets leave pools, brokers and timers open: nothing else is waited for.
  process.exit(0);
}

/** Collects what console.error prints, per trial: the runner's own output stays a file. */
function captureErrors(): string[] {
  const logged: string[] = [];
  console.error = (...args: unknown[]) => {
    logged.push(args.map(describe).join(" "));
  };
  return logged;
}

/** An error as its first line and its causes' (a 500's envelope hides the driver's error in `cause`). */
function describe(value: unknown): string {
  if (!(value instanceof Error)) return String(value);
  const cause = value.cause === undefined ? "" : ` (cause: ${describe(value.cause)})`;
  return `${value.name}: ${value.message}${cause}`;
}

/** The snippets' modules, written by the test; each trial changes the cwd, so this is read first. */
const SRC = join(process.cwd(), "src");
/** Where each trial gets its empty directory: inside the app, which the test removes. */
const CWDS = join(process.cwd(), "cwd");

const emptyDirectory = () => {
  mkdirSync(CWDS, { recursive: true });
  return mkdtempSync(join(CWDS, "snippet-"));
};
const moduleUrl = (name: string) => pathToFileURL(join(SRC, `${name}.ts`)).href;

/** What a module serves: its default export's `fetch`, else that of the router it exports. */
function fetcherOf(namespace: Record<string, unknown>): Fetcher {
  const app = [namespace.default, ...Object.values(namespace)].find(
    (value) => typeof (value as { fetch?: unknown } | null)?.fetch === "function",
  ) as { fetch(request: Request): Promise<Response | undefined> } | undefined;
  if (!app) throw new Error("the module exports no app with a fetch");
  return async (url, init) => app.fetch(new Request(url, init));
}

/** Runs a trial in this process, from a new empty directory, with its environment set. */
async function tryInNode(trial: Trial, outcome: Outcome, logged: string[]): Promise<void> {
  const cwd = process.cwd();
  const saved = Object.fromEntries(Object.keys(trial.env).map((key) => [key, process.env[key]]));
  process.chdir(emptyDirectory());
  Object.assign(process.env, trial.env);
  logged.length = 0;
  try {
    const fetcher = fetcherOf(await import(moduleUrl(trial.app)));
    await runSteps(trial, fetcher, outcome, () => import(moduleUrl(trial.name)));
    if (trial.serves) outcome.served = await servedBy(fetcher);
  } catch (err) {
    outcome.error = describe(err);
  } finally {
    outcome.logged = [...logged];
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    process.chdir(cwd);
  }
}

/** Only the document and an unmatched path: for a snippet left untried (PostgreSQL without a database). */
async function serveInNode(trial: Trial, outcome: Outcome, logged: string[]): Promise<void> {
  const cwd = process.cwd();
  process.chdir(emptyDirectory());
  try {
    outcome.served = await servedBy(fetcherOf(await import(moduleUrl(trial.name))));
  } catch (err) {
    outcome.error = describe(err);
    outcome.logged = [...logged];
  } finally {
    process.chdir(cwd);
  }
}

async function servedBy(fetcher: Fetcher): Promise<NonNullable<Outcome["served"]>> {
  const document = await fetcher(`${ORIGIN}/openapi.json`, {});
  const body = document?.status === 200 ? await document.json() : {};
  const missing = await fetcher(`${ORIGIN}/specroute-no-such-route`, {});
  await missing?.body?.cancel();
  return {
    document: document?.status ?? 0,
    paths: Object.keys(body.paths ?? {}),
    servers: (body.servers ?? []).map((server: { url: string }) => server.url),
    missing: missing === undefined ? "undefined" : missing.status,
  };
}

/** Sends the trial's requests in order; `run` imports the snippet itself. Stops at the first that throws. */
async function runSteps(trial: Trial, fetcher: Fetcher, outcome: Outcome, run: () => Promise<unknown>) {
  for (const step of trial.steps) {
    if ("run" in step) {
      await run();
      continue;
    }
    const init: RequestInit = { method: step.method, headers: { ...step.headers } };
    if (step.body !== undefined) {
      init.body = JSON.stringify(step.body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const response = await within(fetcher(`${ORIGIN}${step.path}`, init), `${step.method} ${step.path}`);
    outcome.answers.push(await answerOf(response, step.expected));
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer in ${REQUEST_TIMEOUT_MS} ms`)),
      REQUEST_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The answer as the test compares it; a stream is read until the expected text arrives, or a second. */
async function answerOf(response: Response | undefined, expected: unknown): Promise<Answer> {
  if (response === undefined) return { status: "undefined", contentType: "", text: "" };
  const contentType = response.headers.get("content-type") ?? "";
  if (!/event-stream|jsonl|ndjson/.test(contentType)) {
    return { status: response.status, contentType, text: await response.text() };
  }
  let text = "";
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + STREAM_WAIT_MS;
  while (typeof expected === "string" && !text.includes(expected) && Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now())),
    ]);
    if (next === null || next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel();
  return { status: response.status, contentType, text };
}

/**
 * Runs the workerd trials in one Miniflare: one worker, bundled as Wrangler bundles one, serves every
 * workerd snippet, each at a host of its own (`snippet<i>.localhost`) and with an empty D1 of its own as
 * its `env.DB`, the page's migration applied; LIVE_CHANGES is bound to LiveChangesObject where a snippet
 * exports it (as the page's wrangler.jsonc does). One bundle and one worker instead of one a snippet:
 * workerd compiles specroute, zod and Hono once.
 */
async function tryInWorkerd(trials: Trial[], outcomes: Record<string, Outcome>): Promise<void> {
  if (trials.length === 0) return;
  const live = trials.some((trial) =>
    /\bLiveChangesObject\b/.test(readFileSync(join(SRC, `${trial.name}.ts`), "utf8")),
  );
  let mf: Miniflare | undefined;
  try {
    mf = new Miniflare({
      modules: true,
      script: await bundleWorker(trials, live),
      compatibilityDate: "2025-01-01",
      compatibilityFlags: ["nodejs_compat"],
      d1Databases: Object.fromEntries(trials.map((_, index) => [`DB${index}`, `snippet${index}`])),
      durableObjects: live ? { LIVE_CHANGES: "LiveChangesObject" } : {},
    });
    const worker = await mf.getWorker();
    await Promise.all(
      trials.map(async (trial, index) => {
        const outcome = outcomes[trial.name]!;
        try {
          const db = await mf!.getD1Database(`DB${index}`);
          for (const statement of trial.migration) await db.prepare(statement).run();
          const fetcher: Fetcher = async (url, init) =>
            (await worker.fetch(url.replace("//localhost", `//snippet${index}.localhost`), init as never)) as never;
          await runSteps(trial, fetcher, outcome, async () => {
            throw new Error("`run` is for Node snippets");
          });
          if (trial.serves) outcome.served = await servedBy(fetcher);
        } catch (err) {
          outcome.error = describe(err);
        }
      }),
    );
  } catch (err) {
    for (const trial of trials) outcomes[trial.name]!.error ??= `workerd: ${describe(err)}`;
  } finally {
    await mf?.dispose();
  }
}

/** The worker: each snippet's app, handed the request for its host with its own D1 as `env.DB`. */
async function bundleWorker(trials: Trial[], live: boolean): Promise<string> {
  const entry = [
    ...trials.map((trial, index) => `import * as snippet${index} from "./${trial.name}.ts";`),
    live ? `export { LiveChangesObject } from "specroute";` : "",
    // What the snippet serves: its default export's fetch, else that of the router it exports.
    "const appOf = (module) => [module.default, ...Object.values(module)].find((value) => typeof value?.fetch === 'function');",
    `const apps = [${trials.map((_, index) => `appOf(snippet${index})`).join(", ")}];`,
    "export default {",
    "  fetch(request, env, ctx) {",
    "    const index = Number(/^snippet(\\d+)\\./.exec(new URL(request.url).hostname)[1]);",
    "    return apps[index].fetch(request, { ...env, DB: env['DB' + index] }, ctx);",
    "  },",
    "};",
  ].join("\n");
  const result = await build({
    stdin: { contents: entry, resolveDir: SRC, loader: "js", sourcefile: "workerd-entry.js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

await main();
