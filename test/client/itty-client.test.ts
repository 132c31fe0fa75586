// specroute first: the example models call `.openapi()`, which importing specroute adds to zod.
import "../../src";
import Database from "better-sqlite3";
import { AutoRouter } from "itty-router";
import { createClient } from "specroute/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { NewProject, projectModel } from "../../examples/tasks/models";
import {
  betterSqlite3Driver,
  contentForm,
  contentJson,
  fromIttyRouter,
  OpenAPIRoute,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
} from "../../src";
import { listenOnLoopback } from "../helpers";

class CreateProject extends SqlCreateEndpoint {
  _meta = { model: projectModel, fields: NewProject };
  dbName = "DB";
}

class ListProjects extends SqlListEndpoint {
  _meta = { model: projectModel };
  dbName = "DB";
  filterFields: "name"[] = ["name"];
  filterOperators = { id: ["in"] as "in"[] };
  orderByFields: ("id" | "name")[] = ["id", "name"];
}

class GetProject extends SqlReadEndpoint {
  _meta = { model: projectModel };
  dbName = "DB";
}

/** Echoes what it received: a string path parameter, a repeated query parameter, a header. */
class Echo extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ name: z.string() }),
      query: z.object({ tag: z.array(z.string()).default([]), n: z.number().int().optional() }),
      headers: z.object({ "x-trace": z.string().optional() }),
    },
    responses: {
      "200": {
        description: "What was received",
        ...contentJson(
          z.object({ name: z.string(), tag: z.array(z.string()), n: z.number().nullable(), trace: z.string() }),
        ),
      },
    },
  };
  async handle() {
    const { params, query, headers } = await this.getValidatedData();
    return { name: params.name, tag: query.tag, n: query.n ?? null, trace: headers["x-trace"] ?? "" };
  }
}

/** A URL-encoded form body. */
class Subscribe extends OpenAPIRoute {
  schema = {
    request: { body: contentForm(z.object({ email: z.email(), topics: z.array(z.string()).default([]) })) },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return { subscribed: body.email, topics: body.topics };
  }
}

/** A JSON body with a bigint and a date, answered as validated. */
class Stamp extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(z.object({ id: z.bigint(), at: z.date(), limit: z.bigint().or(z.literal("none")) })) },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return { id: String(body.id), at: body.at.toISOString(), limit: String(body.limit) };
  }
}

function ittyApi() {
  return fromIttyRouter(AutoRouter(), { errorFormat: "problem" })
    .post("/projects", CreateProject)
    .get("/projects", ListProjects)
    .get("/projects/:id", GetProject)
    .get("/echo/:name", Echo)
    .post("/subscribe", Subscribe)
    .post("/stamps", Stamp);
}
type IttyApi = ReturnType<typeof ittyApi>;

describe("createClient over an itty-router router", () => {
  let served: { origin: string; close(): Promise<void> };
  let sqlite: Database.Database;
  beforeAll(async () => {
    sqlite = new Database(":memory:");
    for (const statement of MIGRATIONS) sqlite.exec(statement);
    const router = ittyApi();
    const env = { DB: betterSqlite3Driver(sqlite) };
    served = await listenOnLoopback((request) => router.fetch(request, env));
  });
  afterAll(async () => {
    await served.close();
    sqlite.close();
  });

  it("creates, reads and lists with a repeated query parameter", async () => {
    const api = createClient<IttyApi>(`${served.origin}/`);
    for (const name of ["Alpha", "Beta", "Gamma"]) {
      expect((await api.post("/projects", { json: { name } })).status).toBe(201);
    }
    const read = await api.get("/projects/:id", { param: { id: 2 } });
    expect(read.ok && read.data.result.name).toBe("Beta");
    const some = await api.get("/projects", {
      query: { id__in: [1, 3], order_by: "name", order_by_direction: "desc" },
    });
    expect(some.ok && some.data.result.map((project) => project.name)).toEqual(["Gamma", "Alpha"]);
    const named = await api.get("/projects", { query: { name: "Beta" } });
    expect(named.ok && named.data.result.map((project) => project.id)).toEqual([2]);
  });

  it("encodes path parameters and repeats array query members", async () => {
    const api = createClient<IttyApi>(served.origin, { headers: { "x-trace": "from-options" } });
    const echoed = await api.get("/echo/:name", { param: { name: "a b/c?d" }, query: { tag: ["x", "y z"], n: 3 } });
    expect(echoed.ok && echoed.data).toEqual({ name: "a b/c?d", tag: ["x", "y z"], n: 3, trace: "from-options" });
    const overridden = await api.get(
      "/echo/:name",
      { param: { name: "plain" }, header: { "x-trace": "from-input" } },
      { headers: { "x-trace": "from-init" } },
    );
    expect(overridden.ok && overridden.data.trace).toBe("from-init");
  });

  it("sends a bigint past 2^53 and a Date in a JSON body as the route reads them", async () => {
    const api = createClient<IttyApi>(served.origin);
    const at = new Date("2026-12-04T19:00:00.000Z");
    // Past 2^53 as digits; within it as the JSON integer, which a union with a string option reads too.
    const stamped = await api.post("/stamps", { json: { id: 2n ** 53n + 1n, at, limit: 7n } });
    expect(stamped.ok && stamped.data).toEqual({ id: "9007199254740993", at: "2026-12-04T19:00:00.000Z", limit: "7" });
  });

  it("sends a URL-encoded form", async () => {
    const api = createClient<IttyApi>(served.origin);
    const subscribed = await api.post("/subscribe", { form: { email: "ada@example.com", topics: ["news", "tips"] } });
    expect(subscribed.ok && subscribed.data).toEqual({ subscribed: "ada@example.com", topics: ["news", "tips"] });
  });

  it("reads errors as problem details when the router answers with them", async () => {
    const api = createClient<IttyApi>(served.origin);
    const refused = await api.get("/projects/:id", { param: { id: 99 } });
    if (refused.ok) throw new Error("a missing project was found");
    expect(refused.status).toBe(404);
    expect(refused.error).toMatchObject({ type: "about:blank", status: 404 });
    expect(refused.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const invalid = await api.post("/subscribe", { form: { email: "not an email" } });
    expect(!invalid.ok && invalid.error.errors[0]?.path).toEqual(["body", "email"]);
  });
});
