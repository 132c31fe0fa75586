import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import { pgDriver, SqlChangeLog } from "../../src";
import { deliversEveryChange } from "./scenario";
import { createTable } from "./tasks-app";

// The live collection across processes on PostgreSQL, over real HTTP: 4 server processes, 20 listeners
// spread over them, 4 writers doing 1,000 creates, updates and deletes across two projects (scenario.ts).

const pgUrl = process.env.SPECROUTE_PG_URL;
const root = join(__dirname, "..", "..");
const table = `live_processes_${process.pid}`;
const PROCESSES = 4;
const LISTENERS = 20;
const WRITERS = 4;
const WRITES = 1000;

const children: ChildProcess[] = [];
let origins: string[] = [];
let pool: pg.Pool;

/** Starts one server process and resolves with its origin once it listens. */
function startServer(): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/live/live-server.ts"], {
    cwd: root,
    env: { ...process.env, LIVE_TABLE: table },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a server did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const origin = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (origin) {
        clearTimeout(timer);
        resolve(origin);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(new Error(`a server exited with ${code}:\n${output}`)));
  });
}

beforeAll(async () => {
  if (!pgUrl) return;
  pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
  await createTable(pgDriver(pool), table);
  await pool.query("DELETE FROM specroute_changes WHERE collection = $1", [table]).catch(() => {});
  await pool.query("DELETE FROM specroute_change_heads WHERE collection = $1", [table]).catch(() => {});
  origins = await Promise.all(Array.from({ length: PROCESSES }, startServer));
}, 90_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await pool?.end();
});

describe.skipIf(!pgUrl)("a live collection over 4 processes on PostgreSQL", () => {
  it("delivers every change to every listener whose filter it meets, in commit order, none lost or twice, across a reconnect", async () => {
    await deliversEveryChange({
      origins,
      listeners: LISTENERS,
      writers: WRITERS,
      writes: WRITES,
      readLog: () => new SqlChangeLog().readAfter(pgDriver(pool), table, 0, WRITES * 2),
    });
  }, 120_000);
});
