import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idempotencyTable, postgresDialect } from "../../src/sql";
import { freshPostgresSchema, type PostgresSchema } from "../examples/processes";

// Four processes (two on Hono, two on itty-router) over one PostgreSQL database, racing 100 retries of one key.

const pgUrl = process.env.SPECROUTE_PG_URL;
const root = join(__dirname, "..", "..");
const PROCESSES = 4;
const RETRIES = 100;
/** Attempts of one client while the key is in flight (409): bounded. */
const MAX_ATTEMPTS = 500;

function start(url: string, router: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/ops/idempotency-server.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, ROUTER: router },
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
        resolve({ child, origin });
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
  const servers: Array<{ child: ChildProcess; origin: string }> = [];
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
