import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { app } from "../../examples/tasks/app";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { betterSqlite3Driver } from "../../src";
import { main } from "../../src/cli/main";
import { documentErrors } from "../helpers";
import { runTasksScenario } from "./tasks.scenario";

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
      "/projects/{projectId}/tasks/{id}",
      "/projects/{projectId}/attachments",
      "/stats",
    ]);
    expect(served.paths["/projects"].post.security).toEqual([{ apiKey: [] }]);
  });
});
