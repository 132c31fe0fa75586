import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import Database from "better-sqlite3";
import { Hono } from "hono";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  betterSqlite3Driver,
  fromHono,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { documentErrors, jsonBody } from "../helpers";

// What the auto endpoints derive from a valibot or ArkType model (the create body without the path key,
// the PATCH body, filters) validates member by member through the model, with the library's messages.

const models = {
  valibot: toStandardJsonSchema(
    v.object({
      projectId: v.pipe(v.number(), v.integer()),
      id: v.pipe(v.number(), v.integer()),
      title: v.pipe(v.string(), v.minLength(1, "Give the task a title")),
      priority: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)), 3),
      note: v.optional(v.nullable(v.string())),
    }),
  ),
  arktype: type({
    projectId: "number.integer",
    id: "number.integer",
    title: "string > 0",
    priority: "1 <= number.integer <= 5 = 3",
    "note?": "string | null",
  }),
};

function app(model: unknown) {
  const meta = {
    model: { tableName: "tasks", schema: model as any, primaryKeys: ["projectId", "id"] },
    pathParameters: ["projectId", "id"],
  };
  class Create extends SqlCreateEndpoint {
    _meta = meta;
    bulk = true;
    maxBulkItems = 3;
  }
  class Read extends SqlReadEndpoint {
    _meta = meta;
  }
  class Update extends SqlUpdateEndpoint {
    _meta = meta;
  }
  class List extends SqlListEndpoint {
    _meta = meta;
    filterFields = ["priority", "note"];
    filterOperators = { priority: ["gte", "in"] } as any;
    orderByFields = ["id", "priority"];
  }
  const db = new Database(":memory:");
  db.exec(
    "CREATE TABLE tasks (projectId INTEGER NOT NULL, id INTEGER NOT NULL, title TEXT NOT NULL, priority INTEGER NOT NULL, note TEXT, PRIMARY KEY (projectId, id))",
  );
  const router = fromHono(new Hono(), { db: betterSqlite3Driver(db) });
  router.post("/projects/:projectId/tasks", Create);
  router.get("/projects/:projectId/tasks", List);
  router.get("/projects/:projectId/tasks/:id", Read);
  router.patch("/projects/:projectId/tasks/:id", Update);
  return router;
}

for (const [library, model] of Object.entries(models)) {
  describe(`auto endpoints over a ${library} model`, () => {
    const api = app(model);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await api.request(path, body === undefined ? { method } : jsonBody(body, { method }));
      return { status: response.status, body: (await response.json()) as any };
    };

    it("creates without the path key in the body, filling the model's default", async () => {
      const created = await call("POST", "/projects/7/tasks", { id: 1, title: "Write" });
      expect(created).toEqual({
        status: 201,
        body: { success: true, result: expect.objectContaining({ projectId: 7, id: 1, title: "Write", priority: 3 }) },
      });
    });

    it("names each bad or missing field of a create, in the library's words, and nothing the path gives", async () => {
      const refused = await call("POST", "/projects/7/tasks", { id: "one", priority: 9 });
      expect(refused.status).toBe(400);
      const paths = refused.body.errors.map((e: any) => e.path.join("."));
      expect(paths.sort()).toEqual(["body.id", "body.priority", "body.title"]);
      for (const error of refused.body.errors) expect(error.message).toMatch(/\w/);
      expect(paths).not.toContain("body.projectId");
    });

    it("checks each object of a bulk create, naming its index", async () => {
      const refused = await call("POST", "/projects/7/tasks", [{ id: 2, title: "a" }, { id: 3 }]);
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: any) => e.path.join("."))).toEqual(["body.1.title"]);
      const tooMany = await call("POST", "/projects/7/tasks", [
        { id: 2, title: "a" },
        { id: 3, title: "b" },
        { id: 4, title: "c" },
        { id: 5, title: "d" },
      ]);
      expect(tooMany.body.errors[0].message).toBe("At most 3 objects can be created in one request");
      const created = await call("POST", "/projects/7/tasks", [
        { id: 2, title: "a" },
        { id: 3, title: "b", priority: 5 },
      ]);
      expect(created.status).toBe(201);
      expect(created.body.result.map((t: any) => [t.id, t.priority])).toEqual([
        [2, 3],
        [3, 5],
      ]);
    });

    it("PATCHes only what is sent: no default fills an absent member, a bad one is named", async () => {
      await call("POST", "/projects/8/tasks", { id: 1, title: "Keep", priority: 5 });
      const changed = await call("PATCH", "/projects/8/tasks/1", { note: "n" });
      expect(changed.body.result).toMatchObject({ title: "Keep", priority: 5, note: "n" });
      const refused = await call("PATCH", "/projects/8/tasks/1", { priority: 0, title: "" });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: any) => e.path.join(".")).sort()).toEqual(["body.priority", "body.title"]);
      if (library === "valibot")
        expect(refused.body.errors.map((e: any) => e.message)).toContain("Give the task a title");
      expect((await call("GET", "/projects/8/tasks/1")).body.result.title).toBe("Keep");
    });

    it("coerces path keys and filters from the model's JSON Schema, each checked by the model", async () => {
      await call("POST", "/projects/9/tasks", { id: 1, title: "a", priority: 1 });
      await call("POST", "/projects/9/tasks", { id: 2, title: "b", priority: 4 });
      const listed = await call("GET", "/projects/9/tasks?priority__gte=2");
      expect(listed.body.result.map((t: any) => t.id)).toEqual([2]);
      const either = await call("GET", "/projects/9/tasks?priority__in=1&priority__in=4&order_by=priority");
      expect(either.body.result.map((t: any) => t.id)).toEqual([1, 2]);
      const refused = await call("GET", "/projects/9/tasks?priority__in=1&priority__in=9&priority__gte=x");
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: any) => e.path.join(".")).sort()).toEqual([
        "query.priority__gte",
        "query.priority__in.1",
      ]);
      expect((await call("GET", "/projects/x/tasks/1")).status).toBe(400);
    });

    it("documents the derived schemas in 3.0 and 3.1, valid, with what the body requires", async () => {
      for (const version of ["3", "3.1"] as const) {
        const doc = api.getGeneratedSchema(version) as any;
        expect(await documentErrors(doc)).toBeNull();
        const patch =
          doc.paths["/projects/{projectId}/tasks/{id}"].patch.requestBody.content["application/json"].schema;
        expect(patch.required).toBeUndefined();
        expect(Object.keys(patch.properties).sort()).toEqual(["note", "priority", "title"]);
        expect(patch.properties.priority.default).toBeUndefined();
        const create = doc.paths["/projects/{projectId}/tasks"].post.requestBody.content["application/json"].schema;
        expect(create.oneOf[0].required.sort()).toEqual(["id", "title"]);
        expect(create.oneOf[1]).toMatchObject({ type: "array", minItems: 1, maxItems: 3 });
        // A filter reads the bare field: no default (an absent filter filters nothing), not nullable.
        const parameters = doc.paths["/projects/{projectId}/tasks"].get.parameters;
        const filter = (name: string) => parameters.find((p: any) => p.name === name).schema;
        expect(filter("priority__gte")).toMatchObject({ type: "integer", minimum: 1, maximum: 5 });
        expect(filter("priority__gte").default).toBeUndefined();
        expect(JSON.stringify(filter("note"))).not.toMatch(/null/);
        const note = patch.properties.note;
        if (version === "3") expect(note).toMatchObject({ type: "string", nullable: true });
        else expect(JSON.stringify(note)).toContain('"null"');
      }
    });
  });
}

describe("a check over the whole model", () => {
  const ranges = {
    valibot: toStandardJsonSchema(
      v.pipe(
        v.object({ id: v.number(), start: v.number(), end: v.number() }),
        v.check((range) => range.start <= range.end, "A range ends after it starts"),
      ),
    ),
    arktype: type({ id: "number", start: "number", end: "number" }).narrow(
      (range, ctx) => range.start <= range.end || ctx.reject({ message: "A range ends after it starts" }),
    ),
  };
  for (const [library, model] of Object.entries(ranges)) {
    it(`refuses a ${library} create that breaks it, and lets a PATCH of one member through`, async () => {
      const meta = { model: { tableName: "ranges", schema: model as any, primaryKeys: ["id"] } };
      class Create extends SqlCreateEndpoint {
        _meta = meta;
      }
      class Update extends SqlUpdateEndpoint {
        _meta = meta;
      }
      const db = new Database(":memory:");
      db.exec("CREATE TABLE ranges (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL)");
      const router = fromHono(new Hono(), { db: betterSqlite3Driver(db) });
      router.post("/ranges", Create);
      router.patch("/ranges/:id", Update);
      const refused = await router.request("/ranges", jsonBody({ id: 1, start: 5, end: 2 }));
      expect(refused.status).toBe(400);
      const errors = ((await refused.json()) as any).errors;
      expect(errors).toEqual([expect.objectContaining({ path: ["body"] })]);
      expect(errors[0].message).toContain("A range ends after it starts");
      expect((await router.request("/ranges", jsonBody({ id: 1, start: 1, end: 2 }))).status).toBe(201);
      expect((await router.request("/ranges/1", jsonBody({ end: 3 }, { method: "PATCH" }))).status).toBe(200);
    });
  }
});
