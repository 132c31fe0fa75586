import mysql from "mysql2/promise";
import { mariadbDialect, mysql2Driver, mysqlDialect } from "../../src/sql";
import { describeTableSuite } from "./table.case";

const url = process.env.SPECROUTE_MYSQL_URL;

// The same server under both dialects: mysqlDialect re-selects every written row (plain MySQL has no
// RETURNING), mariadbDialect uses INSERT/DELETE ... RETURNING.
for (const dialect of [mysqlDialect, mariadbDialect]) {
  describeTableSuite({
    name: `mysql2 (${dialect.name} dialect)`,
    family: "mysql",
    skipReason: url ? undefined : "SPECROUTE_MYSQL_URL is not set",
    async connect() {
      const pool = mysql.createPool({ uri: url, connectionLimit: 4 });
      const driver = mysql2Driver(pool, { dialect });
      return { driver, close: () => driver.close!() };
    },
  });
}
