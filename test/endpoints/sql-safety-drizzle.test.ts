import { describe } from "vitest";
import type { SqlDriver } from "../../src";
import { type DrizzleEngine, drizzleCrudBackend, drizzleEngines } from "./drizzle-backend";
import { runSqlSafetySuite } from "./sql-safety.case";

// Conflicts, injection payloads and failures that say nothing, on the Drizzle endpoints over each engine.
for (const engine of drizzleEngines) {
  describe.skipIf(engine.skipReason !== undefined)(engine.name, () => {
    let driver: SqlDriver | undefined;
    const captured: DrizzleEngine = {
      ...engine,
      async connect() {
        const connection = await engine.connect();
        driver = connection.driver;
        return connection;
      },
    };
    runSqlSafetySuite(drizzleCrudBackend(captured), () => driver!);
  });
}
