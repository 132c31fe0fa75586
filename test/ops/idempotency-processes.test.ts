import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyTable, postgresDialect } from "../../src/sql";
import { freshPostgresSchema, type PostgresSchema } from "../examples/processes";

// Four processes (two on Hono, two on itty-router) over one PostgreSQL database, racing 100 retries of one
// key; and on SQLite, PostgreSQL and MariaDB, a process killed while it runs a keyed request.

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;
const root = join(__dirname, "..", "..");
const PROCESSES = 4;
const RETRIES = 100;
/** Attempts of one client while the key is in flight (409): bounded. */
const MAX_ATTEMPTS = 500;

interface Server {
  child: ChildProcess;
  origin: string;
  /** What the process wrote so far. */
  output(): string;
}

function start(url: string, router: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/ops/idempotency-server.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, ROUTER: router, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 45_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const origin = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (origin) {
        clearTimeout(timer);
        resolve({ child, origin, output: () => output });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

/** Stops a server process and waits for it to exit. */
function stop({ child }: Server): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  return exited;
}

/** One client's request, sent again while the first is in flight (409), as a client retries. */
async function retryUntilAnswered(origin: string): Promise<{ status: number; body: string; location: string | null }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const response = await fetch(`${origin}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "order-2026-0001" },
      body: JSON.stringify({ title: "Exactly once" }),
    });
    const body = await response.text();
    if (response.status !== 409) return { status: response.status, body, location: response.headers.get("location") };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("still in flight after every attempt");
}

describe.skipIf(!pgUrl)(`idempotency keys across ${PROCESSES} processes on PostgreSQL`, () => {
  let schema: PostgresSchema;
  const servers: Server[] = [];
  beforeAll(async () => {
    schema = await freshPostgresSchema(pgUrl!, "specroute_idem");
    await schema.pool.query("CREATE TABLE notes (id SERIAL PRIMARY KEY, title TEXT NOT NULL)");
    await schema.pool.query(idempotencyTable(postgresDialect));
    const started = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => start(schema.url, i % 2 === 0 ? "hono" : "itty")),
    );
    servers.push(...started);
  }, 60_000);
  afterAll(async () => {
    for (const { child } of servers) child.kill("SIGTERM");
    await schema?.drop();
  });

  it(`${RETRIES} retries of one key, spread over the processes, create one row and all get the same answer`, async () => {
    const answers = await Promise.all(
      Array.from({ length: RETRIES }, (_, i) => retryUntilAnswered(servers[i % PROCESSES]!.origin)),
    );
    const { rows } = await schema.pool.query("SELECT id, title FROM notes");
    expect(rows).toHaveLength(1);
    expect(answers[0]!.status).toBe(201);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({
      success: true,
      result: { id: rows[0].id, title: "Exactly once" },
    });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    const stored = await schema.pool.query("SELECT status FROM specroute_idempotency");
    expect(stored.rows).toEqual([{ status: 201 }]);
  }, 60_000);
});

/** A database of its own on one engine, as a DATABASE_URL for the server processes. */
interface FreshDatabase {
  url: string;
  /** Rows of the idempotency table, read by the test itself. */
  keys(): Promise<Array<{ status: number | null }>>;
  drop(): Promise<void>;
}

const crashEngines: Array<{ name: string; skip: boolean; open(): Promise<FreshDatabase> }> = [
  {
    name: "SQLite",
    skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "specroute-idem-"));
      const file = join(dir, "app.db");
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      return {
        url: `sqlite:${file}`,
        keys: async () => db.prepare("SELECT status FROM specroute_idempotency").all() as Array<{ status: number }>,
        async drop() {
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    skip: !pgUrl,
    async open() {
      const schema = await freshPostgresSchema(pgUrl!, "specroute_idem_crash");
      return {
        url: schema.url,
        keys: async () => (await schema.pool.query("SELECT status FROM specroute_idempotency")).rows,
        drop: () => schema.drop(),
      };
    },
  },
  {
    name: "MariaDB",
    skip: !mysqlUrl,
    async open() {
      const database = `specroute_idem_crash_${randomUUID().slice(0, 8)}`;
      const admin = mysql.createPool({ uri: mysqlUrl, connectionLimit: 1 });
      await admin.query(`CREATE DATABASE \`${database}\``);
      const url = new URL(mysqlUrl!);
      url.pathname = `/${database}`;
      return {
        url: url.toString(),
        keys: async () => (await admin.query(`SELECT status FROM \`${database}\`.specroute_idempotency`))[0] as any[],
        async drop() {
          await admin.query(`DROP DATABASE \`${database}\``);
          await admin.end();
        },
      };
    },
  },
];

/** Attempts of the retry while the crashed request's claim still holds the key (409), 100 ms apart: bounded. */
const CRASH_ATTEMPTS = 300;

describe.each(crashEngines)("a process killed mid-request, on $name", (engine) => {
  it.skipIf(engine.skip)(
    "frees its key once the claim's lease ends: the retry runs on another process",
    async () => {
      const database = await engine.open();
      const started: Server[] = [];
      try {
        const [hanging, healthy] = await Promise.all([
          start(database.url, "hono", { HANG: "1", LEASE_SECONDS: "1" }),
          start(database.url, "itty", { LEASE_SECONDS: "1" }),
        ]);
        started.push(hanging!, healthy!);
        const order = (origin: string) =>
          fetch(`${origin}/orders`, { method: "POST", headers: { "idempotency-key": "order-crash-1" } });
        // The first request claims the key, then its process dies before answering.
        const lost = order(hanging!.origin).catch(() => undefined);
        for (let i = 0; i < 300 && !hanging!.output().includes("handling an order"); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(hanging!.output()).toContain("handling an order");
        hanging!.child.kill("SIGKILL");
        await lost;
        let answer: Response | undefined;
        for (let attempt = 0; attempt < CRASH_ATTEMPTS; attempt++) {
          answer = await order(healthy!.origin);
          if (answer.status !== 409) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(answer!.status).toBe(201);
        expect(await answer!.json()).toEqual({ handledBy: healthy!.child.pid });
        // The retry's answer is the key's now: the next retry replays it.
        expect(await (await order(healthy!.origin)).json()).toEqual({ handledBy: healthy!.child.pid });
        expect(await database.keys()).toEqual([{ status: 201 }]);
      } finally {
        await Promise.all(started.map(stop));
        await database.drop();
      }
    },
    90_000,
  );
});
