import { describe } from "vitest";
import { honoHarness, ittyHarness } from "../helpers";
import { runCursorSuite } from "./cursor.case";
import { drizzleCursorBackend, drizzleEngines } from "./drizzle-backend";

// The cursor suite on DrizzleListEndpoint (keyset queries written with Drizzle) over each engine.
for (const engine of drizzleEngines) {
  describe.skipIf(engine.skipReason !== undefined)(
    `${engine.name}${engine.skipReason ? ` (${engine.skipReason}: skipped)` : ""}`,
    () => {
      runCursorSuite(honoHarness, drizzleCursorBackend(engine));
    },
  );
}
runCursorSuite(ittyHarness, drizzleCursorBackend(drizzleEngines[0]!));
