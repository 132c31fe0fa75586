import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startTasksServer, type TasksServer } from "../examples/processes";
import { runMcpTasksScenario } from "./tasks.mcp-scenario";

const API_KEY = "mcp-node-key";

describe("the tasks example's MCP server on Node, as `npm start` runs it", () => {
  let dir: string;
  let server: TasksServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "specroute-mcp-"));
    server = await startTasksServer({ workers: 1, env: { DB_FILE: join(dir, "tasks.db"), API_KEY } });
  }, 60_000);
  afterAll(async () => {
    await server?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists its tools, runs reads and keyed writes, and answers refusals and bad input as tool errors", async () => {
    await runMcpTasksScenario(server.origin, API_KEY);
  });
});
