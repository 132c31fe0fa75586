import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type RouterOptions,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  type SqlDriver,
  SqlReadEndpoint,
  SqlTable,
  SqlUpdateEndpoint,
} from "../../src";
import type { UpdateFilters } from "../../src/endpoints/types";
import { type AdapterHarness, jsonBody } from "../helpers";
import type { Connection, EngineUnderTest, Family } from "../sql/fixtures";
import { librarySuffix, type ModelSet } from "./model-set";
import { zodModels } from "./models";

// The note (models.ts): `version` only in the versioned model. `body` starts NULL and `meta` holds JSON,
// so the compare covers both.

function ddl(family: Family, table: string, versioned: boolean): string {
  const q = (name: string) => (family === "mysql" ? `\`${name}\`` : `"${name}"`);
  const version = versioned ? `, ${q("version")} INTEGER NOT NULL DEFAULT 1` : "";
  switch (family) {
    case "sqlite":
      return `CREATE TABLE ${q(table)} (${q("id")} INTEGER PRIMARY KEY AUTOINCREMENT, ${q("title")} TEXT NOT NULL COLLATE NOCASE, ${q("body")} TEXT, ${q("meta")} TEXT, ${q("done")} INTEGER NOT NULL DEFAULT 0${version})`;
    case "postgres":
      // JSON (not JSONB) has no equality operator: the compare must still work.
      return `CREATE TABLE ${q(table)} (${q("id")} SERIAL PRIMARY KEY, ${q("title")} TEXT NOT NULL, ${q("body")} TEXT, ${q("meta")} JSON, ${q("done")} BOOLEAN NOT NULL DEFAULT FALSE${version})`;
    case "mysql":
      // The default utf8mb4 collation is case-insensitive: 'Ada' = 'ADA' there.
      return `CREATE TABLE ${q(table)} (${q("id")} INT AUTO_INCREMENT PRIMARY KEY, ${q("title")} VARCHAR(200) NOT NULL, ${q("body")} TEXT NULL, ${q("meta")} JSON NULL, ${q("done")} BOOLEAN NOT NULL DEFAULT FALSE${version}) DEFAULT CHARSET = utf8mb4`;
  }
}

type Abstract = abstract new (...args: any[]) => any;

/** The endpoints under test and how they reach the engine's database: the SQL endpoints, or the Drizzle ones. */
export interface ConditionalStorage {
  /** The four endpoint bases serving this run's table (`table`, as the suite creates it on `family`). */
  endpoints(
    table: string,
    family: Family,
    versioned: boolean,
  ): {
    Create: Abstract;
    Read: Abstract;
    Update: Abstract;
    Delete: Abstract;
  };
  routerOptions(connection: Connection): RouterOptions;
}

/** The SQL endpoints, with the engine's driver as the router's `db` option. */
export const sqlStorage: ConditionalStorage = {
  endpoints: () => ({
    Create: SqlCreateEndpoint,
    Read: SqlReadEndpoint,
    Update: SqlUpdateEndpoint,
    Delete: SqlDeleteEndpoint,
  }),
  routerOptions: (connection) => ({ db: connection.driver as SqlDriver }),
};

/** Holds requests between their If-Match check and their write, to open the race window on purpose. */
class Gate {
  #waiting: Array<() => void> = [];
  #arrived: Array<() => void> = [];
  closed = false;
  async pass(): Promise<void> {
    if (!this.closed) return;
    for (const notify of this.#arrived.splice(0)) notify();
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  /** Resolves once a request is held at the gate. */
  arrived(): Promise<void> {
    return new Promise((resolve) => this.#arrived.push(resolve));
  }
  open(): void {
    this.closed = false;
    for (const release of this.#waiting.splice(0)) release();
  }
}

/**
 * Conditional requests over one real SQL engine, with and without a version column: ETag, 304,
 * 412 with nothing written, 428, and exactly one winner among concurrent writers holding one tag.
 */
export function runConditionalSuite(
  harness: AdapterHarness,
  engine: EngineUnderTest,
  versioned: boolean,
  storage: ConditionalStorage = sqlStorage,
  models: ModelSet = zodModels,
): void {
  describe.skipIf(engine.skipReason !== undefined)(
    `conditional requests on ${engine.name} ${versioned ? "with" : "without"} versionField (${harness.name})${librarySuffix(models)}`,
    () => {
      const table = `etag_${engine.name.replace(/[^a-z0-9]/gi, "").slice(0, 8)}_${versioned ? "v" : "r"}_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
      const { notes } = models;
      const model = {
        tableName: table,
        schema: versioned ? notes.VersionedNote : notes.Note,
        primaryKeys: ["id"],
        ...(versioned ? { versionField: "version" } : {}),
      };
      const meta = { model, fields: versioned ? notes.VersionedNoteFields : notes.NoteFields };
      const gate = new Gate();
      let connection: Connection;
      let app: ReturnType<AdapterHarness["make"]>;
      const rows = new SqlTable(model);
      const stored = async (id: number) =>
        rows.selectOne(connection.driver, [{ field: "id", operator: "EQ", value: id }]);
      const { Create, Read, Update, Delete } = storage.endpoints(table, engine.family, versioned);

      class CreateNote extends Create {
        _meta = meta;
        conditionalRequests = true;
      }
      class ReadNote extends Read {
        _meta = meta;
        conditionalRequests = true;
      }
      class UpdateNote extends Update {
        _meta = meta;
        conditionalRequests = true;
        async before(_old: unknown, filters: UpdateFilters) {
          await gate.pass();
          return filters;
        }
      }
      class DeleteNote extends Delete {
        _meta = meta;
        conditionalRequests = true;
        async before(_old: unknown, filters: any) {
          await gate.pass();
          return filters;
        }
      }
      class StrictUpdate extends Update {
        _meta = meta;
        requireIfMatch = true;
      }
      class StrictDelete extends Delete {
        _meta = meta;
        requireIfMatch = true;
      }

      beforeAll(async () => {
        connection = await engine.connect();
        await connection.driver.execute(ddl(engine.family, table, versioned), []);
        app = harness.make(storage.routerOptions(connection));
        app.router.post("/notes", CreateNote);
        app.router.get("/notes/:id", ReadNote);
        app.router.patch("/notes/:id", UpdateNote);
        app.router.put("/notes/:id", UpdateNote);
        app.router.delete("/notes/:id", DeleteNote);
        app.router.patch("/strict/:id", StrictUpdate);
        app.router.delete("/strict/:id", StrictDelete);
      }, 60_000);
      afterAll(async () => {
        if (!connection) return;
        const q = engine.family === "mysql" ? `\`${table}\`` : `"${table}"`;
        await connection.driver.execute(`DROP TABLE IF EXISTS ${q}`, []);
        await connection.close();
      });
      beforeEach(() => gate.open());

      const create = async (title = "Ada") => {
        const response = await app.request(
          "/notes",
          jsonBody({ title, body: null, meta: { n: 1, list: [1, 2] }, done: false }),
        );
        expect(response.status).toBe(201);
        const { result } = await response.json();
        return { id: result.id as number, tag: response.headers.get("etag")!, result };
      };
      const patch = (id: number, body: unknown, ifMatch?: string, path = "/notes") =>
        app.request(
          `${path}/${id}`,
          jsonBody(body, { method: "PATCH", headers: ifMatch ? { "if-match": ifMatch } : {} }),
        );
      const readTag = async (id: number) => (await app.request(`/notes/${id}`)).headers.get("etag");

      it("Create and Read answer the same strong tag; Read answers 304 to a matching If-None-Match", async () => {
        const { id, tag, result } = await create();
        expect(tag).toMatch(/^"[^"]+"$/);
        if (versioned) {
          expect(result.version).toBe(1);
          expect(tag).toBe('"v1"');
        }
        const read = await app.request(`/notes/${id}`);
        expect(read.status).toBe(200);
        expect(read.headers.get("etag")).toBe(tag);
        for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
          const cached = await app.request(`/notes/${id}`, { headers: { "if-none-match": ifNoneMatch } });
          expect(cached.status, ifNoneMatch).toBe(304);
          expect(cached.headers.get("etag")).toBe(tag);
          expect(await cached.text()).toBe("");
        }
        const changed = await app.request(`/notes/${id}`, { headers: { "if-none-match": '"other"' } });
        expect(changed.status).toBe(200);
        expect((await changed.json()).result.title).toBe("Ada");
      });

      it("Update with the current tag writes and answers the new row's tag; the old tag then gets 412 and writes nothing", async () => {
        const { id, tag } = await create();
        const updated = await patch(id, { body: "first" }, tag);
        expect(updated.status).toBe(200);
        const newTag = updated.headers.get("etag")!;
        expect(newTag).not.toBe(tag);
        expect(newTag).toBe(await readTag(id));
        expect((await updated.json()).result).toMatchObject({ id, body: "first", meta: { n: 1, list: [1, 2] } });

        const stale = await patch(id, { body: "second" }, tag);
        expect(stale.status).toBe(412);
        expect(await stale.json()).toEqual({
          success: false,
          errors: [{ code: 7016, message: "Precondition Failed" }],
          result: {},
        });
        expect((await stored(id))?.body).toBe("first");

        const put = await app.request(
          `/notes/${id}`,
          jsonBody(
            { title: "Put", body: null, meta: null, done: true },
            { method: "PUT", headers: { "if-match": `"nope", ${newTag}` } },
          ),
        );
        expect(put.status).toBe(200);
        expect(await stored(id)).toMatchObject({ title: "Put", body: null, meta: null, done: true });
      });

      it("a weak tag never matches If-Match, * matches any stored object, and a missing object with If-Match is 412", async () => {
        const { id, tag } = await create();
        expect((await patch(id, { body: "x" }, `W/${tag}`)).status).toBe(412);
        expect((await patch(id, { body: "x" }, "*")).status).toBe(200);
        expect((await patch(999_999, { body: "x" }, "*")).status).toBe(412);
        expect((await patch(999_999, { body: "x" }, tag)).status).toBe(412);
        expect((await patch(999_999, { body: "x" })).status).toBe(404);
      });

      it("a malformed If-Match (unquoted) is a 400 naming the header, and nothing is written", async () => {
        const { id } = await create();
        const response = await patch(id, { body: "x" }, "abc");
        expect(response.status).toBe(400);
        const body = await response.json();
        expect(body.errors[0].path).toEqual(["headers", "If-Match"]);
        expect((await stored(id))?.body).toBeNull();
      });

      it("Delete with a stale tag is 412 and keeps the row; with the current tag it deletes", async () => {
        const { id, tag } = await create();
        const updated = await patch(id, { title: "Renamed" }, tag);
        const current = updated.headers.get("etag")!;
        const stale = await app.request(`/notes/${id}`, { method: "DELETE", headers: { "if-match": tag } });
        expect(stale.status).toBe(412);
        expect((await stored(id))?.title).toBe("Renamed");
        const deleted = await app.request(`/notes/${id}`, { method: "DELETE", headers: { "if-match": current } });
        expect(deleted.status).toBe(200);
        expect((await deleted.json()).result.title).toBe("Renamed");
        expect(await stored(id)).toBeNull();
        const again = await app.request(`/notes/${id}`, { method: "DELETE", headers: { "if-match": current } });
        expect(again.status).toBe(412);
        expect((await app.request(`/notes/${id}`, { method: "DELETE" })).status).toBe(404);
      });

      it("requireIfMatch answers 428 without If-Match and writes nothing", async () => {
        const { id, tag } = await create();
        const missing = await patch(id, { body: "x" }, undefined, "/strict");
        expect(missing.status).toBe(428);
        expect((await missing.json()).errors[0].code).toBe(7017);
        expect((await app.request(`/strict/${id}`, { method: "DELETE" })).status).toBe(428);
        expect(await stored(id)).toMatchObject({ body: null });
        expect((await patch(id, { body: "x" }, tag, "/strict")).status).toBe(200);
      });

      it("20 concurrent PATCHes holding the same tag: exactly one 200, the rest 412, and the row holds the winner's write", async () => {
        const { id, tag } = await create();
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, writer) => patch(id, { body: `writer ${writer}` }, tag)),
        );
        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(1);
        expect(statuses.filter((status) => status === 412)).toHaveLength(19);
        const winner = responses[statuses.indexOf(200)]!;
        const won = await winner.json();
        expect((await stored(id))?.body).toBe(won.result.body);
        expect(winner.headers.get("etag")).toBe(await readTag(id));
        if (versioned) expect((await stored(id))?.version).toBe(2);
      });

      it("a write landing between the If-Match check and the write makes the held tag lose (the check is in the write)", async () => {
        const { id, tag } = await create("Ada");
        gate.closed = true;
        const held = gate.arrived();
        const slow = patch(id, { body: "slow writer" }, tag);
        await held;
        // Meanwhile another client changes only the case of the title (equal under a case-insensitive collation),
        // or, with a version column, writes the values already stored.
        const direct = new SqlTable(model);
        await direct.update(connection.driver, [{ field: "id", operator: "EQ", value: id }], {
          title: versioned ? "Ada" : "ADA",
        });
        gate.open();
        const response = await slow;
        expect(response.status).toBe(412);
        expect(await stored(id)).toMatchObject({ title: versioned ? "Ada" : "ADA", body: null });
      });

      it("a PATCH without If-Match writes only what it sent: a column changed after its read keeps the other writer's value", async () => {
        const { id } = await create("Ada");
        gate.closed = true;
        const held = gate.arrived();
        const slow = patch(id, { body: "slow writer" });
        await held;
        // The hooks now hold the row as read (title "Ada") in updatedData; another client renames it.
        await new SqlTable(model).update(connection.driver, [{ field: "id", operator: "EQ", value: id }], {
          title: "Grace",
        });
        gate.open();
        const response = await slow;
        expect(response.status).toBe(200);
        expect((await response.json()).result).toMatchObject({ title: "Grace", body: "slow writer" });
        expect(await stored(id)).toMatchObject({ title: "Grace", body: "slow writer" });
        if (versioned) expect((await stored(id))?.version).toBe(3);
      });

      it("two concurrent DELETEs holding the same tag: one deletes, the other gets 412", async () => {
        const { id, tag } = await create();
        const responses = await Promise.all(
          [0, 1].map(() => app.request(`/notes/${id}`, { method: "DELETE", headers: { "if-match": tag } })),
        );
        expect(responses.map((response) => response.status).sort()).toEqual([200, 412]);
        expect(await stored(id)).toBeNull();
      });

      it("a DELETE whose tag went stale after its check keeps the row", async () => {
        const { id, tag } = await create();
        gate.closed = true;
        const held = gate.arrived();
        const slow = app.request(`/notes/${id}`, { method: "DELETE", headers: { "if-match": tag } });
        await held;
        await new SqlTable(model).update(connection.driver, [{ field: "id", operator: "EQ", value: id }], {
          body: "changed meanwhile",
        });
        gate.open();
        expect((await slow).status).toBe(412);
        expect((await stored(id))?.body).toBe("changed meanwhile");
      });

      if (versioned) {
        it("every write increments the version, also one sending the values already stored", async () => {
          const { id, tag } = await create();
          const same = await patch(id, { title: "Ada" }, tag);
          expect(same.status).toBe(200);
          expect(same.headers.get("etag")).toBe('"v2"');
          expect((await same.json()).result.version).toBe(2);
          expect((await patch(id, { title: "Ada" }, tag)).status).toBe(412);
          expect((await patch(id, { title: "Ada" })).headers.get("etag")).toBe('"v3"');
          // The version is the storage's: a body cannot set it.
          expect((await patch(id, { version: 100 }, '"v3"')).status).toBe(200);
          expect((await stored(id))?.version).toBe(4);
        });
      } else {
        it("an update sending the values already stored keeps the tag, so another holder of it still succeeds", async () => {
          const { id, tag } = await create();
          const same = await patch(id, { title: "Ada" }, tag);
          expect(same.status).toBe(200);
          expect(same.headers.get("etag")).toBe(tag);
          expect((await patch(id, { body: "next" }, tag)).status).toBe(200);
        });
      }
    },
  );
}
