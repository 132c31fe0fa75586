// The runtimes of the matrix: where each binary is, how the tasks example starts on it, and how the
// adapter and SQL suites run there. docs/runtimes.md shows the same commands.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTER_SUITE } from "./suite";

export const root = fileURLToPath(new URL("../../..", import.meta.url));

/** One runtime the matrix runs on. */
export interface Runtime {
  name: string;
  /** What `<binary> --version` prints first. */
  version: RegExp;
  /** The runtime's executable; a missing one fails the matrix, naming it. */
  binary: string;
  /** The SQLite driver the example picks there (examples/tasks/database.ts). */
  sqlite: "better-sqlite3" | "node:sqlite" | "bun:sqlite";
  /** The server the adapter suites' HTTP runs use there (test/helpers.ts). */
  server: "@hono/node-server" | "Bun.serve" | "Deno.serve";
  /** Arguments after the binary that start the tasks example from the repository root. */
  startExample: string[];
  /**
   * Arguments after the binary that run the adapter suites and the SQL suite on the runtime's driver, with
   * `report` naming a file for the runner's report; none on Node 20, where `npm test`'s own run is that.
   */
  runSuites?: (report: string) => string[];
}

// The runtimes' packages are dependencies of test/runtimes/binaries (see its package.json).
const binaries = join(root, "test/runtimes/binaries");
function packageDir(name: string, from = binaries): string | null {
  try {
    return dirname(createRequire(join(from, "package.json")).resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}
const inPackage = (dir: string | null, file: string) => (dir ? join(dir, file) : `(${file}: package not installed)`);

/** Whether the runtime's executable is there. */
export function installed(runtime: Runtime): boolean {
  return existsSync(runtime.binary);
}

// Bun's and Deno's binaries come in their platform packages; the bun package's install script moves Bun's
// into its own bin/ (where a placeholder stands until then), Deno's copies it.
const arch = process.arch === "arm64" ? "arm64" : "x64";
const bunPackage = `@oven/bun-${process.platform}-${arch === "arm64" ? "aarch64" : arch}`;
const denoPackage = `@deno/${process.platform}-${arch}${process.platform === "linux" ? "-glibc" : ""}`;

const nodeWithTsx = ["--import", "tsx", "examples/tasks/server.ts"];
const vitestRun = (report: string) => [
  "node_modules/vitest/vitest.mjs",
  "run",
  "--config",
  "test/runtimes/matrix/vitest.config.ts",
  "--reporter=json",
  `--outputFile=${report}`,
];

export const RUNTIMES: Runtime[] = [
  {
    name: "Node 20",
    version: /^v20\./,
    // The project's own Node, the one `npm test` runs on.
    binary: process.execPath,
    sqlite: "better-sqlite3",
    server: "@hono/node-server",
    startExample: nodeWithTsx,
  },
  {
    name: "Node 22",
    version: /^v22\./,
    binary: inPackage(packageDir("node-22", join(binaries, "node-22")), "bin/node"),
    sqlite: "node:sqlite",
    server: "@hono/node-server",
    startExample: nodeWithTsx,
    runSuites: vitestRun,
  },
  {
    name: "Node 24",
    version: /^v24\./,
    binary: inPackage(packageDir("node-24", join(binaries, "node-24")), "bin/node"),
    sqlite: "node:sqlite",
    server: "@hono/node-server",
    startExample: nodeWithTsx,
    runSuites: vitestRun,
  },
  {
    name: "Bun",
    version: /^1\.4\./,
    binary:
      [inPackage(packageDir(bunPackage), "bin/bun"), inPackage(packageDir("bun"), "bin/bun.exe")].find(existsSync) ??
      "(bun: package not installed)",
    sqlite: "bun:sqlite",
    server: "Bun.serve",
    startExample: ["examples/tasks/bun.ts"],
    // bun test runs the vitest-style suites itself; it reads tsconfig.json's paths for "specroute".
    runSuites: () => [
      "test",
      "--timeout",
      "30000",
      ...ADAPTER_SUITE.map((file) => `./${file}`),
      "./test/sql/bun-sqlite.runtime.ts",
    ],
  },
  {
    name: "Deno",
    version: /^deno 2\./,
    binary: inPackage(packageDir(denoPackage), "deno"),
    sqlite: "node:sqlite",
    server: "Deno.serve",
    startExample: [
      "run",
      "--config",
      "examples/tasks/deno.json",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "examples/tasks/deno.ts",
    ],
    // vitest itself runs on Deno (its workers are Deno processes too); -A as the test runner needs.
    runSuites: (report) => ["run", "-A", ...vitestRun(report)],
  },
];

/** Environment for every runtime process: no update checks or prompts, which would reach for the network. */
export function runtimeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", ...extra };
  // The example must read only what the matrix gives it.
  delete env.DATABASE_URL;
  delete env.WORKERS;
  // vitest marks its own processes; a nested run must not take itself for a worker of this one.
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "TEST") delete env[key];
  return env;
}
