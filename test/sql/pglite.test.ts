import { PGlite } from "@electric-sql/pglite";
import { pgliteDriver } from "../../src/sql";
import { describeTableSuite } from "./table.case";

describeTableSuite({
  name: "pglite",
  family: "postgres",
  async connect() {
    const db = new PGlite();
    return { driver: pgliteDriver(db), close: () => db.close() };
  },
});
