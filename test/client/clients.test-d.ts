import { Hono } from "hono";
import { hc } from "hono/client";
import { AutoRouter } from "itty-router";
import { type ClientResult, createClient, type ErrorEnvelope, type ProblemDetails } from "specroute/client";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { TasksApi } from "../../examples/tasks/app";
import { CreateEndpoint, contentJson, fromHono, fromIttyRouter, ListEndpoint, OpenAPIRoute } from "../../src";

type Task = {
  projectId: number;
  id: number;
  title: string;
  status: "todo" | "doing" | "done";
  priority: number;
  due: string | null;
};
type Project = { id: number; name: string; description: string | null; created_at: string };
// The example's task list offers cursors beside page numbers (`pagination = "both" as const`).
type ListInfo = {
  count: number;
  page?: number;
  per_page: number;
  total_count?: number;
  next_cursor: string | null;
  prev_cursor: string | null;
};

const Item = z.object({ id: z.number().int(), label: z.string(), tags: z.array(z.string()) });

class GetItem extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ id: z.coerce.number().int() }),
      query: z.object({ expand: z.boolean().default(false), fields: z.array(z.string()).optional() }),
    },
    responses: {
      "200": { description: "The item", ...contentJson(Item) },
      "404": { description: "Not found", ...contentJson(z.object({ missing: z.literal(true) })) },
    },
  };
  async handle() {
    return { id: 1, label: "x", tags: [] };
  }
}

class PutItem extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ id: z.number().int() }),
      body: contentJson(z.object({ label: z.string().min(1), tags: z.array(z.string()).default([]) })),
    },
    responses: { "201": { description: "Stored", ...contentJson(Item) } },
  };
  async handle() {
    return { id: 1, label: "x", tags: [] };
  }
}

/** No declared responses: the answer is typed from what `handle` returns. */
class Ping extends OpenAPIRoute {
  schema = { responses: {} };
  async handle() {
    return { pong: true as const, at: 1 };
  }
}

describe("createClient on the tasks example (Hono)", () => {
  const api = createClient<TasksApi>("http://localhost");

  it("types each route's input as the caller writes it", () => {
    expectTypeOf(api.get<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<{
        param: { projectId: number };
        query?: {
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
      }>();
    expectTypeOf(api.post<"/projects/:projectId/tasks">)
      .parameter(1)
      .toEqualTypeOf<{
        param: { projectId: number };
        json: { title: string; status?: "todo" | "doing" | "done"; priority?: number; due?: string | null };
      }>();
    expectTypeOf(api.patch<"/projects/:id">)
      .parameter(1)
      .toEqualTypeOf<{ param: { id: number }; json: { name?: string; description?: string | null } }>();
    expectTypeOf(api.post<"/projects/:projectId/attachments">)
      .parameter(1)
      .toEqualTypeOf<{ param: { projectId: number }; multipart: { file: File; note?: string } }>();
  });

  it("infers the exact result of each status", async () => {
    const listed = await api.get("/projects/:projectId/tasks", { param: { projectId: 1 } });
    if (listed.ok) {
      expectTypeOf(listed.status).toEqualTypeOf<200>();
      expectTypeOf(listed.data).toEqualTypeOf<{ success: true; result: Task[]; result_info: ListInfo }>();
    } else {
      expectTypeOf(listed.error).toEqualTypeOf<ErrorEnvelope>();
      expectTypeOf(listed.data).toEqualTypeOf<undefined>();
    }
    const created = await api.post("/projects", { json: { name: "Launch" } });
    if (created.ok) {
      expectTypeOf(created.status).toEqualTypeOf<201>();
      expectTypeOf(created.data).toEqualTypeOf<{ success: true; result: Project }>();
    }
    const stats = await api.get("/stats");
    if (stats.status === 200) {
      expectTypeOf(stats.data).toEqualTypeOf<{
        client: string | null;
        counts: { todo: number; doing: number; done: number };
      }>();
    }
    if (stats.status === 400)
      expectTypeOf(stats.error.errors[0]!.path).toEqualTypeOf<(string | number)[] | undefined>();
  });

  it("refuses wrong parameter types, missing body fields, unknown paths and methods", () => {
    // @ts-expect-error: the id is a number
    api.get("/projects/:id", { param: { id: "one" } });
    // @ts-expect-error: the path parameter is required
    api.get("/projects/:id", {});
    // @ts-expect-error: `name` is required in the body
    api.post("/projects", { json: { description: "no name" } });
    // @ts-expect-error: the body is required
    api.post("/projects");
    // @ts-expect-error: not a status of the enum
    api.get("/projects/:projectId/tasks", { param: { projectId: 1 }, query: { status: "later" } });
    // @ts-expect-error: no such path
    api.get("/project");
    // @ts-expect-error: no PUT on this path
    api.put("/projects/:id", { param: { id: 1 }, json: { name: "x" } });
    // @ts-expect-error: no such query parameter
    api.get("/stats", { query: { nope: 1 } });
  });
});

describe("Hono's hc on the tasks example", () => {
  const client = hc<TasksApi>("http://localhost");

  it("types inputs the Hono way: path and query values as strings", () => {
    type ListArgs = Parameters<(typeof client.projects)[":projectId"]["tasks"]["$get"]>[0];
    expectTypeOf<ListArgs["param"]>().toEqualTypeOf<{ projectId: string }>();
    expectTypeOf<NonNullable<ListArgs["query"]>["status"]>().toEqualTypeOf<"todo" | "doing" | "done" | undefined>();
    expectTypeOf<NonNullable<ListArgs["query"]>["page"]>().toEqualTypeOf<string | undefined>();
    type UploadArgs = Parameters<(typeof client.projects)[":projectId"]["attachments"]["$post"]>[0];
    expectTypeOf<UploadArgs["form"]>().toEqualTypeOf<{ file: File; note?: string }>();
  });

  it("infers outputs per status", async () => {
    const res = await client.projects[":projectId"].tasks[":id"].$get({ param: { projectId: "1", id: "2" } });
    if (res.status === 200) expectTypeOf(await res.json()).toEqualTypeOf<{ success: true; result: Task }>();
    if (res.status === 404) expectTypeOf(await res.json()).toEqualTypeOf<ErrorEnvelope>();
    const created = await client.projects.$post({ json: { name: "Launch" } });
    if (created.ok) expectTypeOf(await created.json()).toEqualTypeOf<{ success: true; result: Project }>();
  });

  it("refuses wrong inputs", () => {
    // @ts-expect-error: Hono takes path values as strings
    client.projects[":id"].$get({ param: { id: 1 } });
    // @ts-expect-error: `title` is required
    client.projects[":projectId"].tasks.$post({ param: { projectId: "1" }, json: { priority: 2 } });
    // @ts-expect-error: no such path
    client.project.$get();
    // @ts-expect-error: no PUT on this path
    client.projects[":id"].$put({ param: { id: "1" }, json: { name: "x" } });
  });
});

describe("routes of hand-written endpoints, on both adapters", () => {
  const honoRoutes = fromHono(new Hono().basePath("/api"), { errorFormat: "problem" })
    .get("/items/:id", GetItem)
    .put("/items/:id", PutItem)
    .get("/ping", Ping);
  const nested = fromIttyRouter(AutoRouter()).get("/items/:id", GetItem).put("/items/:id", PutItem);
  const ittyRoutes = fromIttyRouter(AutoRouter()).route("/v1", nested).get("/ping", Ping);

  it("keys Hono routes by the app's base path and types errors as problem details", async () => {
    const api = createClient<typeof honoRoutes>("http://localhost");
    const item = await api.get("/api/items/:id", { param: { id: 1 }, query: { fields: ["label"] } });
    if (item.status === 200) expectTypeOf(item.data).toEqualTypeOf<{ id: number; label: string; tags: string[] }>();
    // A declared error schema is kept; the other error statuses are the router's error format.
    if (item.status === 404) expectTypeOf(item.error).toEqualTypeOf<{ missing: true }>();
    if (item.status === 400) expectTypeOf(item.error).toEqualTypeOf<ProblemDetails>();
    const stored = await api.put("/api/items/:id", { param: { id: 1 }, json: { label: "x" } });
    if (stored.ok) expectTypeOf(stored.status).toEqualTypeOf<201>();
    const ping = await api.get("/api/ping");
    if (ping.ok) expectTypeOf(ping.data).toEqualTypeOf<{ pong: true; at: number }>();
    // @ts-expect-error: the path includes the base path
    api.get("/ping");
    // @ts-expect-error: `label` is required
    api.put("/api/items/:id", { param: { id: 1 }, json: { tags: [] } });
    // @ts-expect-error: `expand` is a boolean
    api.get("/api/items/:id", { param: { id: 1 }, query: { expand: "yes" } });
    const res = await hc<typeof honoRoutes>("http://localhost").api.ping.$get();
    if (res.ok) expectTypeOf(await res.json()).toEqualTypeOf<{ pong: true; at: number }>();
  });

  it("mounts nested itty-router routes under their prefix", async () => {
    const api = createClient<typeof ittyRoutes>("http://localhost");
    const item = await api.get("/v1/items/:id", { param: { id: 7 } });
    expectTypeOf(item).toEqualTypeOf<
      ClientResult<NonNullable<(typeof ittyRoutes)["~routes"]>["/v1/items/:id"]["$get"]>
    >();
    if (item.status === 500) expectTypeOf(item.error).toEqualTypeOf<ErrorEnvelope>();
    // @ts-expect-error: mounted under /v1
    api.get("/items/:id", { param: { id: 7 } });
    const bare = fromIttyRouter(AutoRouter()).get("/plain", () => new Response("plain"));
    // @ts-expect-error: a plain handler adds no typed route
    createClient<typeof bare>("http://localhost").get("/plain");
  });

  it("keeps chanfana-style registration chainable with middleware and plain handlers", () => {
    const chained = fromHono(new Hono())
      .get("/plain", (c: any) => c.text("plain"))
      .get("/guarded", async (_c: any, next: () => Promise<void>) => next(), Ping);
    const api = createClient<typeof chained>("http://localhost");
    expectTypeOf(api.get<"/guarded">)
      .parameter(0)
      .toEqualTypeOf<"/guarded">();
    // @ts-expect-error: plain handlers are not in the route map
    api.get("/plain");
  });
});

describe("auto endpoints with cursors, __isnull and bulk create", () => {
  const Note = z.object({ id: z.number().int(), text: z.string(), due: z.iso.date().nullable() });
  const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
  class ListNotes extends ListEndpoint {
    _meta = meta;
    pagination = "cursor" as const;
    filterOperators = { due: ["isnull", "gte"] as ("isnull" | "gte")[] };
  }
  class CreateNotes extends CreateEndpoint {
    _meta = { ...meta, fields: Note.omit({ id: true }) };
    bulk = true as const;
  }
  class CreateNote extends CreateEndpoint {
    _meta = { ...meta, fields: Note.omit({ id: true }) };
  }
  const routes = fromIttyRouter(AutoRouter())
    .get("/notes", ListNotes)
    .post("/notes", CreateNotes)
    .post("/note", CreateNote);
  const api = createClient<typeof routes>("http://localhost");

  it("takes a cursor and no page number, and answers cursors", async () => {
    const listed = await api.get("/notes", {
      query: { cursor: "abc", per_page: 5, due__isnull: true, due__gte: "2027-01-01" },
    });
    if (listed.ok) {
      expectTypeOf(listed.data.result_info).toEqualTypeOf<{
        count: number;
        per_page: number;
        total_count?: number;
        next_cursor: string | null;
        prev_cursor: string | null;
      }>();
    }
    // @ts-expect-error: a cursor-only list has no page parameter
    api.get("/notes", { query: { page: 2 } });
    // @ts-expect-error: __isnull takes a boolean
    api.get("/notes", { query: { due__isnull: "yes" } });
  });

  it("takes one object or an array where bulk is on, and one object elsewhere", async () => {
    const created = await api.post("/notes", {
      json: [
        { text: "a", due: null },
        { text: "b", due: "2027-01-01" },
      ],
    });
    if (created.ok) {
      type Stored = { id: number; text: string; due: string | null };
      expectTypeOf(created.data.result).toEqualTypeOf<Stored | Stored[]>();
    }
    // @ts-expect-error: bulk is off here
    api.post("/note", { json: [{ text: "a", due: null }] });
  });
});
