import { honoHarness } from "../helpers";
import { runConditionalSuite } from "./conditional.case";
import { drizzleConditionalStorage, drizzleEngines } from "./drizzle-backend";

// Conditional requests on the Drizzle endpoints over each engine's Drizzle driver, with and without a
// version column: the same suite as the SQL endpoints', the compare-and-swap written with Drizzle.
for (const engine of drizzleEngines) {
  for (const versioned of [true, false]) runConditionalSuite(honoHarness, engine, versioned, drizzleConditionalStorage);
}
