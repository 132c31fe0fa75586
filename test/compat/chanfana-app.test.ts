import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, it } from "vitest";
import { listenOnLoopback } from "../helpers";
import { startWorker } from "../runtimes/bundle";
import app from "./chanfana-app/app";
import { API_TOKEN, runBodyRereadScenario, runChanfanaAppScenario } from "./chanfana-app.scenario";
import { d1OverSqlite } from "./d1-over-sqlite";

// The app's D1 migration, one statement at a time.
const SCHEMA = readFileSync(new URL("./chanfana-app/schema.sql", import.meta.url), "utf8")
  .replace(/--.*$/gm, "")
  .split(";")
  .map((statement) => statement.trim())
  .filter(Boolean);

describe("a chanfana app, unchanged but for its import, on Node over HTTP", () => {
  const DB = d1OverSqlite(SCHEMA);
  let server: Awaited<ReturnType<typeof listenOnLoopback>>;
  beforeAll(async () => {
    server = await listenOnLoopback((request) => app.fetch(request, { DB, API_TOKEN }));
  });
  const send = (path: string, init?: RequestInit) => fetch(`${server.origin}${path}`, init);
  afterAll(async () => {
    await server.close();
    DB.close();
  });

  it("serves CRUD, custom list names, exceptions, error hooks, security and the document", async () => {
    await runChanfanaAppScenario(send);
  });

  it("lets a handler read the body again after validation (chanfana 3.3 answers 500 here)", async () => {
    await runBodyRereadScenario(send);
  });
});

describe("a chanfana app, unchanged but for its import, on workerd with D1 (Miniflare)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/compat/chanfana-app/worker.ts", { schema: SCHEMA, bindings: { API_TOKEN } });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const send = (path: string, init?: RequestInit) => worker.fetch(path, init);

  it("serves the same scenario as on Node", async () => {
    await runChanfanaAppScenario(send);
  });

  it("lets a handler read the body again after validation (chanfana 3.3 answers 500 here)", async () => {
    await runBodyRereadScenario(send);
  });
});
