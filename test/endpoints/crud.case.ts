import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterOptions } from "../../src";
import { type AdapterHarness, documentErrors, jsonBody } from "../helpers";
import { librarySuffix, type ModelSet } from "./model-set";
import { type Project, type Task, zodModels } from "./models";

type Abstract<T> = abstract new (...args: any[]) => T;

/** A storage implementation of the five auto endpoints: in memory, or SQL on a real engine. */
export interface CrudBackend {
  name: string;
  Create: Abstract<any>;
  Read: Abstract<any>;
  Update: Abstract<any>;
  Delete: Abstract<any>;
  List: Abstract<any>;
  /** Empties (or creates) the `projects` and `tasks` tables. */
  reset(): Promise<void>;
  /** Every stored row of a table, as the store holds it. */
  rows(table: string): Promise<Record<string, unknown>[]>;
  routerOptions?: RouterOptions;
  /** Releases connections; called once after the suite. */
  close?(): Promise<void>;
}

/** The call order of lifecycle hooks, recorded by the hooked endpoints. */
const calls: string[] = [];

function buildApp(harness: AdapterHarness, backend: CrudBackend, models: ModelSet) {
  const { Create, Read, Update, Delete, List } = backend;
  const { projectMeta, projectCreateMeta, taskMeta } = models;
  class CreateProject extends Create {
    _meta = projectCreateMeta;
  }
  class ReadProject extends Read {
    _meta = projectMeta;
  }
  class PatchProject extends Update {
    _meta = projectMeta;
  }
  class PutProject extends Update {
    _meta = projectMeta;
  }
  /** Hooks that change updatedData: one member not sent (budget), one sent (name), as chanfana apps do. */
  class StampProject extends Update {
    _meta = projectMeta;
    async getUpdatedData(oldObj: Project, sent?: Record<string, unknown>) {
      const { updatedData } = await super.getUpdatedData(oldObj, sent);
      return { updatedData: { ...updatedData, budget: oldObj.budget + 1 } };
    }
    async before(_oldObj: Project, filters: any) {
      filters.updatedData = { ...filters.updatedData, name: filters.updatedData.name.trim() };
      return filters;
    }
  }
  class DeleteProject extends Delete {
    _meta = projectMeta;
  }
  class ListProjects extends List {
    _meta = projectMeta;
    filterFields = ["name"];
    searchFields = ["name"];
    orderByFields = ["id", "name", "budget"];
    defaultOrderBy = "id";
  }

  class CreateTask extends Create {
    _meta = taskMeta;
    async before(data: Task) {
      calls.push("create.before");
      return { ...data, title: data.title.trim() };
    }
    async create(data: Task) {
      calls.push("create.create");
      return super.create(data);
    }
    async after(data: Task) {
      calls.push("create.after");
      return data;
    }
  }
  class ReadTask extends Read {
    _meta = taskMeta;
    async before(filters: any) {
      calls.push("read.before");
      return filters;
    }
    async fetch(filters: any) {
      calls.push("read.fetch");
      return super.fetch(filters);
    }
    async after(data: Task) {
      calls.push("read.after");
      return data;
    }
  }
  class UpdateTask extends Update {
    _meta = taskMeta;
    async getObject(filters: any) {
      calls.push("update.getObject");
      return super.getObject(filters);
    }
    async before(oldObj: Task, filters: any) {
      calls.push(`update.before(${oldObj.title})`);
      return filters;
    }
    async update(oldObj: Task, filters: any) {
      calls.push(`update.update(${filters.updatedData.title}, ${filters.updatedData.priority})`);
      return super.update(oldObj, filters);
    }
    async after(data: Task) {
      calls.push("update.after");
      return data;
    }
  }
  class DeleteTask extends Delete {
    _meta = taskMeta;
    async getObject(filters: any) {
      calls.push("delete.getObject");
      return super.getObject(filters);
    }
    async before(oldObj: Task, filters: any) {
      calls.push(`delete.before(${oldObj.id})`);
      return filters;
    }
    async delete(oldObj: Task, filters: any) {
      calls.push("delete.delete");
      return super.delete(oldObj, filters);
    }
    async after(data: Task) {
      calls.push("delete.after");
      return data;
    }
  }
  class ListTasks extends List {
    _meta = taskMeta;
    filterFields = ["status", "done", "priority"];
    filterOperators = { priority: ["gt", "gte", "lt", "lte", "ne", "in"] as const } as any;
    searchFields = ["title", "notes"];
    orderByFields = ["priority", "title", "id"];
    defaultOrderBy = "id";
    async before(filters: any) {
      calls.push("list.before");
      return filters;
    }
    async after(data: any) {
      calls.push("list.after");
      return data;
    }
  }

  /** The same list under chanfana-style renamed option parameters, with a smaller page limit. */
  class ListTasksRenamed extends ListTasks {
    pageFieldName = "p";
    perPageFieldName = "limit";
    orderByFieldName = "sort";
    orderByDirectionFieldName = "direction";
    maxPerPage = 3;
  }

  /** Serializer: hides the budget, upper-cases the name and echoes the context it was given. */
  const serializedMeta = {
    ...projectMeta,
    model: {
      ...projectMeta.model,
      serializer: (obj: Project, context?: unknown) => ({ id: obj.id, name: obj.name.toUpperCase(), context }),
      serializerSchema: models.ProjectSummarySchema,
    },
  };
  class ReadSerialized extends Read {
    _meta = serializedMeta;
  }
  class ListSerialized extends List {
    _meta = serializedMeta;
    filterFields = ["name"];
  }
  class CreateSerialized extends Create {
    _meta = { ...serializedMeta, fields: projectCreateMeta.fields };
  }
  class PatchSerialized extends Update {
    _meta = serializedMeta;
  }
  class DeleteSerialized extends Delete {
    _meta = serializedMeta;
  }

  const app = harness.make(backend.routerOptions);
  const { router } = app;
  router.post("/projects", CreateProject);
  router.get("/projects", ListProjects);
  router.get("/projects/:id", ReadProject);
  router.patch("/projects/:id", PatchProject);
  router.put("/projects/:id", PutProject);
  router.patch("/stamped/:id", StampProject);
  router.delete("/projects/:id", DeleteProject);

  // Tasks live in a nested router: pathParameters names the merged path's keys.
  const tasks = harness.nested(backend.routerOptions);
  tasks.post("/", CreateTask);
  tasks.get("/", ListTasks);
  tasks.get("/:id", ReadTask);
  tasks.patch("/:id", UpdateTask);
  tasks.delete("/:id", DeleteTask);
  router.route("/projects/:projectId/tasks", tasks);
  const renamedTasks = harness.nested(backend.routerOptions);
  renamedTasks.get("/", ListTasksRenamed);
  router.route("/projects/:projectId/renamed-tasks", renamedTasks);

  router.post("/serialized", CreateSerialized);
  router.get("/serialized", ListSerialized);
  router.get("/serialized/:id", ReadSerialized);
  router.patch("/serialized/:id", PatchSerialized);
  router.delete("/serialized/:id", DeleteSerialized);
  return { ...app, classes: { ReadProject, ReadTask, CreateProject } };
}

async function json(response: Response): Promise<any> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
}

const seedTasks: Array<Omit<Task, "projectId">> = [
  { id: 1, title: "Write spec", priority: 5, status: "open", done: false, notes: "first draft" },
  { id: 2, title: "Review spec", priority: 4, status: "doing", done: false, notes: null },
  { id: 3, title: "Ship v1", priority: 5, status: "closed", done: true, notes: "100% done" },
  { id: 4, title: "write tests", priority: 2, status: "open", done: false, notes: "under_score" },
  { id: 5, title: "Fix bug", priority: 1, status: "closed", done: true, notes: null },
  { id: 6, title: "Plan v2", priority: 3, status: "open", done: false, notes: "later" },
  { id: 7, title: "Benchmark", priority: 3, status: "doing", done: false, notes: null },
];

/**
 * The CRUD behaviour every adapter and every storage backend must show identically, over models declared
 * with zod (the default) or with another schema library (`models`).
 */
export function runCrudSuite(harness: AdapterHarness, backend: CrudBackend, models: ModelSet = zodModels): void {
  describe(`${harness.name} × ${backend.name}${librarySuffix(models)}: auto CRUD endpoints`, () => {
    let app: ReturnType<typeof buildApp>;
    afterAll(async () => {
      await backend.close?.();
    });
    beforeEach(async () => {
      await backend.reset();
      calls.length = 0;
      app = buildApp(harness, backend, models);
    });

    const createProject = async (name: string, budget?: number) =>
      app.request("/projects", jsonBody(budget === undefined ? { name } : { name, budget }));
    const seed = async () => {
      expect((await createProject("Alpha", 10)).status).toBe(201);
      for (const task of seedTasks) {
        const { id: _id, ...rest } = task;
        const response = await app.request("/projects/1/tasks", jsonBody({ ...rest, id: task.id }));
        expect(response.status, JSON.stringify(task)).toBe(201);
      }
      calls.length = 0;
    };
    const list = async (query: string) => json(await app.request(`/projects/1/tasks${query}`));
    /**
     * A 400's errors name exactly these body members. zod's messages are compared word for word; another
     * library words its own, so for it each error must carry a message, whatever it says.
     */
    const expectErrors = (body: any, zodMessages: Record<string, string>) => {
      const paths = body.errors.map((error: { path: unknown[] }) => error.path.join("."));
      expect([...paths].sort()).toEqual(
        Object.keys(zodMessages)
          .map((key) => `body.${key}`)
          .sort(),
      );
      for (const error of body.errors) {
        const key = error.path[1] as string;
        expect(error, key).toEqual({
          code: 7001,
          path: ["body", key],
          message: models.library === "zod" ? zodMessages[key] : expect.stringMatching(/\S/),
        });
      }
    };

    it("creates with 201 and returns the object as stored, generated id and defaults included", async () => {
      const response = await createProject("Alpha");
      expect(response.status).toBe(201);
      expect(await json(response)).toEqual({ success: true, result: { id: 1, name: "Alpha", budget: 0 } });
      expect(await backend.rows("projects")).toEqual([{ id: 1, name: "Alpha", budget: 0 }]);
    });

    it("reads, 404s on a missing object, and validates the path key", async () => {
      await createProject("Alpha");
      expect(await json(await app.request("/projects/1"))).toEqual({
        success: true,
        result: { id: 1, name: "Alpha", budget: 0 },
      });
      const missing = await app.request("/projects/99");
      expect(missing.status).toBe(404);
      expect(await json(missing)).toEqual({
        success: false,
        errors: [{ code: 7002, message: "Not Found" }],
        result: {},
      });
      expect((await app.request("/projects/abc")).status).toBe(400);
    });

    it("PATCH changes only the fields sent; defaults never overwrite stored values", async () => {
      await createProject("Alpha", 50);
      const response = await app.request("/projects/1", jsonBody({ name: "Beta" }, { method: "PATCH" }));
      expect(response.status).toBe(200);
      expect((await json(response)).result).toEqual({ id: 1, name: "Beta", budget: 50 });
      expect(await backend.rows("projects")).toEqual([{ id: 1, name: "Beta", budget: 50 }]);
    });

    it("PATCH of one member leaves every other stored member as it was, defaulted ones included", async () => {
      await seed();
      await app.request("/projects/1/tasks/2", jsonBody({ done: true, notes: "keep me" }, { method: "PATCH" }));
      const before = (await backend.rows("tasks")).find((row) => row.id === 2)!;
      const response = await app.request("/projects/1/tasks/2", jsonBody({ title: "Renamed" }, { method: "PATCH" }));
      expect(response.status).toBe(200);
      expect((await json(response)).result).toMatchObject({ title: "Renamed", done: true, notes: "keep me" });
      expect((await backend.rows("tasks")).find((row) => row.id === 2)).toEqual({ ...before, title: "Renamed" });
    });

    it("stores what the hooks set in updatedData, members the client did not send included", async () => {
      await createProject("Alpha", 50);
      const response = await app.request("/stamped/1", jsonBody({ name: "  Beta " }, { method: "PATCH" }));
      expect((await json(response)).result).toEqual({ id: 1, name: "Beta", budget: 51 });
      expect(await backend.rows("projects")).toEqual([{ id: 1, name: "Beta", budget: 51 }]);
    });

    it("PUT requires the full object minus path keys", async () => {
      await createProject("Alpha", 50);
      const partial = await app.request("/projects/1", jsonBody({ budget: 1 }, { method: "PUT" }));
      expect(partial.status).toBe(400);
      expect((await json(partial)).errors[0].path).toEqual(["body", "name"]);
      const full = await app.request("/projects/1", jsonBody({ name: "Gamma", budget: 7 }, { method: "PUT" }));
      expect((await json(full)).result).toEqual({ id: 1, name: "Gamma", budget: 7 });
    });

    it("PUT keeps a member the client leaves out, one with a default too, and documents no default for it", async () => {
      await createProject("Alpha", 50);
      const kept = await app.request("/projects/1", jsonBody({ name: "Gamma" }, { method: "PUT" }));
      expect((await json(kept)).result).toEqual({ id: 1, name: "Gamma", budget: 50 });
      const document = await json(await app.request("/openapi.json"));
      const body = document.paths["/projects/{id}"].put.requestBody.content["application/json"].schema;
      const members = body.properties ?? document.components.schemas[body.$ref.split("/").pop()].properties;
      expect(members.budget).not.toHaveProperty("default");
      expect(body.required ?? []).not.toContain("budget");
    });

    it("updating or deleting a missing object is a 404 and changes nothing", async () => {
      await createProject("Alpha");
      expect((await app.request("/projects/9", jsonBody({ name: "X" }, { method: "PATCH" }))).status).toBe(404);
      expect((await app.request("/projects/9", { method: "DELETE" })).status).toBe(404);
      expect(await backend.rows("projects")).toHaveLength(1);
    });

    it("deletes and answers the deleted object", async () => {
      await createProject("Alpha");
      const response = await app.request("/projects/1", { method: "DELETE" });
      expect(await json(response)).toEqual({ success: true, result: { id: 1, name: "Alpha", budget: 0 } });
      expect((await app.request("/projects/1")).status).toBe(404);
      expect(await backend.rows("projects")).toEqual([]);
    });

    it("rejects invalid bodies before any hook runs", async () => {
      await seed();
      const response = await app.request("/projects/1/tasks", jsonBody({ id: 9, title: "", priority: 9, status: "x" }));
      expect(response.status).toBe(400);
      expectErrors(await json(response), {
        title: "Too small: expected string to have >=1 characters",
        priority: "Too big: expected number to be <=5",
        status: 'Invalid option: expected one of "open"|"doing"|"closed"',
      });
      // A PATCH body: each member sent is checked, the others are not asked for.
      const patch = await app.request(
        "/projects/1/tasks/2",
        jsonBody({ title: 3, done: "yes", notes: 1 }, { method: "PATCH" }),
      );
      expect(patch.status).toBe(400);
      expectErrors(await json(patch), {
        title: "Invalid input: expected string, received number",
        done: "Invalid input: expected boolean, received string",
        notes: "Invalid input: expected string, received number",
      });
      expect(calls).toEqual([]);
    });

    it("works end to end with a composite key in a nested router", async () => {
      await seed();
      const task = await json(await app.request("/projects/1/tasks/2"));
      expect(task.result).toEqual({ projectId: 1, ...seedTasks[1] });
      expect((await app.request("/projects/2/tasks/2")).status).toBe(404);
      const patched = await app.request("/projects/1/tasks/2", jsonBody({ done: true }, { method: "PATCH" }));
      expect((await json(patched)).result).toMatchObject({ projectId: 1, id: 2, done: true, title: "Review spec" });
      expect((await app.request("/projects/1/tasks/2", { method: "DELETE" })).status).toBe(200);
      expect((await backend.rows("tasks")).map((row) => row.id)).not.toContain(2);
    });

    it("runs the lifecycle hooks in the spec's order", async () => {
      await createProject("Alpha");
      const created = await app.request(
        "/projects/1/tasks",
        jsonBody({ id: 1, title: "  padded  ", priority: 1, status: "open" }),
      );
      expect((await json(created)).result.title).toBe("padded");
      await app.request("/projects/1/tasks/1");
      await app.request("/projects/1/tasks/1", jsonBody({ priority: 2 }, { method: "PATCH" }));
      await app.request("/projects/1/tasks");
      await app.request("/projects/1/tasks/1", { method: "DELETE" });
      expect(calls).toEqual([
        "create.before",
        "create.create",
        "create.after",
        "read.before",
        "read.fetch",
        "read.after",
        "update.getObject",
        "update.before(padded)",
        // updatedData: the stored task with the member sent applied.
        "update.update(padded, 2)",
        "update.after",
        "list.before",
        "list.after",
        "delete.getObject",
        "delete.before(1)",
        "delete.delete",
        "delete.after",
      ]);
    });

    it("applies the serializer to every returned object with the spec's context", async () => {
      const created = await json(await app.request("/serialized", jsonBody({ name: "alpha", budget: 3 })));
      expect(created.result).toEqual({ id: 1, name: "ALPHA", context: { filters: [] } });
      const read = await json(await app.request("/serialized/1"));
      expect(read.result).toEqual({
        id: 1,
        name: "ALPHA",
        context: { filters: [{ field: "id", operator: "EQ", value: 1 }], options: {} },
      });
      const listed = await json(await app.request("/serialized?name=alpha"));
      expect(listed.result[0].context).toEqual({
        filters: [{ field: "name", operator: "EQ", value: "alpha" }],
        options: { page: 1, per_page: 20 },
      });
      const patched = await json(await app.request("/serialized/1", jsonBody({ name: "b" }, { method: "PATCH" })));
      expect(patched.result).toEqual({
        id: 1,
        name: "B",
        context: { filters: [{ field: "id", operator: "EQ", value: 1 }] },
      });
      const deleted = await json(await app.request("/serialized/1", { method: "DELETE" }));
      expect(deleted.result.name).toBe("B");
    });

    describe("list", () => {
      beforeEach(seed);
      const ids = (body: any) => body.result.map((task: Task) => task.id);

      it("pages with defaults and reports result_info", async () => {
        const body = await list("");
        expect(ids(body)).toEqual([1, 2, 3, 4, 5, 6, 7]);
        expect(body.result_info).toEqual({ count: 7, page: 1, per_page: 20, total_count: 7 });
        const page2 = await list("?page=2&per_page=3");
        expect(ids(page2)).toEqual([4, 5, 6]);
        expect(page2.result_info).toEqual({ count: 3, page: 2, per_page: 3, total_count: 7 });
        expect(ids(await list("?page=9"))).toEqual([]);
        // Found by fuzzing: an offset past Number.MAX_SAFE_INTEGER was a 500.
        const far = await list("?page=9007199254740991&per_page=100");
        expect(ids(far)).toEqual([]);
        expect(far.result_info).toMatchObject({ count: 0, page: 9007199254740991, total_count: 7 });
      });

      it("filters by exact match on each filter field, with typed coercion", async () => {
        expect(ids(await list("?status=open"))).toEqual([1, 4, 6]);
        expect(ids(await list("?done=true"))).toEqual([3, 5]);
        expect(ids(await list("?priority=3"))).toEqual([6, 7]);
      });

      it("offers the declared operators", async () => {
        expect(ids(await list("?priority__gt=3"))).toEqual([1, 2, 3]);
        expect(ids(await list("?priority__gte=4&priority__lte=4"))).toEqual([2]);
        expect(ids(await list("?priority__lt=3"))).toEqual([4, 5]);
        expect(ids(await list("?priority__ne=5&status=open"))).toEqual([4, 6]);
        expect(ids(await list("?priority__in=1&priority__in=2"))).toEqual([4, 5]);
      });

      it("searches case-insensitively over the search fields, taking % and _ literally", async () => {
        expect(ids(await list("?search=SPEC"))).toEqual([1, 2]);
        expect(ids(await list("?search=draft"))).toEqual([1]);
        expect(ids(await list("?search=100%25"))).toEqual([3]);
        expect(ids(await list("?search=_"))).toEqual([4]);
        expect(ids(await list("?search=%25"))).toEqual([3]);
      });

      it("orders by the allowed fields in either direction, with a stable tiebreak", async () => {
        expect(ids(await list("?order_by=priority"))).toEqual([5, 4, 6, 7, 2, 1, 3]);
        expect(ids(await list("?order_by=priority&order_by_direction=desc"))).toEqual([1, 3, 2, 6, 7, 4, 5]);
        expect(ids(await list("?order_by=title&per_page=2"))).toEqual([7, 5]);
      });

      it("combines filters, search, ordering and pagination", async () => {
        const body = await list("?status=open&search=w&order_by=priority&order_by_direction=desc&per_page=1&page=2");
        expect(ids(body)).toEqual([4]);
        expect(body.result_info).toMatchObject({ count: 1, page: 2, per_page: 1, total_count: 2 });
      });

      it("pages and orders under renamed option parameters, cutting the page size to maxPerPage", async () => {
        const renamed = async (query: string) => json(await app.request(`/projects/1/renamed-tasks${query}`));
        const body = await renamed("?sort=priority&direction=desc&p=2&limit=2&status=open");
        expect(ids(body)).toEqual([4]);
        expect(body.result_info).toEqual({ count: 1, page: 2, per_page: 2, total_count: 3 });
        const cut = await renamed("?limit=50");
        expect(ids(cut)).toEqual([1, 2, 3]);
        expect(cut.result_info).toEqual({ count: 3, page: 1, per_page: 3, total_count: 7 });
        expect((await app.request("/projects/1/renamed-tasks?page=1")).status).toBe(400);
      });

      it("answers 400 for per_page over 100, page 0, an order_by outside the list, and a mistyped filter", async () => {
        for (const query of [
          "per_page=101",
          "page=0",
          "order_by=notes",
          "order_by_direction=up",
          "priority=high",
          "done=maybe",
        ]) {
          const response = await app.request(`/projects/1/tasks?${query}`);
          expect(response.status, query).toBe(400);
          expect((await json(response)).errors[0].path[0]).toBe("query");
        }
      });
    });

    it("documents every list parameter with its type, default and limits, and the document validates", async () => {
      const doc = app.router.schema;
      const parameters = doc.paths["/projects/{projectId}/tasks"].get.parameters;
      const byName = Object.fromEntries(parameters.map((p: any) => [p.name, p]));
      expect(byName.page.schema).toMatchObject({ type: "integer", default: 1, minimum: 1 });
      expect(byName.per_page.schema).toMatchObject({ type: "integer", default: 20, maximum: 100 });
      // ArkType orders a union of literals itself (its JSON Schema lists them sorted); zod and valibot keep the declared order.
      expect(byName.status.schema.enum).toEqual(
        models.library === "arktype" ? ["closed", "doing", "open"] : ["open", "doing", "closed"],
      );
      expect(byName.done.schema.type).toBe("boolean");
      expect(byName.priority__in.schema.type).toBe("array");
      expect(byName.order_by.schema).toMatchObject({ enum: ["priority", "title", "id"], default: "id" });
      expect(byName.order_by_direction.schema).toMatchObject({ enum: ["asc", "desc"], default: "asc" });
      expect(byName.search.in).toBe("query");
      expect(byName.projectId).toMatchObject({ in: "path", required: true });
      expect(doc.paths["/projects/{id}"].patch.requestBody.content["application/json"].schema.required).toBeUndefined();
      // Absent means unchanged: a PATCH body documents no default a client or Swagger UI would send.
      for (const path of ["/projects/{id}", "/projects/{projectId}/tasks/{id}"]) {
        expect(JSON.stringify(doc.paths[path].patch.requestBody), path).not.toContain('"default"');
      }
      // ArkType's own input JSON Schema leaves defaults out; specroute reads them from the type's props.
      expect(JSON.stringify(doc.paths["/projects"].post.requestBody)).toContain('"default":0');
      // A PUT keeps what it is not sent, so it documents no default either.
      expect(JSON.stringify(doc.paths["/projects/{id}"].put.requestBody)).not.toContain('"default"');
      expect(doc.paths["/projects/{id}"].put.requestBody.content["application/json"].schema.required).toEqual(["name"]);
      expect(Object.keys(doc.paths["/projects"].post.responses)).toEqual(["201", "400", "413", "415"]);
      expect(await documentErrors(doc)).toBeNull();
    });
  });
}
