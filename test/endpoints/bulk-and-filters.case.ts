import OpenAPIResponseValidator from "openapi-response-validator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DatabaseError,
  type FilterOperatorName,
  type RouterOptions,
  SqlCreateEndpoint,
  type SqlDriver,
  SqlListEndpoint,
  SqlTable,
  UniqueViolationError,
} from "../../src";
import { type AdapterHarness, documentErrors, jsonBody } from "../helpers";
import { resolvedResponse } from "../openapi/helpers";
import type { Connection, Family } from "../sql/fixtures";

export const Person = z.object({
  id: z.number().int(),
  email: z.string().min(3),
  name: z.string().min(1),
  score: z.number().int().default(0),
  note: z.string().nullable().optional(),
});

/** One engine the suite runs on; `name` carries the engine's word (sqlite, d1, pglite, postgres, mariadb). */
export interface BulkEngine {
  name: string;
  family: Family;
  skipReason?: string;
  connect(): Promise<Connection>;
}

function tableName(engine: string): string {
  return `bulk_${engine.replace(/[^a-z0-9]/gi, "").slice(0, 12)}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
}

function ddl(family: Family, table: string): string {
  switch (family) {
    case "sqlite":
      return `CREATE TABLE "${table}" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL UNIQUE, "name" TEXT NOT NULL, "score" INTEGER NOT NULL DEFAULT 0, "note" TEXT NULL)`;
    case "postgres":
      return `CREATE TABLE "${table}" ("id" SERIAL PRIMARY KEY, "email" TEXT NOT NULL UNIQUE, "name" TEXT NOT NULL, "score" INTEGER NOT NULL DEFAULT 0, "note" TEXT NULL)`;
    case "mysql":
      return `CREATE TABLE \`${table}\` (\`id\` INT AUTO_INCREMENT PRIMARY KEY, \`email\` VARCHAR(100) NOT NULL UNIQUE, \`name\` VARCHAR(100) NOT NULL, \`score\` INT NOT NULL DEFAULT 0, \`note\` TEXT NULL)`;
  }
}

type Abstract = abstract new (...args: any[]) => any;

/**
 * Endpoints under test other than the SQL ones (the Drizzle endpoints), and how they reach the engine's
 * database. The storage-level tests (SqlTable, the driver's atomic API) run with the SQL endpoints only.
 */
export interface BulkStorage {
  endpoints(table: string, family: Family): { Create: Abstract; List: Abstract };
  routerOptions(connection: Connection): RouterOptions;
}

/** Lets other pending work (a statement sent from outside a transaction) run as far as it can. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Bulk create and typed filters on one engine: SqlTable.insertMany and the driver's atomic API,
 * then the endpoints through each adapter.
 */
export function describeBulkSuite(engine: BulkEngine, harnesses: AdapterHarness[], storage?: BulkStorage): void {
  describe.skipIf(Boolean(engine.skipReason))(`bulk create and filters on ${engine.name}`, () => {
    const table = tableName(engine.name);
    const model = { tableName: table, schema: Person, primaryKeys: ["id"], unique: ["email"] };
    const people = new SqlTable(model);
    let connection: Connection;
    let driver: SqlDriver;
    let close: () => Promise<void>;
    const quoted = () => driver.dialect.quote(table);
    const stored = async () =>
      (await people.list(driver, { filters: [], limit: 1000, offset: 0 })).rows as z.infer<typeof Person>[];

    beforeAll(async () => {
      connection = await engine.connect();
      ({ driver, close } = connection);
      await driver.execute(`DROP TABLE IF EXISTS ${quoted()}`, []);
      await driver.execute(ddl(engine.family, table), []);
    });
    afterAll(async () => {
      if (!driver) return;
      await driver.execute(`DROP TABLE IF EXISTS ${quoted()}`, []);
      await close();
    });
    beforeEach(async () => {
      await driver.execute(`DELETE FROM ${quoted()}`, []);
    });

    // The storage under the SQL endpoints; the Drizzle endpoints' storage is Drizzle's own.
    if (storage === undefined) {
      describe("SqlTable.insertMany", () => {
        it("returns every row as stored, with its generated id and defaults, in the order given", async () => {
          const rows = await people.insertMany(driver, [
            { email: "a@x", name: "A" },
            { email: "b@x", name: "B", score: 7, note: "n" },
            { email: "c@x", name: "C" },
          ]);
          expect(rows.map((row) => row.email)).toEqual(["a@x", "b@x", "c@x"]);
          expect(rows[1]).toEqual({ id: expect.any(Number), email: "b@x", name: "B", score: 7, note: "n" });
          expect(rows[0]).toMatchObject({ score: 0, note: null });
          expect(new Set(rows.map((row) => row.id)).size).toBe(3);
          // Each returned id is the id the row was stored under.
          expect(await stored()).toEqual([...rows].sort((a, b) => (a.id as number) - (b.id as number)));
        });

        it("writes nothing when one row violates a UNIQUE constraint, and says which column", async () => {
          await people.insert(driver, { email: "taken@x", name: "Existing" });
          const batch = ["1@x", "2@x", "3@x", "4@x", "taken@x", "6@x"].map((email) => ({ email, name: email }));
          const error = await people.insertMany(driver, batch).catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(UniqueViolationError);
          expect((error as UniqueViolationError).columns).toEqual(["email"]);
          expect((await stored()).map((row) => row.email)).toEqual(["taken@x"]);
          // The table is usable afterwards: no transaction was left open.
          expect(await people.insertMany(driver, [{ email: "after@x", name: "After" }])).toHaveLength(1);
        });

        it("writes nothing when two rows of the same call collide", async () => {
          const error = await people
            .insertMany(driver, [
              { email: "same@x", name: "One" },
              { email: "same@x", name: "Two" },
            ])
            .catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(UniqueViolationError);
          expect(await stored()).toEqual([]);
        });

        it("runs concurrent calls side by side or one after another, each whole", async () => {
          const batches = [1, 2, 3].map((n) =>
            people.insertMany(
              driver,
              [1, 2, 3].map((i) => ({ email: `b${n}-${i}@x`, name: `B${n}` })),
            ),
          );
          const singles = [1, 2].map((n) => people.insert(driver, { email: `s${n}@x`, name: "S" }));
          const failing = people.insertMany(driver, [
            { email: "f1@x", name: "F" },
            { email: "f1@x", name: "F" },
          ]);
          await expect(failing).rejects.toBeInstanceOf(UniqueViolationError);
          const written = [...(await Promise.all(batches)).flat(), ...(await Promise.all(singles))];
          expect(written).toHaveLength(11);
          const rows = await stored();
          expect(rows.map((row) => row.email).sort()).toEqual(written.map((row) => row.email).sort());
          expect(new Set(rows.map((row) => row.id)).size).toBe(11);
        });

        it("refuses, writing nothing, on a driver with neither transaction() nor batch()", async () => {
          const plain: SqlDriver = { dialect: driver.dialect, query: driver.query, execute: driver.execute };
          const error = await people
            .insertMany(plain, [{ email: "a@x", name: "A" }])
            .catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(DatabaseError);
          expect(await stored()).toEqual([]);
        });

        it("checks every row against the model before any statement runs", async () => {
          const error = await people
            .insertMany(driver, [
              { email: "ok@x", name: "Ok" },
              { email: "bad@x", name: "Bad", "name; DROP TABLE x": 1 },
            ])
            .catch((caught: unknown) => caught);
          expect((error as Error).name).toBe("InvalidIdentifierError");
          expect(await stored()).toEqual([]);
        });
      });

      describe("the driver's atomic API", () => {
        it("offers transaction() or, on D1, batch()", () => {
          if (engine.name.startsWith("d1")) {
            expect(driver.transaction).toBeUndefined();
            expect(typeof driver.batch).toBe("function");
          } else {
            expect(typeof driver.transaction).toBe("function");
          }
        });

        it.skipIf(engine.name.startsWith("d1"))(
          "keeps statements sent from outside out of a transaction that rolls back",
          async () => {
            let release!: () => void;
            const gate = new Promise<void>((resolve) => {
              release = resolve;
            });
            const failing = driver.transaction!(async (tx) => {
              await people.insert(tx, { email: "inside@x", name: "Inside" });
              await gate;
              throw new Error("the work failed");
            });
            await settle();
            // Sent while the transaction is open: it must not become part of it.
            const outside = people.insert(driver, { email: "outside@x", name: "Outside" });
            await settle();
            release();
            await expect(failing).rejects.toThrow("the work failed");
            await outside;
            expect((await stored()).map((row) => row.email)).toEqual(["outside@x"]);
          },
        );

        it.skipIf(engine.name.startsWith("d1"))("commits what the work wrote and returns its result", async () => {
          const result = await driver.transaction!(async (tx) => {
            const row = await people.insert(tx, { email: "kept@x", name: "Kept" });
            // A nested transaction joins the one running.
            await tx.transaction!(async (inner) => people.insert(inner, { email: "nested@x", name: "Nested" }));
            return row.email;
          });
          expect(result).toBe("kept@x");
          expect((await stored()).map((row) => row.email).sort()).toEqual(["kept@x", "nested@x"]);
        });

        it.skipIf(engine.name.startsWith("d1"))(
          "refuses statements on a transaction's driver once it is over",
          async () => {
            let leaked: SqlDriver | undefined;
            await driver.transaction!(async (tx) => {
              leaked = tx;
            });
            await expect(leaked!.query("SELECT 1 AS one", [])).rejects.toThrow(/over|closed/i);
          },
        );
      });
    }

    for (const harness of harnesses) {
      describe(`endpoints (${harness.name})`, () => {
        const calls: string[] = [];
        const createMeta = { model, fields: Person.omit({ id: true }) };
        const { Create, List } = storage?.endpoints(table, engine.family) ?? {
          Create: SqlCreateEndpoint,
          List: SqlListEndpoint,
        };

        class CreatePeople extends Create {
          _meta = createMeta;
          bulk = true;
          maxBulkItems = 6;
          async before(data: { email: string; name: string }) {
            calls.push(`before ${data.email}`);
            return { ...data, name: data.name.trim() };
          }
          async after(data: { id: number; email: string }) {
            calls.push(`after ${data.email}`);
            return data;
          }
        }
        class CreateOne extends Create {
          _meta = createMeta;
        }
        class ListPeople extends List {
          _meta = { model };
          filterFields = ["name"];
          filterOperators: Record<string, FilterOperatorName[]> = {
            score: ["gt", "gte", "lt", "lte", "ne", "in"],
            note: ["isnull"],
            name: ["ne", "in"],
          };
          orderByFields = ["id"];
        }

        let app: ReturnType<AdapterHarness["make"]>;
        beforeAll(() => {
          app = harness.make(storage ? storage.routerOptions(connection) : ({ db: driver } as any));
          app.router.post("/people", CreatePeople);
          app.router.post("/one", CreateOne);
          app.router.get("/people", ListPeople);
        });
        beforeEach(() => {
          calls.length = 0;
        });

        const post = (path: string, body: unknown) => app.request(path, jsonBody(body));
        const emails = async (query: string) => {
          const response = await app.request(`/people?${query}`);
          expect(response.status, query).toBe(200);
          return ((await response.json()).result as { email: string }[]).map((row) => row.email);
        };

        it("creates an array of objects and answers 201 with them as stored, in order", async () => {
          const response = await post("/people", [
            { email: "a@x", name: "  Ada " },
            { email: "b@x", name: "Bob", score: 3, note: "hi" },
          ]);
          expect(response.status).toBe(201);
          const body = await response.json();
          expect(body).toEqual({
            success: true,
            result: [
              { id: expect.any(Number), email: "a@x", name: "Ada", score: 0, note: null },
              { id: expect.any(Number), email: "b@x", name: "Bob", score: 3, note: "hi" },
            ],
          });
          expect(calls).toEqual(["before a@x", "before b@x", "after a@x", "after b@x"]);
          expect(await stored()).toEqual(body.result);
        });

        it("still creates a single object and answers it as before", async () => {
          const response = await post("/people", { email: "solo@x", name: "Solo" });
          expect(response.status).toBe(201);
          expect((await response.json()).result).toEqual({
            id: expect.any(Number),
            email: "solo@x",
            name: "Solo",
            score: 0,
            note: null,
          });
          expect(calls).toEqual(["before solo@x", "after solo@x"]);
        });

        it("reports every invalid item with its index and writes nothing", async () => {
          const response = await post("/people", [
            { email: "ok@x", name: "Ok" },
            { email: "x", name: "Short email" },
            { email: "ok2@x", name: "Ok" },
            { email: "no-name@x" },
          ]);
          expect(response.status).toBe(400);
          const paths = (await response.json()).errors.map((error: { path: unknown[] }) => error.path);
          expect(paths).toEqual([
            ["body", "1", "email"],
            ["body", "3", "name"],
          ]);
          expect(calls).toEqual([]);
          expect(await stored()).toEqual([]);
        });

        it("answers 409 for a duplicate on item 5 and leaves no row of the request", async () => {
          await post("/one", { email: "taken@x", name: "Existing" });
          const batch = ["1@x", "2@x", "3@x", "4@x", "taken@x"].map((email) => ({ email, name: "N" }));
          const response = await post("/people", batch);
          expect(response.status).toBe(409);
          expect((await response.json()).errors[0].message).toBe("An object with this email already exists");
          expect((await stored()).map((row) => row.email)).toEqual(["taken@x"]);
        });

        it("refuses an empty array and an array over maxBulkItems with a 400 saying why", async () => {
          const empty = await post("/people", []);
          expect(empty.status).toBe(400);
          expect((await empty.json()).errors).toEqual([
            { code: 7001, message: "Send at least one object to create", path: ["body"] },
          ]);
          const many = Array.from({ length: 7 }, (_, index) => ({ email: `${index}@x`, name: "N" }));
          const tooMany = await post("/people", many);
          expect(tooMany.status).toBe(400);
          expect((await tooMany.json()).errors).toEqual([
            { code: 7001, message: "At most 6 objects can be created in one request", path: ["body"] },
          ]);
          expect(await stored()).toEqual([]);
        });

        it("refuses an array where bulk is off", async () => {
          const response = await post("/one", [{ email: "a@x", name: "A" }]);
          expect(response.status).toBe(400);
          expect(await stored()).toEqual([]);
        });

        it("filters with typed operators and __isnull", async () => {
          await post("/people", [
            { email: "n1@x", name: "N", score: 1, note: null },
            { email: "n2@x", name: "N", score: 2, note: "two" },
            { email: "n3@x", name: "N", score: 3 },
            { email: "n4@x", name: "N", score: 4, note: "" },
          ]);
          expect(await emails("note__isnull=true&order_by=id")).toEqual(["n1@x", "n3@x"]);
          expect(await emails("note__isnull=FALSE&order_by=id")).toEqual(["n2@x", "n4@x"]);
          expect(await emails("score__gte=2&score__lt=4&order_by=id")).toEqual(["n2@x", "n3@x"]);
          expect(await emails("score__in=1&score__in=4&order_by=id")).toEqual(["n1@x", "n4@x"]);
          expect(await emails("score__ne=2&note__isnull=false")).toEqual(["n4@x"]);
          const listed = await (await app.request("/people?score__gt=1")).json();
          expect(listed.result_info).toEqual({ count: 3, page: 1, per_page: 20, total_count: 3 });
        });

        it("compares text filters exactly: another case, accent or trailing space is another value", async () => {
          // One at a time, through the create that keeps a name as sent (the bulk one trims it).
          for (const [email, name] of [
            ["t1@x", "Tom"],
            ["t2@x", "tom"],
            ["t3@x", "tóm"],
            ["t4@x", "Tom "],
          ]) {
            expect((await post("/one", { email, name })).status).toBe(201);
          }
          expect(await emails("name=Tom&order_by=id")).toEqual(["t1@x"]);
          expect(await emails("name=tom&order_by=id")).toEqual(["t2@x"]);
          expect(await emails(`name=${encodeURIComponent("Tom ")}&order_by=id`)).toEqual(["t4@x"]);
          expect(await emails("name__in=Tom&name__in=t%C3%B3m&order_by=id")).toEqual(["t1@x", "t3@x"]);
          expect(await emails("name__ne=Tom&order_by=id")).toEqual(["t2@x", "t3@x", "t4@x"]);
        });

        it("refuses filter values that are not of the field's type", async () => {
          for (const [query, path] of [
            ["note__isnull=maybe", ["query", "note__isnull"]],
            ["score__gte=two", ["query", "score__gte"]],
            ["score__in=1&score__in=x", ["query", "score__in", "1"]],
            ["score__lt=1.5", ["query", "score__lt"]],
          ] as const) {
            const response = await app.request(`/people?${query}`);
            expect(response.status, query).toBe(400);
            expect((await response.json()).errors[0].path, query).toEqual(path);
          }
        });

        it("documents what it answers, and every body it sent matches the document", async () => {
          const doc = app.router.schema;
          expect(await documentErrors(doc)).toBeNull();
          const create = doc.paths["/people"].post;
          expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "409", "413", "415"]);
          expect(create.requestBody.content["application/json"].schema.oneOf[1]).toMatchObject({
            type: "array",
            minItems: 1,
            maxItems: 6,
          });
          const info =
            doc.paths["/people"].get.responses["200"].content["application/json"].schema.properties.result_info;
          expect(info.required).toEqual(["count", "page", "per_page", "total_count"]);

          // Every answer checked by an independent validator against the operation's documented responses.
          const answers: Array<[string, Response]> = [
            ["post", await post("/people", [{ email: "d1@x", name: "D" }])],
            ["post", await post("/people", { email: "d2@x", name: "D" })],
            [
              "post",
              await post("/people", [
                { email: "d3@x", name: "D" },
                { email: "d1@x", name: "D" },
              ]),
            ],
            ["post", await post("/people", [{ email: "", name: "" }])],
            ["post", await post("/people", [])],
            ["get", await app.request("/people?note__isnull=true&score__in=0")],
            ["get", await app.request("/people?note__isnull=nope")],
          ];
          expect(answers.map(([, response]) => response.status)).toEqual([201, 201, 409, 400, 400, 200, 400]);
          for (const [method, response] of answers) {
            // The validator reads response objects inline: follow `components.responses` refs.
            const documented = Object.entries(doc.paths["/people"][method].responses);
            const validator = new OpenAPIResponseValidator({
              responses: Object.fromEntries(
                documented.map(([status, entry]) => [status, resolvedResponse(doc, entry)]),
              ),
              components: doc.components,
            });
            const result = validator.validateResponse(response.status, await response.json());
            expect(result?.errors ?? [], `${method} ${response.status}`).toEqual([]);
          }
        });
      });
    }
  });
}
