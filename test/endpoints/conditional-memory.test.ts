import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CreateEndpoint,
  DeleteEndpoint,
  type Filters,
  ReadEndpoint,
  UpdateEndpoint,
  type UpdateFilters,
} from "../../src";
import { canonicalJson, entityTagOf } from "../../src/endpoints/conditional";
import { harnesses, jsonBody } from "../helpers";

const Note = z.object({ id: z.number().int(), text: z.string(), revision: z.number().int() });
type Note = z.infer<typeof Note>;
const model = { tableName: "notes", schema: Note, primaryKeys: ["id"] };

/** Storage the endpoints below write by hand: the generic endpoints, no SQL. */
const notes = new Map<number, Note>();
const calls: string[] = [];
const idOf = (filters: Filters) => filters.filters[0]!.value as number;

class CreateNote extends CreateEndpoint {
  _meta = { model, fields: Note.pick({ text: true }) };
  conditionalRequests = true;
  async create(data: { text: string }) {
    const note = { id: notes.size + 1, text: data.text, revision: 1 };
    notes.set(note.id, note);
    return note;
  }
}
class ReadNote extends ReadEndpoint {
  _meta = { model };
  conditionalRequests = true;
  async before(filters: Filters) {
    calls.push("before");
    return filters;
  }
  async fetch(filters: Filters) {
    calls.push("fetch");
    return notes.get(idOf(filters)) ?? null;
  }
  async after(data: Note) {
    calls.push("after");
    return data;
  }
}
class UpdateNote extends UpdateEndpoint {
  _meta = { model, fields: Note.pick({ text: true }) };
  conditionalRequests = true;
  async getObject(filters: UpdateFilters) {
    calls.push("getObject");
    return notes.get(idOf(filters)) ?? null;
  }
  async before(_old: Note, filters: UpdateFilters) {
    calls.push("before");
    return filters;
  }
  async update(old: Note, filters: UpdateFilters) {
    calls.push("update");
    const note = { ...old, ...filters.updatedData, revision: old.revision + 1 };
    notes.set(note.id, note);
    return note;
  }
}
class DeleteNote extends DeleteEndpoint {
  _meta = { model };
  requireIfMatch = true;
  async getObject(filters: Filters) {
    return notes.get(idOf(filters)) ?? null;
  }
  async delete(old: Note) {
    notes.delete(old.id);
    return old;
  }
}
/** The tag from the object's own revision, through the `etag` hook. */
class ReadByRevision extends ReadNote {
  async etag(obj: Note) {
    return `"r${obj.revision}"`;
  }
}
class UpdateByRevision extends UpdateNote {
  async etag(obj: Note) {
    return `"r${obj.revision}"`;
  }
}
/** A read declaring a header of its own: merged with If-None-Match, which still works. */
class TracedRead extends ReadNote {
  schema = { request: { headers: z.object({ "X-Trace": z.string().min(2) }) } };
}
/** The same read without opting in: no ETag, If-None-Match ignored. */
class PlainRead extends ReadNote {
  conditionalRequests = false;
}

for (const harness of harnesses) {
  describe(`conditional requests on the generic endpoints (${harness.name})`, () => {
    const app = harness.make();
    app.router.post("/notes", CreateNote);
    app.router.get("/notes/:id", ReadNote);
    app.router.patch("/notes/:id", UpdateNote);
    app.router.delete("/notes/:id", DeleteNote);
    app.router.get("/revisions/:id", ReadByRevision);
    app.router.patch("/revisions/:id", UpdateByRevision);
    app.router.get("/plain/:id", PlainRead);
    app.router.get("/traced/:id", TracedRead);
    const problems = harness.make({ errorFormat: "problem" });
    problems.router.patch("/notes/:id", UpdateNote);

    beforeEach(() => {
      notes.clear();
      notes.set(1, { id: 1, text: "first", revision: 1 });
      calls.length = 0;
    });

    it("tags the fetched object by a digest of its canonical JSON; 304 runs every hook and sends no body", async () => {
      const read = await app.request("/notes/1");
      const tag = read.headers.get("etag");
      expect(tag).toBe(await entityTagOf({ revision: 1, text: "first", id: 1 }));
      expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      calls.length = 0;
      const cached = await app.request("/notes/1", { headers: { "if-none-match": tag! } });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe("");
      expect(calls).toEqual(["before", "fetch", "after"]);
    });

    it("Create answers the created object's tag", async () => {
      const created = await app.request("/notes", jsonBody({ text: "second" }));
      expect(created.status).toBe(201);
      expect(created.headers.get("etag")).toBe(await entityTagOf({ id: 2, text: "second", revision: 1 }));
    });

    it("a stale If-Match is 412 before `before` runs, in the error format in force, and nothing is written", async () => {
      const tag = (await app.request("/notes/1")).headers.get("etag")!;
      expect(
        (await app.request("/notes/1", jsonBody({ text: "second" }, { method: "PATCH", headers: { "if-match": tag } })))
          .status,
      ).toBe(200);
      calls.length = 0;
      const stale = await app.request(
        "/notes/1",
        jsonBody({ text: "third" }, { method: "PATCH", headers: { "if-match": tag } }),
      );
      expect(stale.status).toBe(412);
      expect(calls).toEqual(["getObject"]);
      expect(notes.get(1)!.text).toBe("second");
      const problem = await problems.request(
        "/notes/1",
        jsonBody({ text: "third" }, { method: "PATCH", headers: { "if-match": tag } }),
      );
      expect(problem.status).toBe(412);
      expect(problem.headers.get("content-type")).toContain("application/problem+json");
      expect(await problem.json()).toMatchObject({ status: 412, title: "Precondition Failed" });
    });

    it("the etag hook decides the tag for reads, checks and answers", async () => {
      expect((await app.request("/revisions/1")).headers.get("etag")).toBe('"r1"');
      const updated = await app.request(
        "/revisions/1",
        jsonBody({ text: "x" }, { method: "PATCH", headers: { "if-match": '"r1"' } }),
      );
      expect(updated.status).toBe(200);
      expect(updated.headers.get("etag")).toBe('"r2"');
      expect(
        (
          await app.request(
            "/revisions/1",
            jsonBody({ text: "y" }, { method: "PATCH", headers: { "if-match": '"r1"' } }),
          )
        ).status,
      ).toBe(412);
      expect((await app.request("/revisions/1", { headers: { "if-none-match": '"r2"' } })).status).toBe(304);
    });

    it("requireIfMatch: 428 without If-Match, 412 with a stale one, 200 with the current one", async () => {
      expect((await app.request("/notes/1", { method: "DELETE" })).status).toBe(428);
      expect((await app.request("/notes/1", { method: "DELETE", headers: { "if-match": '"stale"' } })).status).toBe(
        412,
      );
      expect(notes.has(1)).toBe(true);
      const tag = (await app.request("/notes/1")).headers.get("etag")!;
      expect((await app.request("/notes/1", { method: "DELETE", headers: { "if-match": tag } })).status).toBe(200);
      expect(notes.has(1)).toBe(false);
    });

    it("keeps If-None-Match next to headers the endpoint declares itself", async () => {
      const tag = (await app.request("/notes/1")).headers.get("etag")!;
      const cached = await app.request("/traced/1", { headers: { "if-none-match": tag, "x-trace": "abc" } });
      expect(cached.status).toBe(304);
      expect((await app.request("/traced/1", { headers: { "if-none-match": tag } })).status).toBe(400);
      const parameters = (app.router.getGeneratedSchema() as any).paths["/traced/{id}"].get.parameters;
      expect(parameters.filter((p: any) => p.in === "header").map((p: any) => p.name)).toEqual([
        "If-None-Match",
        "X-Trace",
      ]);
    });

    it("an endpoint that did not opt in sends no ETag and ignores If-None-Match", async () => {
      const read = await app.request("/plain/1", { headers: { "if-none-match": "*" } });
      expect(read.status).toBe(200);
      expect(read.headers.get("etag")).toBeNull();
    });
  });
}

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes dates, bigints and byte arrays as text", () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: undefined } })).toBe('{"a":{"d":[true,null]},"b":1}');
    expect(canonicalJson({ at: new Date("2024-01-02T03:04:05Z"), n: 12n, bytes: new Uint8Array([1, 2]) })).toBe(
      '{"at":"2024-01-02T03:04:05.000Z","bytes":[1,2],"n":"12n"}',
    );
  });
});
