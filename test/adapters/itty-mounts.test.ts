import { Router } from "itty-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromIttyRouter, OpenAPIRoute } from "../../src";
import { listenOnLoopback } from "../helpers";

// A child itty-router router that guards itself with `before`, formats its errors with `catch` and
// stamps its answers with `finally` keeps all three when a parent mounts it with route(), as with all().

/** Answers 401 without the admin token: a guard of the child's own, which specroute does not see. */
const adminGuard = (request: Request) =>
  request.headers.get("x-admin-token") === "letmein" ? undefined : Response.json({ guard: "admin" }, { status: 401 });
/** Answers 403 without the reports role: the grandchild's own guard. */
const reportsGuard = (request: Request) =>
  request.headers.get("x-role") === "reports" ? undefined : Response.json({ guard: "reports" }, { status: 403 });
/** An error formatter of a router's own. */
const formatted = (by: string) => (error: Error) => Response.json({ by, error: error.message }, { status: 500 });
/** A `finally` step: the answer with the router's name appended to `x-finally`. */
const stamp = (name: string) => (response: Response | undefined) => {
  if (!response) return response;
  const stamped = new Response(response.body, response);
  stamped.headers.append("x-finally", name);
  return stamped;
};

class Secret extends OpenAPIRoute {
  schema = { responses: { "200": { description: "The secret", ...contentJson(z.object({ secret: z.string() })) } } };
  handle() {
    return { secret: "42" };
  }
}

class Broken extends OpenAPIRoute {
  schema = { responses: {} };
  handle(): never {
    throw new Error("the store is down");
  }
}

class Open extends OpenAPIRoute {
  schema = { responses: {} };
  handle() {
    return { open: true };
  }
}

/** A guarded child router, made the way an app makes one. */
function adminRouter(options: { base?: string } = {}) {
  const admin = fromIttyRouter(
    Router({ ...options, before: [adminGuard], catch: formatted("admin"), finally: [stamp("admin")] }),
    options,
  );
  admin.get("/secret", Secret);
  admin.get("/broken", Broken);
  return admin;
}

describe("an itty-router child router mounted with route(), over HTTP", () => {
  let origin: string;
  let close: () => Promise<void>;
  let document: any;

  beforeAll(async () => {
    const parent = fromIttyRouter(Router({ catch: formatted("parent") }));
    parent.get("/open", Open);
    parent.route("/admin", adminRouter());
    // Nested: the child mounts a grandchild of its own with route(), before the parent mounts the child.
    const reports = fromIttyRouter(
      Router({ before: [reportsGuard], catch: formatted("reports"), finally: [stamp("reports")] }),
    );
    reports.get("/daily", Secret);
    reports.get("/broken", Broken);
    const staff = fromIttyRouter(Router({ before: [adminGuard], finally: [stamp("staff")] }));
    staff.route("/reports", reports);
    parent.route("/staff", staff);
    // The same guarded child, chanfana style (its own base) with all(): what route() must match.
    parent.all("/legacy/*", adminRouter({ base: "/legacy" }));
    const server = await listenOnLoopback(
      async (request) => (await parent.fetch(request)) ?? new Response("no route", { status: 404 }),
    );
    ({ origin, close } = server);
    document = parent.schema;
  });
  afterAll(() => close?.());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers });
  const admin = { "x-admin-token": "letmein" };

  it("answers the child's 401 without credentials, and 200 with them, as all() does", async () => {
    for (const prefix of ["/admin", "/legacy"]) {
      const refused = await get(`${prefix}/secret`);
      expect(refused.status, prefix).toBe(401);
      expect(await refused.json(), prefix).toEqual({ guard: "admin" });
      const allowed = await get(`${prefix}/secret`, admin);
      expect(allowed.status, prefix).toBe(200);
      expect(await allowed.json(), prefix).toEqual({ secret: "42" });
    }
  });

  it("formats the child's errors with its own catch, and runs its finally", async () => {
    for (const prefix of ["/admin", "/legacy"]) {
      const broken = await get(`${prefix}/broken`, admin);
      expect(broken.status, prefix).toBe(500);
      expect(await broken.json(), prefix).toEqual({ by: "admin", error: "the store is down" });
      expect(broken.headers.get("x-finally"), prefix).toBe("admin");
      expect((await get(`${prefix}/secret`)).headers.get("x-finally"), prefix).toBe("admin");
    }
  });

  it("leaves the parent's own routes to the parent: no child guard, no child finally", async () => {
    const open = await get("/open");
    expect(open.status).toBe(200);
    expect(open.headers.get("x-finally")).toBeNull();
  });

  it("keeps each router's before, catch and finally through nested mounts", async () => {
    expect((await get("/staff/reports/daily")).status).toBe(401);
    const noRole = await get("/staff/reports/daily", admin);
    expect(noRole.status).toBe(403);
    expect(await noRole.json()).toEqual({ guard: "reports" });
    const allowed = await get("/staff/reports/daily", { ...admin, "x-role": "reports" });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ secret: "42" });
    // The grandchild's finally runs first, inside; then the child's.
    expect(allowed.headers.get("x-finally")).toBe("reports, staff");
    const broken = await get("/staff/reports/broken", { ...admin, "x-role": "reports" });
    expect(await broken.json()).toEqual({ by: "reports", error: "the store is down" });
  });

  it("routes a guarded child under parents that have a base of their own, at any depth", async () => {
    const parent = fromIttyRouter(Router({ base: "/api" }), { base: "/api" });
    parent.route("/admin", adminRouter());
    const outer = fromIttyRouter(Router());
    outer.route("/v1", parent);
    // A router without steps of its own, holding a guarded child, mounted under a parent with a base.
    const middle = fromIttyRouter(Router());
    middle.route("/admin", adminRouter());
    const based = fromIttyRouter(Router({ base: "/api2" }), { base: "/api2" });
    based.route("/m", middle);
    outer.all("/api2/*", based);
    const served = await listenOnLoopback(
      async (request) => (await outer.fetch(request)) ?? new Response("no route", { status: 404 }),
    );
    try {
      for (const path of ["/v1/api/admin/secret", "/api2/m/admin/secret"]) {
        const refused = await fetch(`${served.origin}${path}`);
        expect(refused.status, path).toBe(401);
        const allowed = await fetch(`${served.origin}${path}`, { headers: admin });
        expect(allowed.status, path).toBe(200);
        expect(await allowed.json(), path).toEqual({ secret: "42" });
        expect(allowed.headers.get("x-finally"), path).toBe("admin");
      }
      expect(Object.keys(outer.schema.paths).sort()).toEqual([
        "/api2/m/admin/broken",
        "/api2/m/admin/secret",
        "/v1/api/admin/broken",
        "/v1/api/admin/secret",
      ]);
    } finally {
      await served.close();
    }
  });

  it("documents the mounted routes where they are served", () => {
    expect(Object.keys(document.paths).sort()).toEqual([
      "/admin/broken",
      "/admin/secret",
      "/legacy/broken",
      "/legacy/secret",
      "/open",
      "/staff/reports/broken",
      "/staff/reports/daily",
    ]);
  });
});
