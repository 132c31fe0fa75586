import { readFileSync } from "node:fs";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, it } from "vitest";
import { bundleWorker } from "../runtimes/bundle";
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
  let mf: Miniflare;
  beforeAll(async () => {
    mf = new Miniflare({
      modules: true,
      script: await bundleWorker("test/compat/chanfana-app/worker.ts"),
      compatibilityDate: "2025-01-01",
      compatibilityFlags: ["nodejs_compat"],
      d1Databases: ["DB"],
      bindings: { API_TOKEN },
    });
    const db = await mf.getD1Database("DB");
    for (const statement of SCHEMA) await db.prepare(statement).run();
  }, 60_000);
  afterAll(() => mf?.dispose());

  const send = async (path: string, init?: RequestInit) =>
    (await mf.dispatchFetch(`http://localhost${path}`, init as any)) as unknown as Response;

  it("serves the same scenario as on Node", async () => {
    await runChanfanaAppScenario(send);
  });

  it("lets a handler read the body again after validation (chanfana 3.3 answers 500 here)", async () => {
    await runBodyRereadScenario(send);
  });
});
