import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputValidationException, type SqlDriver } from "../../src";
import { honoHarness, jsonBody } from "../helpers";
import { INJECTION_PAYLOADS } from "../sql/injection-payloads";
import type { CrudBackend } from "./crud.case";
import { projectCreateMeta, projectMeta, taskMeta } from "./models";

// Words that only appear in a response if SQL or a driver message leaked.
const LEAK =
  /select |insert |update |delete from|syntax|sqlite|postgres|mysql|maria|constraint|duplicate entry|relation "|no such table/i;

/**
 * HTTP-level safety of the database-backed endpoints (the backend's: SQL or Drizzle) on one engine:
 * conflicts, injection, failures that say nothing. `driver` reaches the same database directly.
 */
export function runSqlSafetySuite(backend: CrudBackend, driver: () => SqlDriver): void {
  const { Create, Read, List } = backend;
  describe(`${backend.name}: SQL endpoint safety`, () => {
    class CreateProject extends Create {
      _meta = projectCreateMeta;
    }
    class CreateProjectFriendly extends Create {
      _meta = projectCreateMeta;
      constraintsMessages = { "projects.name": new InputValidationException("This name is taken", ["body", "name"]) };
    }
    class CreateTask extends Create {
      _meta = taskMeta;
    }
    class ReadTask extends Read {
      _meta = taskMeta;
    }
    class ListTasks extends List {
      _meta = taskMeta;
      filterFields = ["status", "priority"];
      searchFields = ["title", "notes"];
      orderByFields = ["priority", "title"];
    }
    class ListProjects extends List {
      _meta = projectMeta;
      filterFields = ["name"];
    }

    let app: ReturnType<typeof honoHarness.make>;
    beforeAll(async () => {
      await backend.reset();
      app = honoHarness.make(backend.routerOptions);
      app.router.post("/projects", CreateProject);
      app.router.post("/friendly/projects", CreateProjectFriendly);
      app.router.get("/projects", ListProjects);
      app.router.get("/projects/:projectId/tasks", ListTasks);
      app.router.get("/projects/:projectId/tasks/:id", ReadTask);
      app.router.post("/projects/:projectId/tasks", CreateTask);
      expect((await app.request("/projects", jsonBody({ name: "Alpha" }))).status).toBe(201);
      const task = { id: 1, title: "Write '100%' docs", priority: 3, status: "open", notes: "a_b" };
      expect((await app.request("/projects/1/tasks", jsonBody(task))).status).toBe(201);
    });
    afterAll(async () => {
      await backend.close?.();
    });

    it("answers a duplicate unique value with 409 naming the field", async () => {
      const response = await app.request("/projects", jsonBody({ name: "Alpha" }));
      expect(response.status).toBe(409);
      const body = await response.json();
      expect(body.errors[0]).toEqual({ code: 7006, message: "An object with this name already exists" });
    });

    it("answers it with the configured constraintsMessages entry", async () => {
      const response = await app.request("/friendly/projects", jsonBody({ name: "Alpha" }));
      expect(response.status).toBe(400);
      expect((await response.json()).errors[0]).toEqual({
        code: 7001,
        message: "This name is taken",
        path: ["body", "name"],
      });
    });

    it(`leaves every table byte-identical under ${INJECTION_PAYLOADS.length} injection payloads`, async () => {
      const before = JSON.stringify([await backend.rows("projects"), await backend.rows("tasks")]);
      const statuses = new Map<number, number>();
      for (const payload of INJECTION_PAYLOADS) {
        const p = encodeURIComponent(payload);
        const urls = [
          `/projects/1/tasks?search=${p}`,
          `/projects/1/tasks?status=${p}`,
          `/projects/1/tasks?priority=${p}`,
          `/projects/1/tasks?order_by=${p}`,
          `/projects/1/tasks?order_by=title&order_by_direction=${p}`,
          `/projects/${p}/tasks/1`,
          `/projects/1/tasks/${p}`,
          `/projects?name=${p}`,
        ];
        for (const url of urls) {
          const response = await app.request(url);
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect([200, 400, 404], `${url} → ${response.status} ${text.slice(0, 200)}`).toContain(response.status);
          expect(text, url).not.toMatch(LEAK);
          if (response.status === 200 && url.includes("search=")) {
            // A search term matches literally (wildcards included): only rows whose text contains it,
            // ignoring case and, on MySQL/MariaDB's default collations, accents.
            const fold = (value: string) => value.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
            for (const row of JSON.parse(text).result)
              expect(fold(`${row.title} ${row.notes}`)).toContain(fold(payload));
          }
        }
      }
      expect(JSON.stringify([await backend.rows("projects"), await backend.rows("tasks")])).toBe(before);
      expect(statuses.get(500)).toBeUndefined();
    });

    it("answers a database failure with a 500 that names nothing", async () => {
      const original = console.error;
      const logged: unknown[][] = [];
      console.error = (...args: unknown[]) => logged.push(args);
      try {
        await driver().execute(`DROP TABLE ${driver().dialect.quote("tasks")}`, []);
        const response = await app.request("/projects/1/tasks");
        expect(response.status).toBe(500);
        const text = await response.text();
        const id = response.headers.get("x-request-id");
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        expect(JSON.parse(text).errors).toEqual([{ code: 7000, message: "Database operation failed" }]);
        expect(text).not.toMatch(LEAK);
        // The driver's error reaches the log, under the same request id.
        expect(logged.length).toBe(1);
        expect(String(logged[0]![0])).toContain(id);
      } finally {
        console.error = original;
      }
    });
  });
}
