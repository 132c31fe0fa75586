// Endpoints written exactly as a chanfana 3 application writes them; only the import line differs.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, InputValidationException, OpenAPIRoute } from "../src";
import { documentErrors } from "./helpers";

class TaskCreate extends OpenAPIRoute {
  schema = {
    tags: ["Tasks"],
    summary: "Create a new Task",
    request: {
      body: contentJson(
        z.object({
          name: z.string().min(3).max(50),
          slug: z.string().regex(/^[a-z0-9-]+$/),
          description: z.string().optional(),
          completed: z.boolean().default(false),
          due_date: z.iso.datetime(),
        }),
      ),
    },
    responses: {
      "200": {
        description: "Returns the created task",
        ...contentJson({
          success: Boolean,
          result: z.object({ task: z.object({ name: z.string(), slug: z.string() }) }),
        }),
      },
      ...InputValidationException.schema(),
    },
  };

  async handle(c: any) {
    const data = await this.getValidatedData<typeof this.schema>();
    const taskToCreate = data.body;
    return { success: true, task: { name: taskToCreate.name, slug: taskToCreate.slug }, _c: typeof c };
  }
}

class ParameterKinds extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({
        code: z.string().length(4).startsWith("A").endsWith("Z"),
        count: z.number().int().positive().max(10),
        delta: z.number().negative().min(-5).optional(),
        flag: z.boolean().default(true),
        shade: z.enum(["light", "dark"]).default("light"),
        level: z
          .enum(["low", "high"])
          .transform((value) => (value === "low" ? 1 : 2))
          .optional(),
        mode: z.preprocess((value) => String(value).toLowerCase(), z.enum(["fast", "slow"])).optional(),
        ids: z.array(z.number().int()).min(1).max(3).optional(),
        address: z.union([z.ipv4(), z.ipv6()]).optional(),
      }),
      body: contentJson(
        z.object({
          contact: z.object({ email: z.email(), site: z.url().optional() }).strict(),
          id: z.uuid(),
          when: z.iso.date(),
          at: z.iso.time().optional(),
          note: z.string().nullable(),
          profile: z.object({ nick: z.string(), age: z.number() }).partial(),
          tags: z.array(z.string()).nonempty(),
          even: z.number().refine((n) => n % 2 === 0, "must be even"),
          password: z.string().openapi({ format: "password", example: "s3cret", description: "Secret" }),
        }),
      ),
    },
    responses: {},
  };

  async handle() {
    const { query, body } = await this.getValidatedData();
    return { query, body };
  }
}

const validBody = {
  contact: { email: "a@b.co" },
  id: "9f1c3c5e-2c1a-4f0e-8d6a-3b1f2e4d5c6b",
  when: "2025-01-31",
  note: null,
  profile: {},
  tags: ["x"],
  even: 4,
  password: "pw",
};

function appWith() {
  const app = new Hono();
  const openapi = fromHono(app, { schema: { info: { title: "Spec examples", version: "1.0.0" } } });
  openapi.post("/tasks", TaskCreate);
  openapi.post("/kinds", ParameterKinds);
  return { app, openapi };
}

const post = (app: Hono, path: string, body: unknown) =>
  app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("spec: endpoint schema object and contentJson", () => {
  it("creates a task as the spec's example does", async () => {
    const { app } = appWith();
    const response = await post(app, "/tasks", { name: "Write", slug: "write", due_date: "2025-01-01T00:00:00Z" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, task: { name: "Write", slug: "write" }, _c: "object" });
  });

  it("answers invalid input with 400 without the handler catching anything", async () => {
    const { app } = appWith();
    const response = await post(app, "/tasks", { name: "W", slug: "Bad Slug" });
    expect(response.status).toBe(400);
    const paths = (await response.json()).errors.map((e: { path: string[] }) => e.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["body.name", "body.slug", "body.due_date"]));
  });

  it("documents tags, summary and the validation error response", async () => {
    const { openapi } = appWith();
    const op = (openapi.schema.paths["/tasks"] as any).post;
    expect(op.tags).toEqual(["Tasks"]);
    expect(op.summary).toBe("Create a new Task");
    expect(Object.keys(op.responses)).toEqual(["200", "400", "413", "415"]);
    expect(await documentErrors(openapi.schema)).toBeNull();
  });
});

describe("spec: parameter types", () => {
  const query = "code=ABCZ&count=3&flag=false&level=high&mode=FAST&ids=1&ids=2&address=::1";

  it("accepts every declared kind and applies transforms, preprocessing and defaults", async () => {
    const { app } = appWith();
    const response = await post(app, `/kinds?${query}`, validBody);
    expect(response.status).toBe(200);
    const data = await response.json();
    expect(data.query).toEqual({
      code: "ABCZ",
      count: 3,
      flag: false,
      shade: "light",
      level: 2,
      mode: "fast",
      ids: [1, 2],
      address: "::1",
    });
    expect(data.body.note).toBeNull();
  });

  const badQueries: Array<[string, string]> = [
    ["code", "code=ABCD&count=3"],
    ["count", "code=ABCZ&count=0"],
    ["delta", "code=ABCZ&count=1&delta=-9"],
    ["ids", "code=ABCZ&count=1&ids=1&ids=2&ids=3&ids=4"],
    ["address", "code=ABCZ&count=1&address=999.1.1.1"],
    ["mode", "code=ABCZ&count=1&mode=medium"],
  ];
  for (const [field, bad] of badQueries) {
    it(`rejects a bad ${field}`, async () => {
      const { app } = appWith();
      const response = await post(app, `/kinds?${bad}`, validBody);
      expect(response.status).toBe(400);
      expect((await response.json()).errors.map((e: { path: string[] }) => e.path[1])).toContain(field);
    });
  }

  const badBodies: Array<[string, Record<string, unknown>]> = [
    ["contact", { contact: { email: "a@b.co", extra: 1 } }],
    ["id", { id: "not-a-uuid" }],
    ["when", { when: "31/01/2025" }],
    ["tags", { tags: [] }],
    ["even", { even: 3 }],
    ["note", { note: undefined }],
  ];
  for (const [field, patch] of badBodies) {
    it(`rejects a bad body ${field}`, async () => {
      const { app } = appWith();
      const response = await post(app, `/kinds?${query}`, { ...validBody, ...patch });
      expect(response.status).toBe(400);
      expect((await response.json()).errors.map((e: { path: string[] }) => e.path[1])).toContain(field);
    });
  }

  it("documents metadata given through .openapi()", async () => {
    const { openapi } = appWith();
    const body = (openapi.schema.paths["/kinds"] as any).post.requestBody.content["application/json"].schema;
    expect(body.properties.password).toMatchObject({ format: "password", example: "s3cret", description: "Secret" });
    expect(await documentErrors(openapi.schema)).toBeNull();
  });
});
