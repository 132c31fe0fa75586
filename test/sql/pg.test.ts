import pg from "pg";
import { pgDriver } from "../../src/sql";
import { describeTableSuite } from "./table.case";

const url = process.env.SPECROUTE_PG_URL;

describeTableSuite({
  name: "postgresql (pg)",
  family: "postgres",
  skipReason: url ? undefined : "SPECROUTE_PG_URL is not set",
  async connect() {
    // Several connections, so concurrent updates really run side by side.
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const driver = pgDriver(pool);
    return { driver, close: () => driver.close!() };
  },
});
