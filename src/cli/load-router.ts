import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { attachedRouter } from "../adapters/attached-routers";
import type { OpenAPIDocument, OpenAPIVersion } from "../openapi/types";
import { CliError, errorLocation, oneLine } from "./errors";

/** What the CLI needs of a router made by `fromHono` / `fromIttyRouter`, read by shape so any loaded copy works. */
interface SpecrouteRouter {
  readonly isSpecroute: true;
  readonly options: { readonly openapiVersion: OpenAPIVersion };
  getGeneratedSchema(version?: OpenAPIVersion, env?: Record<string, unknown>): OpenAPIDocument;
  /** Compiles every route (absent on routers of specroute versions before it existed). */
  compile?(): unknown;
}

/** The part of tsx's programmatic API the loader uses. */
export interface TsxApi {
  tsImport(specifier: string, parentURL: string): Promise<Record<string, unknown>>;
}

interface LoadRouterOptions {
  /** Directory the module path is relative to. */
  cwd: string;
  /** Export holding the router; default `default`, else the first export that is a router. */
  exportName?: string;
  /** How tsx is loaded for TypeScript modules (tests replace it). */
  loadTsx?: (modulePath: string) => Promise<TsxApi>;
}

interface LoadedRouter {
  router: SpecrouteRouter;
  exportName: string;
  /** Other exports that are routers too, when the router was picked without `--export`. */
  alsoFound: string[];
}

// Transpiled by tsx; everything else is left to Node's own loader.
const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx"]);

/**
 * Imports an app module and returns the specroute router it exports. Importing is all it does:
 * registering routes builds the route table, so nothing is served.
 *
 * @example
 * const { router } = await loadRouter("src/app.ts", { cwd: process.cwd() });
 * router.getGeneratedSchema("3.1");
 */
export async function loadRouter(modulePath: string, options: LoadRouterOptions): Promise<LoadedRouter> {
  const namespace = await importModule(modulePath, options);
  return pickRouter(namespace, modulePath, options.exportName);
}

/** Imports a module by path: TypeScript through tsx, JavaScript through plain `import()`. */
export async function importModule(
  modulePath: string,
  options: Pick<LoadRouterOptions, "cwd" | "loadTsx">,
): Promise<Record<string, unknown>> {
  const absolute = resolve(options.cwd, modulePath);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    throw new CliError(`module not found: ${modulePath}`);
  }
  if (!isFile) throw new CliError(`module not found: ${modulePath} is not a file`);

  const url = pathToFileURL(absolute).href;
  const isTypeScript = TYPESCRIPT_EXTENSIONS.has(extname(absolute).toLowerCase());
  const tsx = isTypeScript ? await (options.loadTsx ?? loadTsx)(absolute) : undefined;
  let namespace: Record<string, unknown>;
  try {
    namespace = tsx ? await tsx.tsImport(url, import.meta.url) : await import(url);
  } catch (err) {
    const where = errorLocation(err, options.cwd);
    throw new CliError(`could not import ${modulePath}: ${oneLine(err)}${where ? ` (at ${where})` : ""}`);
  }
  // A compiled ES module loaded as CommonJS: its exports, `default` included, are all on `module.exports`.
  const commonJs = namespace.default as { __esModule?: unknown } | null | undefined;
  return typeof commonJs === "object" && commonJs?.__esModule === true
    ? (commonJs as Record<string, unknown>)
    : namespace;
}

/** tsx from next to the CLI, else from the app's own dependencies; loaded only for TypeScript modules. */
async function loadTsx(modulePath: string): Promise<TsxApi> {
  try {
    return (await import("tsx/esm/api")) as TsxApi;
  } catch (err) {
    if (!isModuleNotFound(err)) throw err;
  }
  try {
    // require.resolve would pick tsx's CommonJS build, so the ESM entry is read from tsx's export map.
    const packageJson = createRequire(modulePath).resolve("tsx/package.json");
    const api = JSON.parse(readFileSync(packageJson, "utf8")).exports?.["./esm/api"]?.import;
    const entry = typeof api === "string" ? api : api?.default;
    if (typeof entry !== "string") throw new Error("tsx has no ESM ./esm/api export");
    return (await import(pathToFileURL(resolve(dirname(packageJson), entry)).href)) as TsxApi;
  } catch {
    throw new CliError(
      `${modulePath} is TypeScript, which needs tsx: install it (npm install -D tsx) or point at the built JavaScript`,
    );
  }
}

function isModuleNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/**
 * The router among a module's exports: the one named, else `default` if it is or holds a router, else
 * the first export (in the alphabetical order module namespaces use) that does.
 */
export function pickRouter(namespace: Record<string, unknown>, modulePath: string, exportName?: string): LoadedRouter {
  const names = Object.keys(namespace);
  if (exportName !== undefined) {
    if (!names.includes(exportName)) {
      throw new CliError(`${modulePath} has no export '${exportName}' (exports: ${listNames(names)})`);
    }
    const router = routerIn(namespace[exportName]);
    if (router === undefined) throw new CliError(notARouter(exportName, namespace[exportName]));
    return { router, exportName, alsoFound: [] };
  }

  const found = names.flatMap((name) => {
    const router = routerIn(namespace[name]);
    return router ? [{ name, router }] : [];
  });
  const chosen = found.find(({ name }) => name === "default") ?? found[0];
  if (chosen !== undefined) {
    return {
      router: chosen.router,
      exportName: chosen.name,
      // `export default app` next to `export const openapi` is one router under two names.
      alsoFound: found.filter(({ router }) => router !== chosen.router).map(({ name }) => name),
    };
  }
  if (names.includes("default")) throw new CliError(notARouter("default", namespace.default));
  throw new CliError(
    `${modulePath} exports no specroute router (exports: ${listNames(names)}): export the value returned by fromHono() or fromIttyRouter()`,
  );
}

/**
 * The specroute router a value is, or the one attached to it: a Hono app or itty-router router that
 * `fromHono`/`fromIttyRouter` wrapped, or a Workers-style `{ fetch }` object of one.
 */
function routerIn(value: unknown): SpecrouteRouter | undefined {
  if (isSpecrouteRouter(value)) return value;
  const attached = attachedRouter(value);
  return isSpecrouteRouter(attached) ? attached : undefined;
}

/**
 * Whether a value is a router made by `fromHono` / `fromIttyRouter`. Checked by shape: the app module
 * may have loaded another copy of specroute than the CLI's.
 */
export function isSpecrouteRouter(value: unknown): value is SpecrouteRouter {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof SpecrouteRouter, unknown>>;
  // Strictly `true`: itty-router's proxy answers any property with a function.
  return candidate.isSpecroute === true && typeof candidate.getGeneratedSchema === "function";
}

function notARouter(name: string, value: unknown): string {
  if (isHonoApp(value)) {
    return `export '${name}' is a Hono app without a specroute router: call fromHono() on it, or export the value fromHono() returned`;
  }
  if (isIttyRouter(value)) {
    return `export '${name}' is an itty-router router without a specroute router: call fromIttyRouter() on it, or export the value fromIttyRouter() returned`;
  }
  return `export '${name}' is ${describe(value)}, not a specroute router: export the value returned by fromHono() or fromIttyRouter()`;
}

// Hono's `router` is an object with `match`; on itty-router's proxy every unknown property is a function.
function isHonoApp(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const app = value as { fetch?: unknown; router?: { match?: unknown } | null };
  return typeof app.fetch === "function" && typeof app.router === "object" && typeof app.router?.match === "function";
}

function isIttyRouter(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const router = value as { fetch?: unknown; routes?: unknown };
  return typeof router.fetch === "function" && Array.isArray(router.routes);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object";
  return `a ${typeof value}`;
}

function listNames(names: string[]): string {
  return names.length > 0 ? names.join(", ") : "none";
}
