import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { Hono } from "hono";
import { hc } from "hono/client";
import { createClient, type ErrorEnvelope } from "specroute/client";
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import { fromHono, type O, SqlReadEndpoint } from "../../src";
import { honoTasksApp, ittyTasksApp, tasksDatabase } from "../schema-libraries/tasks-app";
import { arktypeTasks } from "../schema-libraries/tasks-arktype";
import { valibotTasks } from "../schema-libraries/tasks-valibot";

// The tasks example's endpoints over valibot and ArkType models (test/schema-libraries): the typed client
// and Hono's `hc` type their inputs and answers as they do the zod example's (test/client/clients.test-d.ts).

type Task = {
  projectId: number;
  id: number;
  title: string;
  status: "todo" | "doing" | "done";
  priority: number;
  due: string | null;
};
type Project = { id: number; name: string; description: string | null; created_at: string };
type ListInfo = {
  count: number;
  page?: number;
  per_page: number;
  total_count?: number;
  next_cursor: string | null;
  prev_cursor: string | null;
};
// As the zod example's (test/client/clients.test-d.ts): filterFields and orderByFields are declared as
// string[], not literals, so every column is typed as a filter and an order.
type TaskQuery = {
  page?: number;
  per_page?: number;
  cursor?: string;
  projectId?: number;
  id?: number;
  title?: string;
  status?: "todo" | "doing" | "done";
  priority?: number;
  due?: string;
  priority__gte?: number;
  priority__lte?: number;
  due__lt?: string;
  due__gte?: string;
  search?: string;
  order_by?: "projectId" | "id" | "title" | "status" | "priority" | "due";
  order_by_direction?: "asc" | "desc";
};
type Stats = { client: string | null; counts: { todo: number; doing: number; done: number } };

const { db } = tasksDatabase();
const libraries = {
  valibot: {
    hono: honoTasksApp(valibotTasks, db).routes,
    itty: ittyTasksApp(valibotTasks, db).routes,
  },
  arktype: {
    hono: honoTasksApp(arktypeTasks, db).routes,
    itty: ittyTasksApp(arktypeTasks, db).routes,
  },
};

type ListInput = { param: { projectId: number }; query?: TaskQuery };
type CreateTaskInput = {
  param: { projectId: number };
  json: { title: string; status?: "todo" | "doing" | "done"; priority?: number; due?: string | null };
};
type CreateProjectInput = { json: { name: string; description?: string | null } };
type PatchProjectInput = { param: { id: number }; json: { name?: string; description?: string | null } };
type StatsInput = { query?: { projectId?: number; due_before?: string }; header?: { "X-Client"?: string } } | undefined;

describe("the auto endpoints' model types", () => {
  it("types O<Meta> as the model's output, for valibot and ArkType", () => {
    expectTypeOf<O<InstanceType<typeof valibotTasks.GetTask>["_meta"]>>().toEqualTypeOf<Task>();
    expectTypeOf<O<InstanceType<typeof arktypeTasks.GetTask>["_meta"]>>().toEqualTypeOf<Task>();
    expectTypeOf<O<InstanceType<typeof valibotTasks.GetProject>["_meta"]>>().toEqualTypeOf<Project>();
    expectTypeOf<O<InstanceType<typeof arktypeTasks.GetProject>["_meta"]>>().toEqualTypeOf<Project>();
  });
});

describe("createClient over the valibot and ArkType tasks apps", () => {
  const valibot = createClient<typeof libraries.valibot.hono>("http://localhost");
  const arktype = createClient<typeof libraries.arktype.hono>("http://localhost");
  const valibotItty = createClient<typeof libraries.valibot.itty>("http://localhost");
  const arktypeItty = createClient<typeof libraries.arktype.itty>("http://localhost");

  it("types each route's input as the caller writes it (valibot)", () => {
    expectTypeOf(valibot.get<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<ListInput>();
    expectTypeOf(valibot.post<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<CreateTaskInput>();
    expectTypeOf(valibot.post<"/projects">)
      .parameter(1)
      .toEqualTypeOf<CreateProjectInput>();
    expectTypeOf(valibot.patch<"/projects/:id">)
      .parameter(1)
      .toEqualTypeOf<PatchProjectInput>();
    expectTypeOf(valibot.get<"/stats">)
      .parameter(1)
      .toEqualTypeOf<StatsInput>();
  });

  it("types each route's input as the caller writes it (ArkType)", () => {
    expectTypeOf(arktype.get<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<ListInput>();
    expectTypeOf(arktype.post<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<CreateTaskInput>();
    expectTypeOf(arktype.post<"/projects">)
      .parameter(1)
      .toEqualTypeOf<CreateProjectInput>();
    expectTypeOf(arktype.patch<"/projects/:id">)
      .parameter(1)
      .toEqualTypeOf<PatchProjectInput>();
    expectTypeOf(arktype.get<"/stats">)
      .parameter(1)
      .toEqualTypeOf<StatsInput>();
  });

  it("types the routes registered on itty-router alike", () => {
    expectTypeOf(valibotItty.post<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<CreateTaskInput>();
    expectTypeOf(valibotItty.get<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<ListInput>();
    expectTypeOf(arktypeItty.post<"/projects">)
      .parameter(1)
      .toEqualTypeOf<CreateProjectInput>();
    expectTypeOf(arktypeItty.get<"/stats">)
      .parameter(1)
      .toEqualTypeOf<StatsInput>();
  });

  it("infers the exact result of each status (valibot)", async () => {
    const listed = await valibot.get("/projects/:projectId/tasks", { param: { projectId: 1 } });
    if (listed.ok) {
      expectTypeOf(listed.status).toEqualTypeOf<200>();
      expectTypeOf(listed.data).toEqualTypeOf<{ success: true; result: Task[]; result_info: ListInfo }>();
    } else {
      expectTypeOf(listed.error).toEqualTypeOf<ErrorEnvelope>();
    }
    const created = await valibot.post("/projects", { json: { name: "Launch" } });
    if (created.ok) {
      expectTypeOf(created.status).toEqualTypeOf<201>();
      expectTypeOf(created.data).toEqualTypeOf<{ success: true; result: Project }>();
    }
    const task = await valibotItty.get("/projects/:projectId/tasks/:id", { param: { projectId: 1, id: 1 } });
    if (task.status === 200) expectTypeOf(task.data).toEqualTypeOf<{ success: true; result: Task }>();
    const stats = await valibot.get("/stats");
    if (stats.status === 200) expectTypeOf(stats.data).toEqualTypeOf<Stats>();
  });

  it("infers the exact result of each status (ArkType)", async () => {
    const listed = await arktype.get("/projects/:projectId/tasks", { param: { projectId: 1 } });
    if (listed.ok) expectTypeOf(listed.data).toEqualTypeOf<{ success: true; result: Task[]; result_info: ListInfo }>();
    const created = await arktype.post("/projects", { json: { name: "Launch" } });
    if (created.ok) {
      expectTypeOf(created.status).toEqualTypeOf<201>();
      expectTypeOf(created.data).toEqualTypeOf<{ success: true; result: Project }>();
    }
    const updated = await arktypeItty.patch("/projects/:projectId/tasks/:id", {
      param: { projectId: 1, id: 1 },
      json: { status: "done" },
    });
    if (updated.status === 200) expectTypeOf(updated.data).toEqualTypeOf<{ success: true; result: Task }>();
    const stats = await arktype.get("/stats", { query: { projectId: 1 } });
    if (stats.status === 200) expectTypeOf(stats.data).toEqualTypeOf<Stats>();
    if (stats.status === 400) expectTypeOf(stats.error).toEqualTypeOf<ErrorEnvelope>();
  });

  it("refuses wrong parameter types, server-set fields, missing body fields and unknown paths", () => {
    // @ts-expect-error: the id is a number
    valibot.get("/projects/:id", { param: { id: "one" } });
    // @ts-expect-error: `name` is required in the body
    valibot.post("/projects", { json: { description: "no name" } });
    // @ts-expect-error: the server sets the id (the create body is `fields`, not the model)
    valibot.post("/projects", { json: { name: "x", id: 3 } });
    // @ts-expect-error: not a status of the picklist
    valibot.get("/projects/:projectId/tasks", { param: { projectId: 1 }, query: { status: "later" } });
    // @ts-expect-error: no such path
    valibot.get("/project");
    // @ts-expect-error: `title` is required in the body
    arktype.post("/projects/:projectId/tasks", { param: { projectId: 1 }, json: { priority: 2 } });
    // @ts-expect-error: the server numbers tasks
    arktype.post("/projects/:projectId/tasks", { param: { projectId: 1 }, json: { title: "x", id: 3 } });
    // @ts-expect-error: projectId is a number
    arktype.get("/stats", { query: { projectId: "1" } });
    // @ts-expect-error: priority is a number
    arktypeItty.get("/projects/:projectId/tasks", { param: { projectId: 1 }, query: { priority__gte: "4" } });
  });
});

describe("Hono's hc over the valibot and ArkType tasks apps", () => {
  const valibot = hc<typeof libraries.valibot.hono>("http://localhost");
  const arktype = hc<typeof libraries.arktype.hono>("http://localhost");

  it("types inputs the Hono way: path and query values as strings", () => {
    type ValibotList = Parameters<(typeof valibot.projects)[":projectId"]["tasks"]["$get"]>[0];
    expectTypeOf<ValibotList["param"]>().toEqualTypeOf<{ projectId: string }>();
    expectTypeOf<NonNullable<ValibotList["query"]>["status"]>().toEqualTypeOf<"todo" | "doing" | "done" | undefined>();
    expectTypeOf<NonNullable<ValibotList["query"]>["page"]>().toEqualTypeOf<string | undefined>();
    type ArkList = Parameters<(typeof arktype.projects)[":projectId"]["tasks"]["$get"]>[0];
    expectTypeOf<NonNullable<ArkList["query"]>["status"]>().toEqualTypeOf<"todo" | "doing" | "done" | undefined>();
    expectTypeOf<Parameters<typeof valibot.projects.$post>[0]["json"]>().toEqualTypeOf<CreateProjectInput["json"]>();
    expectTypeOf<Parameters<typeof arktype.projects.$post>[0]["json"]>().toEqualTypeOf<CreateProjectInput["json"]>();
  });

  it("infers outputs per status", async () => {
    const task = await valibot.projects[":projectId"].tasks[":id"].$get({ param: { projectId: "1", id: "2" } });
    if (task.status === 200) expectTypeOf(await task.json()).toEqualTypeOf<{ success: true; result: Task }>();
    if (task.status === 404) expectTypeOf(await task.json()).toEqualTypeOf<ErrorEnvelope>();
    const created = await arktype.projects.$post({ json: { name: "Launch" } });
    if (created.ok) expectTypeOf(await created.json()).toEqualTypeOf<{ success: true; result: Project }>();
    const stats = await arktype.stats.$get({ query: { projectId: "1" } });
    if (stats.status === 200) expectTypeOf(await stats.json()).toEqualTypeOf<Stats>();
  });

  it("refuses wrong inputs", () => {
    // @ts-expect-error: Hono takes path values as strings
    valibot.projects[":id"].$get({ param: { id: 1 } });
    // @ts-expect-error: `title` is required
    arktype.projects[":projectId"].tasks.$post({ param: { projectId: "1" }, json: { priority: 2 } });
  });
});

describe("a serializerSchema of another library", () => {
  // The model answers through its serializer: the answer is typed from serializerSchema, not the model.
  const Note = toStandardJsonSchema(v.object({ id: v.number(), body: v.string(), secret: v.string() }));
  class ReadNote extends SqlReadEndpoint {
    _meta = {
      model: {
        tableName: "notes",
        schema: Note,
        primaryKeys: ["id"],
        serializer: ({ secret: _secret, ...rest }: { secret: string }) => rest,
        serializerSchema: type({ id: "number", body: "string" }),
      },
    };
  }
  const routes = fromHono(new Hono()).get("/notes/:id", ReadNote);

  it("takes a valibot model in an inline _meta (ModelEndpoint's _meta is not zod-only), O<> its output", () => {
    expectTypeOf<O<ReadNote["_meta"]>>().toEqualTypeOf<{ id: number; body: string; secret: string }>();
  });

  it("types the answer from the serializerSchema", async () => {
    const read = await createClient<typeof routes>("http://localhost").get("/notes/:id", { param: { id: 1 } });
    if (read.ok) expectTypeOf(read.data).toEqualTypeOf<{ success: true; result: { id: number; body: string } }>();
  });
});
