import Database from "better-sqlite3";
import { betterSqlite3Driver } from "../../src";
import { harnesses, honoHarness } from "../helpers";
import type { EngineUnderTest } from "../sql/fixtures";
import { runConditionalSuite, sqlStorage } from "./conditional.case";
import { runCrudSuite } from "./crud.case";
import { runCursorSuite } from "./cursor.case";
import { sqlCursorBackend } from "./cursor-sql-backend";
import { connectD1ThroughWorker } from "./d1";
import { arktypeModels } from "./models-arktype";
import { valibotModels } from "./models-valibot";
import { sqlBackend } from "./sql-backend";

// The shared suites, unchanged, over the same models declared with valibot and with ArkType instead of zod:
// the auto endpoints derive their bodies, path keys, list filters and envelopes from the model's members.
const sqlite = async () => {
  const db = new Database(":memory:");
  return { driver: betterSqlite3Driver(db), close: async () => void db.close() };
};

const engines: EngineUnderTest[] = [
  { name: "sqlite", family: "sqlite", connect: sqlite },
  { name: "d1 (miniflare)", family: "sqlite", connect: connectD1ThroughWorker },
];

for (const models of [valibotModels, arktypeModels]) {
  for (const harness of harnesses) {
    runCrudSuite(harness, sqlBackend("sqlite", "sqlite", sqlite, models), models);
    runCrudSuite(harness, sqlBackend("d1 (miniflare)", "sqlite", connectD1ThroughWorker, models), models);
    runCursorSuite(harness, sqlCursorBackend("sqlite", "sqlite", sqlite, models), models);
    runCursorSuite(harness, sqlCursorBackend("d1 (miniflare)", "sqlite", connectD1ThroughWorker, models), models);
  }
  // ETags, as conditional-sql.test.ts runs them: both models on Hono, the other adapter once more.
  for (const engine of engines) {
    for (const versioned of [true, false]) runConditionalSuite(honoHarness, engine, versioned, sqlStorage, models);
  }
  for (const harness of harnesses.filter((one) => one !== honoHarness)) {
    runConditionalSuite(harness, engines[0]!, false, sqlStorage, models);
  }
}
