import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { app } from "../../examples/tasks/app";
import { MIGRATIONS, migrationsFor } from "../../examples/tasks/migrations";
import { betterSqlite3Driver, pgDriver } from "../../src";
import { main } from "../../src/cli/main";
import { documentErrors } from "../helpers";
import { freshPostgresSchema } from "./processes";
import { runTasksScenario } from "./tasks.scenario";

const pgUrl = process.env.SPECROUTE_PG_URL;

function nodeEnv() {
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  for (const statement of MIGRATIONS) sqlite.exec(statement);
  return { env: { DB: betterSqlite3Driver(sqlite), API_KEY: "test-key" }, sqlite };
}

describe("the tasks example on Node (app.request)", () => {
  it("serves the scenario over better-sqlite3", async () => {
    const { env, sqlite } = nodeEnv();
    await runTasksScenario((path, init) => Promise.resolve(app.request(path, init, env)));
    expect(sqlite.prepare("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 2 });
    sqlite.close();
  });

  it.skipIf(!pgUrl)("serves the scenario over PostgreSQL (pg), on the example's PostgreSQL migrations", async () => {
    const schema = await freshPostgresSchema(pgUrl!, "wt_scale_example");
    try {
      for (const statement of migrationsFor(pgDriver(schema.pool))) await schema.pool.query(statement);
      // Twice: each statement is safe to run again.
      for (const statement of migrationsFor(pgDriver(schema.pool))) await schema.pool.query(statement);
      const env = { DB: pgDriver(schema.pool), API_KEY: "test-key" };
      await runTasksScenario((path, init) => Promise.resolve(app.request(path, init, env)));
      const { rows } = await schema.pool.query(`SELECT "projectId", id, status FROM tasks ORDER BY id`);
      expect(rows).toEqual([
        { projectId: 1, id: 1, status: "todo" },
        { projectId: 1, id: 2, status: "done" },
      ]);
    } finally {
      await schema.drop();
    }
  });

  it("numbers concurrently created tasks without losing one", async () => {
    const { env, sqlite } = nodeEnv();
    const post = (body: unknown) =>
      app.request(
        "/projects",
        {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "test-key" },
          body: JSON.stringify(body),
        },
        env,
      );
    expect((await post({ name: "Busy" })).status).toBe(201);
    const creates = Array.from({ length: 20 }, (_, i) =>
      app.request(
        "/projects/1/tasks",
        {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "test-key" },
          body: JSON.stringify({ title: `task ${i}` }),
        },
        env,
      ),
    );
    const statuses = await Promise.all(creates.map(async (response) => (await response).status));
    expect(statuses.every((status) => status === 201)).toBe(true);
    const ids = sqlite
      .prepare("SELECT id FROM tasks ORDER BY id")
      .all()
      .map((row: any) => row.id);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    sqlite.close();
  });

  it("serves a document that validates, the one `specroute openapi` writes", async () => {
    const served = await (await app.request("/openapi.json")).json();
    expect(await documentErrors(served)).toBeNull();
    let out = "";
    const code = await main(["openapi", "examples/tasks/app.ts"], {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(served);
    expect(Object.keys(served.paths)).toEqual([
      "/projects",
      "/projects/{id}",
      "/projects/{projectId}/tasks",
      "/projects/{projectId}/tasks/changes",
      "/projects/{projectId}/tasks/{id}",
      "/projects/{projectId}/attachments",
      "/stats",
    ]);
    expect(served.paths["/projects"].post.security).toEqual([{ apiKey: [] }]);
  });
});
