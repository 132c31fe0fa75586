import { readFileSync } from "node:fs";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, it } from "vitest";
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
  let server: http.Server;
  let origin: string;
  beforeAll(async () => {
    await new Promise<void>((ready) => {
      server = serve(
        { fetch: (request) => app.fetch(request, { DB, API_TOKEN }), hostname: "127.0.0.1", port: 0 },
        (info: AddressInfo) => {
          origin = `http://127.0.0.1:${info.port}`;
          ready();
        },
      ) as http.Server;
    });
  });
  const send = (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init);
  afterAll(async () => {
    server.closeAllConnections?.();
    await new Promise((closed) => server.close(closed));
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
