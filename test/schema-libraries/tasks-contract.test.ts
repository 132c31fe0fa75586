import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callsFor, type Doc, violations } from "../contract/calls";
import { documentErrors, listenOnLoopback, loopbackServer } from "../helpers";
import { type Adapter, API_KEY, type TasksEndpoints, tasksApp } from "./tasks-app";
import { arktypeTasks } from "./tasks-arktype";
import { valibotTasks } from "./tasks-valibot";

/*
 * The tasks example's project and task endpoints written in valibot and in ArkType, each on Hono and on
 * itty-router, served over real HTTP on 127.0.0.1 with the example's migrations on better-sqlite3: the
 * documents validate in OpenAPI 3.0, 3.1 and 3.2, and every operation called validly and invalidly
 * (test/contract/calls.ts, the example's own contract check) answers what its document says, in 3.0, 3.1 and 3.2.
 */

const libraries: Array<{ library: string; endpoints: TasksEndpoints }> = [
  { library: "valibot", endpoints: valibotTasks },
  { library: "ArkType", endpoints: arktypeTasks },
];
const adapters: Adapter[] = ["hono", "itty-router"];
const cases = libraries.flatMap((library) => adapters.map((adapter) => ({ ...library, adapter })));

/** Redocly's findings of one severity on a document, as `rule: message @ pointer`. */
async function lint(doc: unknown, severity: "error" | "warn"): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/openapi.json", config });
  return problems
    .filter((problem) => problem.severity === severity)
    .map((problem) => `${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`);
}

const writeHeaders = { "content-type": "application/json", "x-api-key": API_KEY };
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: writeHeaders,
  body: JSON.stringify(body),
});

describe.each(cases)(`$library on $adapter, over HTTP (${loopbackServer})`, ({ endpoints, adapter }) => {
  let app: ReturnType<typeof tasksApp>;
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    app = tasksApp(endpoints, adapter, { seeded: true });
    ({ origin, close } = await listenOnLoopback((request, env) => app.fetch(request, env)));
  });
  afterAll(async () => {
    await close?.();
    app?.database.close();
  });
  beforeEach(() => app.database.reset());

  const call = (path: string, init?: RequestInit) => fetch(`${origin}${path}`, init);
  const served = async () => (await (await call("/openapi.json")).json()) as Doc;
  const documentOf = async (version: "3" | "3.1" | "3.2") =>
    version === "3.1" ? served() : (app.routes.getGeneratedSchema(version) as Doc);

  it.each(["3", "3.1", "3.2"] as const)("its OpenAPI %s document validates", async (version) => {
    const doc = await documentOf(version);
    expect(Object.keys(doc.paths)).toEqual([
      "/projects",
      "/projects/{id}",
      "/projects/{projectId}/tasks",
      "/projects/{projectId}/tasks/{id}",
      "/stats",
    ]);
    expect(await documentErrors(doc)).toBeNull();
  });

  it.each(["3", "3.1", "3.2"] as const)("its OpenAPI %s document has no redocly errors", async (version) => {
    expect(await lint(await documentOf(version), "error")).toEqual([]);
  });

  it("reports a document without servers under redocly, so the lint above can fail", async () => {
    const doc = structuredClone(await documentOf("3.1")) as Doc & { servers?: unknown };
    delete doc.servers;
    expect(await lint(doc, "error")).toEqual(["no-empty-servers: Servers must be present. @ #/openapi"]);
  });

  it.each(["3", "3.1", "3.2"] as const)(
    "lists every status it answers and every body fits its schema (OpenAPI %s)",
    async (version) => {
      const doc = await documentOf(version);
      const found: string[] = [];
      const statuses = new Set<number>();
      let operations = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          operations++;
          for (const request of callsFor(method, template, operation, API_KEY)) {
            app.database.reset();
            const response = await call(request.path, request.init);
            statuses.add(response.status);
            for (const problem of await violations(doc, method, template, response)) {
              found.push(`${method.toUpperCase()} ${request.path} (${request.name}) → ${response.status}: ${problem}`);
            }
          }
        }
      }
      expect(found).toEqual([]);
      expect(operations).toBe(11);
      // The calls reached every kind of answer the document promises.
      expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 413, 415]);
    },
  );

  it.each(["3", "3.1"] as const)(
    "documents each list filter in its field's type, with no default (an absent filter filters nothing) (OpenAPI %s)",
    async (version) => {
      const doc = (await documentOf(version)) as any;
      const parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }> =
        doc.paths["/projects/{projectId}/tasks"].get.parameters;
      const filters = Object.fromEntries(
        parameters
          .filter((p) =>
            ["status", "priority", "priority__gte", "priority__lte", "due__lt", "due__gte"].includes(p.name),
          )
          .map((p) => [p.name, p.schema]),
      );
      expect(Object.keys(filters).sort()).toEqual([
        "due__gte",
        "due__lt",
        "priority",
        "priority__gte",
        "priority__lte",
        "status",
      ]);
      for (const [name, schema] of Object.entries(filters)) expect(schema, name).not.toHaveProperty("default");
      expect(filters.status!.enum).toEqual(expect.arrayContaining(["todo", "doing", "done"]));
      for (const name of ["priority", "priority__gte", "priority__lte"]) {
        expect(filters[name], name).toMatchObject({ type: "integer", minimum: 1, maximum: 5 });
      }
      // Unfiltered, the list holds tasks of every status: no default status applies.
      expect((await (await call("/projects/1/tasks")).json()).result).toHaveLength(1);
      await call("/projects/1/tasks/1", json("PATCH", { status: "done" }));
      expect((await (await call("/projects/1/tasks")).json()).result).toHaveLength(1);
    },
  );

  it("answers a taken project name: 400 naming the field on create, 409 on PATCH, both as documented", async () => {
    const doc = await served();
    const created = await call("/projects", json("POST", { name: "Launch" }));
    expect(created.status).toBe(400);
    expect(await violations(doc, "post", "/projects", created.clone())).toEqual([]);
    expect((await created.json()).errors).toEqual([
      expect.objectContaining({ message: "A project with this name already exists", path: ["body", "name"] }),
    ]);
    const patched = await call("/projects/2", json("PATCH", { name: "Launch" }));
    expect(patched.status).toBe(409);
    expect(await violations(doc, "patch", "/projects/{id}", patched)).toEqual([]);
  });

  it("creates with the model's defaults, numbers tasks per project, and validates through the library", async () => {
    const project = await call("/projects", json("POST", { name: "New" }));
    expect(project.status).toBe(201);
    expect((await project.json()).result).toEqual({
      id: 3,
      name: "New",
      description: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const task = await call("/projects/1/tasks", json("POST", { title: "Second", due: "2026-03-01" }));
    expect(task.status).toBe(201);
    expect((await task.json()).result).toEqual({
      projectId: 1,
      id: 2,
      title: "Second",
      status: "todo",
      priority: 3,
      due: "2026-03-01",
    });
    const refused = await call("/projects/1/tasks", json("POST", { title: "", status: "later", due: "March" }));
    expect(refused.status).toBe(400);
    const { errors } = await refused.json();
    expect(errors.map((error: { path: unknown }) => error.path).sort()).toEqual([
      ["body", "due"],
      ["body", "status"],
      ["body", "title"],
    ]);
    expect((await call("/projects/9/tasks", json("POST", { title: "Orphan" }))).status).toBe(404);
  });

  it("lists with the example's filters, operators, search, order and both paginations", async () => {
    for (const [title, priority, status, due] of [
      ["Write copy", 5, "doing", "2026-02-01"],
      ["Review copy", 2, "done", "2026-04-01"],
      ["Ship", 4, "todo", null],
    ] as const) {
      expect((await call("/projects/1/tasks", json("POST", { title, priority, status, due }))).status).toBe(201);
    }
    const titles = async (query: string) => {
      const response = await call(`/projects/1/tasks?${query}`);
      expect(response.status, query).toBe(200);
      const body = await response.json();
      return { titles: body.result.map((task: { title: string }) => task.title), info: body.result_info };
    };
    expect((await titles("status=doing")).titles).toEqual(["Write copy"]);
    expect((await titles("priority__gte=4&order_by=priority&order_by_direction=desc")).titles).toEqual([
      "Write copy",
      "Ship",
    ]);
    expect((await titles("due__lt=2026-03-01")).titles).toEqual(["Write copy"]);
    expect((await titles("search=COPY&order_by=title")).titles).toEqual(["Review copy", "Write copy"]);
    const page = await titles("per_page=2&page=2");
    expect(page.titles).toEqual(["Review copy", "Ship"]);
    expect(page.info).toMatchObject({ count: 2, page: 2, per_page: 2 });
    const first = await titles("per_page=3");
    expect(first.info.next_cursor).toEqual(expect.any(String));
    const next = await titles(`per_page=3&cursor=${encodeURIComponent(first.info.next_cursor)}`);
    expect([...first.titles, ...next.titles]).toEqual(["First", "Write copy", "Review copy", "Ship"]);
    expect((await call("/projects/1/tasks?priority=high")).status).toBe(400);
    expect((await call("/projects/1/tasks?order_by=status")).status).toBe(400);
    const projects = await call("/projects?search=launch");
    expect((await projects.json()).result.map((p: { name: string }) => p.name)).toEqual(["Launch"]);
  });

  it("counts per status in TaskStats, its query and header validated through the library", async () => {
    await call("/projects/2/tasks", json("POST", { title: "Elsewhere", status: "done" }));
    const all = await call("/stats", { headers: { "x-client": "cli-1" } });
    expect(await all.json()).toEqual({ client: "cli-1", counts: { todo: 1, doing: 0, done: 1 } });
    const one = await call("/stats?projectId=2");
    expect(await one.json()).toEqual({ client: null, counts: { todo: 0, doing: 0, done: 1 } });
    const bad = await call("/stats?projectId=two&due_before=soon", { headers: { "x-client": "No Spaces" } });
    expect(bad.status).toBe(400);
    const paths = (await bad.json()).errors.map((error: { path: unknown }) => error.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        ["query", "projectId"],
        ["query", "due_before"],
        ["headers", "X-Client"],
      ]),
    );
  });

  it("counts an answer off its documented schema as a violation, so the checks above can fail", async () => {
    const doc = await served();
    const teapot = new Response(JSON.stringify({ success: false }), { status: 418 });
    expect(await violations(doc, "get", "/stats", teapot)).not.toEqual([]);
    const wrongShape = new Response(JSON.stringify({ client: null, counts: { todo: "many" } }), { status: 200 });
    expect(await violations(doc, "get", "/stats", wrongShape)).not.toEqual([]);
    const badTask = new Response(JSON.stringify({ success: true, result: { projectId: 1, id: 1, title: 3 } }), {
      status: 200,
    });
    expect(await violations(doc, "get", "/projects/{projectId}/tasks/{id}", badTask)).not.toEqual([]);
  });
});
