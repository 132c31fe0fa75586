import { Hono } from "hono";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ConflictException,
  D1CreateEndpoint,
  D1DeleteEndpoint,
  D1ListEndpoint,
  D1ReadEndpoint,
  D1UpdateEndpoint,
  fromHono,
  InputValidationException,
  type ListFilters,
} from "../../src";
import { jsonBody } from "../helpers";
import { openD1Binding } from "./d1";
import { recordingLogger } from "./recording-logger";

// chanfana's D1 endpoints on a real D1 database (workerd via Miniflare), reached through `env`.
const User = z.object({ id: z.number().int(), email: z.string(), name: z.string() });
const model = { tableName: "users", schema: User, primaryKeys: ["id"] };
const meta = { model, fields: User.omit({ id: true }) };

let d1: Awaited<ReturnType<typeof openD1Binding>>;
let env: { DB: unknown };

beforeAll(async () => {
  d1 = await openD1Binding();
  env = { DB: d1.binding };
});
afterAll(() => d1.close());

beforeEach(async () => {
  await d1.binding.exec("DROP TABLE IF EXISTS users");
  await d1.binding.exec(
    "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL)",
  );
});

async function seed(count: number): Promise<void> {
  await d1.binding.exec(
    `INSERT INTO users (email, name) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count}) SELECT 'u' || i || '@x', 'User ' || printf('%03d', i) FROM n`,
  );
}

function appWith(routes: (router: ReturnType<typeof fromHono>) => void, bindings: object = env) {
  const app = new Hono();
  routes(fromHono(app));
  return (path: string, init?: RequestInit) => app.request(path, init, bindings);
}

describe("logger", () => {
  it("gets each statement at debug, a successful write at log, a failure at error", async () => {
    const logger = recordingLogger();
    class CreateUser extends D1CreateEndpoint {
      _meta = meta;
      logger = logger;
    }
    class ListUsers extends D1ListEndpoint {
      _meta = meta;
      logger = logger;
    }
    const request = appWith((router) => {
      router.post("/users", CreateUser);
      router.get("/users", ListUsers);
    });

    expect((await request("/users", jsonBody({ email: "a@x", name: "Ada" }))).status).toBe(201);
    expect(logger.lines.debug?.[0]?.[0]).toMatch(/^\[CreateUser\] SQL: INSERT INTO "users"/);
    expect(logger.lines.log).toEqual([["Successfully created record in users"]]);

    await request("/users?per_page=5");
    expect(logger.lines.debug!.some(([line]) => /^\[ListUsers\] SQL: SELECT .* LIMIT/.test(String(line)))).toBe(true);

    expect((await request("/users", jsonBody({ email: "a@x", name: "Again" }))).status).toBe(409);
    expect(logger.lines.error).toHaveLength(1);
    expect(logger.lines.error![0]![0]).toMatch(
      /^Database error during create users: .*UNIQUE constraint failed: users\.email/,
    );
  });

  it("logs updates and deletes as chanfana words them", async () => {
    await seed(2);
    const logger = recordingLogger();
    class UpdateUser extends D1UpdateEndpoint {
      _meta = meta;
      logger = logger;
    }
    class DeleteUser extends D1DeleteEndpoint {
      _meta = meta;
      logger = logger;
    }
    const request = appWith((router) => {
      router.patch("/users/:id", UpdateUser);
      router.delete("/users/:id", DeleteUser);
    });
    await request("/users/1", jsonBody({ name: "Renamed" }, { method: "PATCH" }));
    await request("/users/2", { method: "DELETE" });
    expect(logger.lines.log).toEqual([
      ["Successfully updated record in users"],
      ["Successfully deleted record from users"],
    ]);
  });
});

describe("getDBBinding()", () => {
  it("is what the endpoint queries when overridden, whatever env holds", async () => {
    await seed(1);
    class ReadUser extends D1ReadEndpoint {
      _meta = meta;
      getDBBinding() {
        return d1.binding;
      }
    }
    const request = appWith((router) => router.get("/users/:id", ReadUser), {});
    const response = await request("/users/1");
    expect(response.status).toBe(200);
    expect((await response.json()).result).toEqual({ id: 1, email: "u1@x", name: "User 001" });
  });

  it("reads dbName from env by default, and answers 500 when the binding is missing or not D1", async () => {
    await seed(1);
    class ReadUser extends D1ReadEndpoint {
      _meta = meta;
      dbName = "USERS_DB";
    }
    const found = appWith((router) => router.get("/users/:id", ReadUser), { USERS_DB: d1.binding });
    expect((await found("/users/1")).status).toBe(200);
    const missing = appWith((router) => router.get("/users/:id", ReadUser), {});
    expect((await missing("/users/1")).status).toBe(500);
    const notD1 = appWith((router) => router.get("/users/:id", ReadUser), { USERS_DB: { get() {} } });
    expect((await notD1("/users/1")).status).toBe(500);
  });
});

describe("UNIQUE violations", () => {
  const seen: unknown[] = [];
  const template = new InputValidationException("Email already registered", ["body", "email"]);
  class CreateUser extends D1CreateEndpoint {
    _meta = meta;
    constraintsMessages = { "users.email": template };
    async handle(...args: any[]): Promise<Response> {
      try {
        return (await super.handle(...args)) as Response;
      } catch (error) {
        seen.push(error);
        throw error;
      }
    }
  }
  class CreatePlain extends D1CreateEndpoint {
    _meta = meta;
  }

  it("answer with the configured exception, a fresh instance on each request", async () => {
    const request = appWith((router) => router.post("/users", CreateUser));
    await request("/users", jsonBody({ email: "a@x", name: "Ada" }));
    const first = await request("/users", jsonBody({ email: "a@x", name: "Ada" }));
    const second = await request("/users", jsonBody({ email: "a@x", name: "Ada" }));
    expect(first.status).toBe(400);
    expect((await first.json()).errors).toEqual([
      { code: template.code, message: "Email already registered", path: ["body", "email"] },
    ]);
    expect(second.status).toBe(400);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeInstanceOf(InputValidationException);
    expect(seen[0]).not.toBe(template);
    expect(seen[1]).not.toBe(seen[0]);
  });

  it("answer 409 naming the column when nothing is configured (chanfana answers 500)", async () => {
    const request = appWith((router) => router.post("/users", CreatePlain));
    await request("/users", jsonBody({ email: "a@x", name: "Ada" }));
    const response = await request("/users", jsonBody({ email: "a@x", name: "Ada" }));
    expect(response.status).toBe(409);
    expect((await response.json()).errors[0]).toEqual({
      code: new ConflictException().code,
      message: "An object with this email already exists",
    });
  });
});

describe("D1 list", () => {
  class ListUsers extends D1ListEndpoint {
    _meta = meta;
    orderByFields = ["name", "email"];
  }

  it("cuts per_page to maxPerPage, and serves above 100 when maxPerPage allows", async () => {
    await seed(130);
    class Small extends ListUsers {
      maxPerPage = 5;
    }
    class Big extends ListUsers {
      maxPerPage = 120;
    }
    const request = appWith((router) => {
      router.get("/small", Small);
      router.get("/big", Big);
      router.get("/default", ListUsers);
    });
    const small = await (await request("/small?per_page=50")).json();
    expect([small.result.length, small.result_info.per_page, small.result_info.total_count]).toEqual([5, 5, 130]);
    const big = await (await request("/big?per_page=120")).json();
    expect([big.result.length, big.result_info.per_page]).toEqual([120, 120]);
    expect((await request("/default?per_page=101")).status).toBe(400);
  });

  it("pages and orders under custom parameter names, which never become filters", async () => {
    await seed(10);
    const seen: ListFilters[] = [];
    class Renamed extends ListUsers {
      pageFieldName = "p";
      perPageFieldName = "limit";
      orderByFieldName = "sort";
      orderByDirectionFieldName = "direction";
      async before(filters: ListFilters) {
        seen.push(filters);
        return filters;
      }
    }
    const request = appWith((router) => router.get("/users", Renamed));
    const response = await request("/users?p=2&limit=3&sort=name&direction=desc");
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.result.map((user: { name: string }) => user.name)).toEqual(["User 007", "User 006", "User 005"]);
    expect(body.result_info).toEqual({ count: 3, page: 2, per_page: 3, total_count: 10 });
    expect(seen[0]!.filters).toEqual([]);
    expect((await request("/users?page=2")).status).toBe(400);
  });
});
