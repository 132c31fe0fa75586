import { describe } from "vitest";
import { honoHarness, ittyHarness } from "../helpers";
import { runCrudSuite } from "./crud.case";
import { drizzleCrudBackend, drizzleEngines } from "./drizzle-backend";

// The CRUD suite the SQL endpoints pass, unchanged, on the Drizzle endpoints over each engine's Drizzle
// driver. Adapters are the SQL runs' concern: Hono on every engine, itty-router once more on SQLite.
for (const engine of drizzleEngines) {
  describe.skipIf(engine.skipReason !== undefined)(
    `${engine.name}${engine.skipReason ? ` (${engine.skipReason}: skipped)` : ""}`,
    () => {
      runCrudSuite(honoHarness, drizzleCrudBackend(engine));
    },
  );
}
runCrudSuite(ittyHarness, drizzleCrudBackend(drizzleEngines[0]!));
