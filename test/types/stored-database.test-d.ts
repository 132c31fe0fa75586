// `this.database()` answers the storage's own database type on every stored endpoint, without a cast.
import { describe, expectTypeOf, it } from "vitest";
import {
  D1ReadEndpoint,
  type ReadEndpoint,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  type SqlDriver,
  SqlListEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import type { DrizzleChangesEndpoint, DrizzleCreateEndpoint, DrizzleDatabase } from "../../src/drizzle";

describe("database()", () => {
  it("is a SqlDriver on the SQL and D1 endpoints", () => {
    for (const Endpoint of [
      SqlCreateEndpoint,
      SqlUpdateEndpoint,
      SqlDeleteEndpoint,
      SqlListEndpoint,
      SqlChangesEndpoint,
    ]) {
      expectTypeOf<ReturnType<InstanceType<typeof Endpoint>["database"]>>().toEqualTypeOf<SqlDriver>();
    }
    class GetNote extends D1ReadEndpoint {
      async count() {
        return (await this.database().query("SELECT COUNT(*) AS n FROM notes", []))[0];
      }
    }
    expectTypeOf<ReturnType<GetNote["database"]>>().toEqualTypeOf<SqlDriver>();
  });

  it("is a Drizzle database on the Drizzle endpoints, and unknown on the plain ones", () => {
    expectTypeOf<ReturnType<DrizzleCreateEndpoint["database"]>>().toEqualTypeOf<DrizzleDatabase>();
    expectTypeOf<ReturnType<DrizzleChangesEndpoint["database"]>>().toEqualTypeOf<DrizzleDatabase>();
    expectTypeOf<ReturnType<ReadEndpoint["database"]>>().toBeUnknown();
  });
});
