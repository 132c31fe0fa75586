// The runtime matrix (issue #23): on Node 20, 22 and 24, Bun and Deno, the tasks example is started with
// the runtime's own server and SQLite driver and driven over real HTTP on 127.0.0.1 from here, and (but on
// Node 20, where `npm test`'s own run does it) the adapter suites, in-process and over HTTP on the
// runtime's server, and the shared SQL suite on its driver run on that runtime. The binaries come from the
// npm registry (test/runtimes/binaries); a missing one fails its runtime's tests.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTasksScenario } from "../examples/tasks.scenario";
import { documentErrors } from "../helpers";
import { installed, RUNTIMES, type Runtime, root, runtimeEnv } from "./matrix/runtimes";

const API_KEY = "test-key";
/** A cold start compiles the example's TypeScript (tsx, Bun, Deno) on a busy 2-core machine. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** The adapter and SQL suites on one runtime: about 20 s alone, more beside the rest of `npm test`. */
const SUITES_TIMEOUT_MS = 240_000;

const scratch = mkdtempSync(join(tmpdir(), "specroute-matrix-"));
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

function assertInstalled(runtime: Runtime) {
  if (!installed(runtime)) throw new Error(`${runtime.name} is not installed at ${runtime.binary}: run npm ci`);
  const version = execFileSync(runtime.binary, ["--version"], { env: runtimeEnv(), encoding: "utf8" });
  expect(version.split("\n")[0]).toMatch(runtime.version);
}

/** Runs `binary args` from the repository root to its end (killed after `timeoutMs`); resolves with its exit code and output. */
function run(runtime: Runtime, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.binary, args, { cwd: root, env: runtimeEnv(), stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code: signal ? null : code, output });
    });
  });
}

/** The example started on `runtime` as docs/runtimes.md shows it, on a port of its choosing, with its own SQLite file. */
async function startExample(runtime: Runtime) {
  const dir = mkdtempSync(join(scratch, "example-"));
  const env = runtimeEnv({ HOST: "127.0.0.1", PORT: "0", API_KEY, DB_FILE: join(dir, "tasks.db") });
  const child = spawn(runtime.binary, runtime.startExample, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start in time:\n${output}`)), START_TIMEOUT_MS);
    child.stdout!.on("data", () => {
      const line = /^Tasks API on http:\/\/.*$/m.exec(output)?.[0];
      if (line) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it listened:\n${output}`));
    });
  });
  const origin = /http:\/\/127\.0\.0\.1:\d+/.exec(banner)![0];
  return {
    banner,
    origin,
    output: () => output,
    fetch: (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init),
    /** SIGTERM, then the exit code (SIGKILL and a failure after a timeout). */
    async stop(): Promise<number | null> {
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_TIMEOUT_MS)));
      const outcome = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (outcome !== "late") return outcome;
      child.kill("SIGKILL");
      throw new Error(`did not stop within ${STOP_TIMEOUT_MS} ms of SIGTERM:\n${output}`);
    },
  };
}

/**
 * Sends a 1 MiB file to the example's 256 KiB upload limit over a raw socket, writing every byte whatever
 * comes back; resolves with the answer's status line, what was written and any socket error.
 */
function sendOversizedUpload(
  origin: string,
  connection: "keep-alive" | "close",
): Promise<{ status: string; written: number; error?: string }> {
  const { hostname, port } = new URL(origin);
  const boundary = "matrixboundary";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const file = Buffer.alloc(1024 * 1024, 65);
  const length = Buffer.byteLength(head) + file.length + Buffer.byteLength(tail);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    let written = 0;
    let error: string | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: answer.split("\r\n")[0]!, written, error });
    };
    const timer = setTimeout(() => {
      error = "no answer within 20 s";
      done();
    }, 20_000);
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (written === file.length && answer.includes("\r\n\r\n")) done();
    });
    socket.on("error", (err) => (error = (err as NodeJS.ErrnoException).code ?? err.message));
    socket.on("close", done);
    socket.write(
      `POST /projects/1/attachments HTTP/1.1\r\nHost: ${hostname}\r\nX-API-Key: ${API_KEY}\r\nConnection: ${connection}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n${head}`,
    );
    // 64 KiB at a time, waiting for the socket to drain: a server that stops reading stalls this.
    const pump = () => {
      while (written < file.length) {
        const chunk = file.subarray(written, written + 65536);
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
      socket.write(tail);
      if (answer.includes("\r\n\r\n")) done();
    };
    pump();
  });
}

/** Each test's full title and outcome, from a vitest JSON report or bun test's own lines. */
function outcomes(runtime: Runtime, report: string, output: string): Array<{ title: string; status: string }> {
  if (runtime.name === "Bun") {
    return [...output.matchAll(/^\((pass|fail|skip|todo)\) (.*?)(?: \[[\d.]+m?s\])?$/gm)].map((match) => ({
      status: match[1] === "pass" ? "passed" : match[1]!,
      title: match[2]!,
    }));
  }
  const json = JSON.parse(readFileSync(report, "utf8"));
  return json.testResults.flatMap((file: any) =>
    file.assertionResults.map((test: any) => ({ title: test.fullName, status: test.status })),
  );
}

describe.each(RUNTIMES)("on $name", (runtime) => {
  it(`serves the tasks example with ${runtime.server} and ${runtime.sqlite}`, async () => {
    assertInstalled(runtime);
    const example = await startExample(runtime);
    try {
      expect(example.banner).toContain(`through ${runtime.sqlite}`);
      // Validation 400s naming the field, 401 without the key, multipart uploads (413 past the limit),
      // auto CRUD over SQLite with nested routes, filters and search, 404s.
      await runTasksScenario(example.fetch);
      const invalid = await example.fetch("/projects", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEY },
        body: JSON.stringify({ name: 7 }),
      });
      expect(invalid.status).toBe(400);
      expect((await invalid.json()).errors).toEqual([expect.objectContaining({ path: ["body", "name"] })]);
      expect((await example.fetch("/projects/1", { method: "DELETE" })).status).toBe(401);
      // A refused upload is read to its end, so a client still sending reads the 413, not a reset.
      const refused = { status: "HTTP/1.1 413 Payload Too Large", written: 1024 * 1024, error: undefined };
      expect(await sendOversizedUpload(example.origin, "keep-alive")).toEqual(refused);
      // Not Bun's: Bun.serve closes a Connection: close request's socket with the answer, before the refused
      // body is read, so that client gets EPIPE (docs/runtimes.md); Node does it with lingeringClose.
      if (runtime.server !== "Bun.serve") expect(await sendOversizedUpload(example.origin, "close")).toEqual(refused);

      const document = await (await example.fetch("/openapi.json")).json();
      expect(await documentErrors(document)).toBeNull();
      expect(Object.keys(document.paths)).toContain("/projects/{projectId}/tasks/{id}");
      const docs = await (await example.fetch("/docs")).text();
      expect(docs).toContain("swagger-ui");
      // The page's script, read from node_modules by specroute/node's nodeDocsAssets on every runtime.
      const script = /src="([^"]*swagger-ui-bundle\.js)"/.exec(docs)?.[1];
      expect(script).toBeDefined();
      const asset = await example.fetch(script!);
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    } finally {
      expect(await example.stop(), example.output()).toBe(0);
    }
  }, 120_000);

  // On Node 20 `npm test` runs these suites itself.
  if (!runtime.runSuites) return;
  it(
    `passes the adapter suites (in-process and over ${runtime.server}) and the SQL suite on ${runtime.sqlite}`,
    async () => {
      assertInstalled(runtime);
      const report = join(scratch, `${runtime.name.replace(/\W/g, "-")}.json`);
      const { code, output } = await run(runtime, runtime.runSuites!(report), SUITES_TIMEOUT_MS);
      expect(code, output.slice(-8000)).toBe(0);
      const tests = outcomes(runtime, report, output);
      expect(tests.filter((test) => test.status !== "passed")).toEqual([]);
      const count = (pattern: RegExp) => tests.filter((test) => pattern.test(test.title)).length;
      // Every suite ran: each adapter in-process and over the runtime's server, and the SQL suite twice.
      const server = runtime.server.replace(/[.]/g, "\\.");
      expect(count(new RegExp(`^over HTTP \\(${server}\\): hono`))).toBeGreaterThan(50);
      expect(count(new RegExp(`^over HTTP \\(${server}\\): itty-router`))).toBeGreaterThan(50);
      expect(count(/^hono: /)).toBeGreaterThan(50);
      expect(count(/^itty-router: /)).toBeGreaterThan(50);
      expect(count(new RegExp(`^SqlTable on ${runtime.sqlite} \\(memory\\)`))).toBeGreaterThan(50);
      expect(count(new RegExp(`^SqlTable on ${runtime.sqlite} \\(file\\)`))).toBeGreaterThan(50);
    },
    SUITES_TIMEOUT_MS + 10_000,
  );
});
