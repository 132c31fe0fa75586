// npm run soak [-- --seconds 60 --warmup 15 --connections 50 --write-limit N]: the tasks example under
// mixed CRUD load.
//
// Starts examples/tasks/server.ts as a child process on a free 127.0.0.1 port with a temporary SQLite
// file (or the PostgreSQL at DATABASE_URL, in WORKERS processes, as the example reads them), drives it
// with a fixed number of keep-alive connections, and prints requests, statuses per operation, latency,
// and the server's RSS (its processes together) after warm-up and at the end. The example's write limit
// is raised to --write-limit a minute (default 100 million), so the soak loads the server, not its
// limit: a 429 is a failure, explained. Each connection works in a
// project of its own, so every status is predictable: anything but the expected one is a failure.
// At the end every task each connection believes it has is read back: nothing may be lost.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { databaseConfig, describeDatabase } from "../examples/tasks/database";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    warmup: { type: "string", default: "15" },
    connections: { type: "string", default: "50" },
    "write-limit": { type: "string", default: "100000000" },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const WRITE_LIMIT = values["write-limit"];
const API_KEY = "soak-key";
const MAX_TASKS = 40;

type Op =
  | "create_task"
  | "get_task"
  | "patch_task"
  | "delete_task"
  | "list_tasks"
  | "search_tasks"
  | "get_project"
  | "list_projects"
  | "stats"
  | "bad_body"
  | "missing_key"
  | "missing_task"
  | "bad_query";
/** Operations whose expected answer is a 4xx, sent on purpose. */
const INTENDED_4XX = new Set<Op>(["bad_body", "missing_key", "missing_task", "bad_query"]);

interface Stats {
  statuses: Map<Op, Map<number, number>>;
  unexpected: Array<{ op: Op; status: number; body: string }>;
  errors: string[];
  latencies: number[];
  requests: number;
}

const newStats = (): Stats => ({ statuses: new Map(), unexpected: [], errors: [], latencies: [], requests: 0 });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The resident memory of a process and of its children (a cluster's workers), in bytes. */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const own = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  const children = readdirSync(`/proc/${pid}/task`).flatMap((thread) =>
    readFileSync(`/proc/${pid}/task/${thread}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  return own + children.reduce((sum, child) => sum + rssOf(child), 0);
}

async function startServer(port: number, dbFile: string): Promise<ChildProcess> {
  // node --import tsx (not the tsx binary, which forks): the child's pid is the server's, for its RSS.
  const child = spawn(process.execPath, ["--import", "tsx", "examples/tasks/server.ts"], {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), DB_FILE: dbFile, API_KEY, WRITE_LIMIT },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s:\n${output}`)), 30_000);
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      if (output.includes("Tasks API on")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return child;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function call(port: number, method: string, path: string, body?: unknown, key = true) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (payload !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(payload));
    }
    if (key) headers["x-api-key"] = API_KEY;
    const request = http.request({ host: "127.0.0.1", port, method, path, headers, agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, text }));
    });
    request.setTimeout(10_000, () => request.destroy(new Error("request timed out after 10 s")));
    request.on("error", reject);
    request.end(payload);
  });
}

interface TaskState {
  id: number;
  title: string;
  status: string;
  priority: number;
}

/** One connection's loop: its own project, a bounded set of tasks it keeps track of. */
async function connection(port: number, index: number, until: () => boolean, stats: () => Stats) {
  const tasks = new Map<number, TaskState>();
  let serial = 0;
  const created = await call(port, "POST", "/projects", { name: `soak ${index} ${process.pid}` });
  if (created.status !== 201) throw new Error(`could not create a project: ${created.status} ${created.text}`);
  const projectId: number = JSON.parse(created.text).result.id;
  const base = `/projects/${projectId}/tasks`;
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
  const anyTask = () => pick([...tasks.values()]);

  while (!until()) {
    const roll = Math.random();
    let op: Op;
    if (tasks.size === 0 || (roll < 0.2 && tasks.size < MAX_TASKS)) op = "create_task";
    else if (roll < 0.3) op = "delete_task";
    else if (roll < 0.45) op = "get_task";
    else if (roll < 0.6) op = "patch_task";
    else if (roll < 0.72) op = "list_tasks";
    else if (roll < 0.8) op = "search_tasks";
    else if (roll < 0.85) op = "get_project";
    else if (roll < 0.89) op = "list_projects";
    else if (roll < 0.93) op = "stats";
    else op = pick<Op>(["bad_body", "missing_key", "missing_task", "bad_query"]);

    let expected = 200;
    let send: () => Promise<{ status: number; text: string }>;
    let onSuccess: (text: string) => void = () => {};
    switch (op) {
      case "create_task": {
        const title = `task ${index}-${serial++}`;
        const priority = 1 + Math.floor(Math.random() * 5);
        expected = 201;
        send = () => call(port, "POST", base, { title, priority, due: "2027-01-15" });
        onSuccess = (text) => {
          const id: number = JSON.parse(text).result.id;
          tasks.set(id, { id, title, status: "todo", priority });
        };
        break;
      }
      case "delete_task": {
        const task = anyTask();
        send = () => call(port, "DELETE", `${base}/${task.id}`);
        onSuccess = () => tasks.delete(task.id);
        break;
      }
      case "get_task": {
        const task = anyTask();
        send = () => call(port, "GET", `${base}/${task.id}`, undefined, false);
        onSuccess = (text) => {
          const row = JSON.parse(text).result;
          if (row.title !== task.title || row.status !== task.status || row.priority !== task.priority) {
            throw new Error(`task ${task.id} reads ${JSON.stringify(row)}, expected ${JSON.stringify(task)}`);
          }
        };
        break;
      }
      case "patch_task": {
        const task = anyTask();
        const change = { status: pick(["todo", "doing", "done"]), priority: 1 + Math.floor(Math.random() * 5) };
        send = () => call(port, "PATCH", `${base}/${task.id}`, change);
        onSuccess = () => Object.assign(task, change);
        break;
      }
      case "list_tasks":
        send = () =>
          call(
            port,
            "GET",
            `${base}?status=${pick(["todo", "doing", "done"])}&order_by=priority&per_page=10`,
            undefined,
            false,
          );
        break;
      case "search_tasks":
        send = () => call(port, "GET", `${base}?search=task%20${index}-&per_page=5&page=2`, undefined, false);
        break;
      case "get_project":
        send = () => call(port, "GET", `/projects/${projectId}`, undefined, false);
        break;
      case "list_projects":
        send = () => call(port, "GET", "/projects?per_page=5&order_by=name", undefined, false);
        break;
      case "stats":
        send = () => call(port, "GET", `/stats?projectId=${projectId}`, undefined, false);
        break;
      case "bad_body":
        expected = 400;
        send = () => call(port, "POST", base, { title: "", priority: 9 });
        break;
      case "missing_key":
        expected = 401;
        send = () => call(port, "POST", base, { title: "no key" }, false);
        break;
      case "missing_task":
        expected = 404;
        send = () => call(port, "GET", `${base}/999999999`, undefined, false);
        break;
      case "bad_query":
        expected = 400;
        send = () => call(port, "GET", `${base}?per_page=101&unknown=1`, undefined, false);
        break;
    }

    const s = stats();
    const started = performance.now();
    try {
      const { status, text } = await send();
      s.latencies.push(performance.now() - started);
      s.requests++;
      const byStatus = s.statuses.get(op) ?? new Map<number, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      s.statuses.set(op, byStatus);
      if (status !== expected) s.unexpected.push({ op, status, body: text.slice(0, 300) });
      else onSuccess(text);
    } catch (err) {
      s.errors.push(`${op}: ${(err as Error).message}`);
    }
  }
  return { projectId, tasks };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "specroute-soak-"));
  const port = await freePort();
  const dbFile = join(dir, "tasks.db");
  // What the example itself reads from the same environment: the database it really serves from.
  const database = describeDatabase(databaseConfig({ ...process.env, DB_FILE: dbFile }));
  const server = await startServer(port, dbFile);
  const MB = 1024 * 1024;
  let exitCode = 1;
  try {
    const workers = process.env.WORKERS ? `, ${process.env.WORKERS} worker processes` : "";
    console.log(
      `soak: ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${SECONDS} s of mixed CRUD on the tasks example (pid ${server.pid}, 127.0.0.1:${port}, ${database}${workers}, write limit ${WRITE_LIMIT} a minute)`,
    );
    const warm = newStats();
    const measured = newStats();
    let phase: Stats = warm;
    const started = Date.now();
    const end = started + (WARMUP + SECONDS) * 1000;
    const rssSamples: Array<[number, number]> = [];
    let rssAfterWarmup = 0;
    const warmupTimer = setTimeout(() => {
      rssAfterWarmup = rssOf(server.pid!);
      phase = measured;
    }, WARMUP * 1000);
    const sampler = setInterval(() => rssSamples.push([(Date.now() - started) / 1000, rssOf(server.pid!)]), 5000);

    const results = await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, index) =>
        connection(
          port,
          index,
          () => Date.now() >= end,
          () => phase,
        ),
      ),
    );
    clearTimeout(warmupTimer);
    clearInterval(sampler);
    const rssEnd = rssOf(server.pid!);

    // Nothing lost: every task each connection tracks is stored exactly as it last wrote it, and no other.
    let lost = 0;
    let checked = 0;
    for (const { projectId, tasks } of results) {
      const { status, text } = await call(port, "GET", `/projects/${projectId}/tasks?per_page=100`, undefined, false);
      const stored = status === 200 ? (JSON.parse(text).result as TaskState[]) : [];
      const byId = new Map(stored.map((task) => [task.id, task]));
      if (stored.length !== tasks.size) lost += Math.abs(stored.length - tasks.size);
      for (const task of tasks.values()) {
        checked++;
        const row = byId.get(task.id);
        if (!row || row.title !== task.title || row.status !== task.status || row.priority !== task.priority) lost++;
      }
    }

    const sorted = [...measured.latencies].sort((a, b) => a - b);
    const ops = [...measured.statuses.keys()].sort();
    console.log(
      `\nmeasured: ${measured.requests} requests in ${SECONDS} s = ${Math.round(measured.requests / SECONDS)} req/s (warm-up: ${warm.requests})`,
    );
    console.log(`${"operation".padEnd(15)}statuses`);
    for (const op of ops) {
      const statuses = [...measured.statuses.get(op)!].map(([status, n]) => `${status}×${n}`).join(" ");
      console.log(`${op.padEnd(15)}${statuses}${INTENDED_4XX.has(op) ? "   (intended)" : ""}`);
    }
    const intended = ops
      .filter((op) => INTENDED_4XX.has(op))
      .reduce((n, op) => n + [...measured.statuses.get(op)!.values()].reduce((a, b) => a + b, 0), 0);
    const errors = warm.errors.length + measured.errors.length;
    const unexpected = warm.unexpected.length + measured.unexpected.length;
    console.log(
      `latency: p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`,
    );
    console.log(`errors (network, timeouts): ${errors}; unexpected statuses: ${unexpected}; intended 4xx: ${intended}`);
    console.log(`read back: ${checked} tracked tasks, ${lost} lost or different`);
    const drift = (rssEnd - rssAfterWarmup) / rssAfterWarmup;
    console.log(
      `server RSS: ${(rssAfterWarmup / MB).toFixed(1)} MB after warm-up, ${(rssEnd / MB).toFixed(1)} MB at the end (${drift >= 0 ? "+" : ""}${(drift * 100).toFixed(1)}%, at most +10%: growth is what a leak shows)`,
    );
    console.log(
      `RSS samples: ${rssSamples.map(([t, rss]) => `${t.toFixed(0)}s ${(rss / MB).toFixed(0)}`).join(", ")} MB`,
    );
    for (const { op, status, body } of [...warm.unexpected, ...measured.unexpected].slice(0, 5)) {
      console.log(`  unexpected ${op}: ${status} ${body}`);
    }
    for (const error of [...warm.errors, ...measured.errors].slice(0, 5)) console.log(`  error ${error}`);
    const limited = [...warm.unexpected, ...measured.unexpected].filter(({ status }) => status === 429).length;
    if (limited > 0) {
      console.log(
        `  ${limited} answers were 429: the example's write limit (${WRITE_LIMIT} a minute per client) was reached, so the run measured the limit, not the server; raise --write-limit`,
      );
    }

    const pass = errors === 0 && unexpected === 0 && lost === 0 && drift <= 0.1;
    console.log(`result: ${pass ? "PASS" : "FAIL"}`);
    exitCode = pass ? 0 : 1;
  } finally {
    agent.destroy();
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

await main();
