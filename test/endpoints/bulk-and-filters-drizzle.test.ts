import { honoHarness } from "../helpers";
import { describeBulkSuite } from "./bulk-and-filters.case";
import { drizzleBulkStorage, drizzleEngines } from "./drizzle-backend";

// Bulk create (all or none: D1's batch, a transaction elsewhere) and typed filters on the Drizzle
// endpoints over each engine's Drizzle driver.
for (const engine of drizzleEngines) describeBulkSuite(engine, [honoHarness], drizzleBulkStorage);
