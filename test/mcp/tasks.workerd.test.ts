import { afterAll, beforeAll, describe, it } from "vitest";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { startWorker } from "../runtimes/bundle";
import { runMcpTasksScenario } from "./tasks.mcp-scenario";

const API_KEY = "mcp-workerd-key";

describe("the tasks example's MCP server inside workerd with D1 (Miniflare), over HTTP", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let origin: string;
  beforeAll(async () => {
    worker = await startWorker("examples/tasks/worker.ts", {
      schema: MIGRATIONS,
      bindings: { API_KEY },
      durableObjects: { LIVE_CHANGES: "LiveChangesObject" },
    });
    // Miniflare's own HTTP server in front of workerd, on 127.0.0.1.
    origin = (await worker.mf.ready).origin;
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("lists its tools, runs reads and keyed writes, and answers refusals and bad input as tool errors", async () => {
    await runMcpTasksScenario(origin, API_KEY);
  });
});
