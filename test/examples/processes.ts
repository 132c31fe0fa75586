// Helpers to run the tasks example as real processes and load it over real HTTP, for the multi-process
// suites: start and stop the server (one process or a cluster), a PostgreSQL schema of its own, and a
// bounded pool of concurrent requests.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import pg from "pg";

const root = join(__dirname, "..", "..");

/** How long the server may take to start (a cold tsx compile on a busy machine), and to stop. */
const START_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 10_000;

/** A running `examples/tasks/server.ts`. */
export interface TasksServer {
  /** `http://127.0.0.1:<port>`, the one port every worker shares. */
  origin: string;
  /** The primary's process id (the only process when there are no workers). */
  pid: number;
  /** Process ids of the workers listening now (announced, and not reported gone); empty without workers. */
  readonly workerPids: number[];
  /** Everything the processes wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM to the primary and resolves with its exit code (SIGKILL after a timeout); safe to call twice. */
  stop(): Promise<number | null>;
}

/**
 * Starts the example as `npm start` runs it (tsx), on an ephemeral 127.0.0.1 port, with `--workers`
 * and the given environment; resolves once every worker listens and the server answers.
 */
export async function startTasksServer(options: {
  workers: number;
  env: Record<string, string>;
}): Promise<TasksServer> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Only what the test says: no DATABASE_URL or WORKERS leaking in from the shell.
  delete env.DATABASE_URL;
  delete env.WORKERS;
  Object.assign(env, { HOST: "127.0.0.1", PORT: "0" }, options.env);
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "examples/tasks/server.ts", "--workers", String(options.workers)],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), START_TIMEOUT_MS);
    const check = () => {
      const url = /Tasks API on (http:\/\/\S+)/.exec(output)?.[1];
      const workers = options.workers > 1 ? workerPidsIn(output).length : 1;
      if (url && workers >= options.workers) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before it listened:\n${output}`));
    });
  });
  let origin: string;
  try {
    origin = await listening;
    await untilAnswering(origin);
  } catch (error) {
    // The workers leave on their own once the primary is gone (their IPC channel closes).
    child.kill("SIGKILL");
    throw error;
  }

  let stopping: Promise<number | null> | undefined;
  return {
    origin,
    pid: child.pid!,
    get workerPids() {
      return workerPidsIn(output);
    },
    output: () => output,
    stop: () => (stopping ??= stopProcess(child, exited)),
  };
}

function workerPidsIn(output: string): number[] {
  const gone = new Set([...output.matchAll(/worker (\d+) exited/g)].map((match) => Number(match[1])));
  const listening = [...output.matchAll(/worker (\d+) listening/g)].map((match) => Number(match[1]));
  return listening.filter((pid) => !gone.has(pid));
}

async function untilAnswering(origin: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${origin}/openapi.json`);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch (error) {
      if (attempt === 50) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopProcess(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_TIMEOUT_MS)));
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome !== "late") return outcome;
  // The primary's workers leave on their own once it is gone (their IPC channel closes).
  child.kill("SIGKILL");
  await exited;
  throw new Error(`the server did not stop within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
}

/** A PostgreSQL schema nobody else uses: `url` puts a connection in it (search_path), `pool` is the test's own. */
export interface PostgresSchema {
  name: string;
  url: string;
  pool: pg.Pool;
  /** Drops the schema with everything in it and ends the pool. */
  drop(): Promise<void>;
}

/** Creates an empty schema named `<prefix>_<pid>_<random>`, and a URL whose connections use it. */
export async function freshPostgresSchema(baseUrl: string, prefix: string): Promise<PostgresSchema> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  const options = url.searchParams.get("options");
  url.searchParams.set("options", `${options ? `${options} ` : ""}-c search_path=${name}`);
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  return {
    name,
    url: url.toString(),
    pool,
    async drop() {
      await pool.query(`DROP SCHEMA "${name}" CASCADE`);
      await pool.end();
    },
  };
}

/** One HTTP request of a load, and what came back. */
export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}
export interface LoadResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: any;
}

/**
 * Sends every request over at most `connections` keep-alive connections, `connections` in flight at a
 * time, in the order given; resolves with the responses in that order. Each request gives up after
 * `timeoutMs`, so a load always ends.
 */
export async function sendConcurrently(
  origin: string,
  requests: LoadRequest[],
  options: { connections: number; timeoutMs?: number },
): Promise<LoadResponse[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const responses: LoadResponse[] = new Array(requests.length);
  let next = 0;
  const lane = async () => {
    while (next < requests.length) {
      const index = next++;
      responses[index] = await send(agent, origin, requests[index]!, options.timeoutMs ?? 30_000);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.connections, requests.length) }, lane));
  } finally {
    agent.destroy();
  }
  return responses;
}

function send(agent: http.Agent, origin: string, request: LoadRequest, timeoutMs: number): Promise<LoadResponse> {
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = { ...request.headers };
  if (payload) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(payload.byteLength);
  }
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${origin}${request.path}`,
      { method: request.method, headers, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: incoming.statusCode!, headers: incoming.headers, body });
        });
      },
    );
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`${request.method} ${request.path} timed out`)));
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}
