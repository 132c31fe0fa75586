import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type Model, SqlReadEndpoint, SqlUpdateEndpoint } from "../../src";

const Note = z.object({ id: z.number().int(), text: z.string(), version: z.number().int() });

describe("conditional request options", () => {
  it("takes versionField on the model as a column name", () => {
    const model = { tableName: "notes", schema: Note, primaryKeys: ["id"], versionField: "version" } satisfies Model;
    expectTypeOf(model.versionField).toEqualTypeOf<string>();
    // @ts-expect-error a version column is named, not flagged
    ({ tableName: "notes", schema: Note, primaryKeys: ["id"], versionField: true }) satisfies Model;
  });

  it("types the opt-in fields as booleans and etag() as an async string", () => {
    class ReadNote extends SqlReadEndpoint {
      _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
      conditionalRequests = true;
      async etag(obj: z.infer<typeof Note>) {
        return `"r${obj.version}"`;
      }
    }
    class UpdateNote extends SqlUpdateEndpoint {
      _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
      requireIfMatch = true;
      // @ts-expect-error the tag is a string
      async etag() {
        return 1;
      }
    }
    expectTypeOf<ReadNote["conditionalRequests"]>().toEqualTypeOf<boolean>();
    expectTypeOf<UpdateNote["requireIfMatch"]>().toEqualTypeOf<boolean>();
    expectTypeOf<ReturnType<ReadNote["etag"]>>().toEqualTypeOf<Promise<string>>();
  });
});
