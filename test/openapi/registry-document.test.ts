import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bearerAuth, contentJson, OpenAPIRoute } from "../../src";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";
import { danglingRefs, redoclyErrors, validateDocument } from "./helpers";

// The whole registry, as zod-to-openapi's OpenAPIRegistry has it: named schemas, parameters, paths
// served by plain handlers, and webhooks, in both document versions.
afterAll(closeHttpHarnesses);

const Task = z.object({ id: z.number().int(), title: z.string() });

class ReadTask extends OpenAPIRoute {
  schema = {
    auth: bearerAuth({ verify: () => ({ id: 1 }) }),
    request: { params: z.object({ id: z.number().int() }) },
    responses: { "200": { description: "The task", ...contentJson(Task) } },
  };
  async handle() {
    return { id: 1, title: "t" };
  }
}

for (const harness of httpHarnesses) {
  describe(`the router's registry in the document: ${harness.name}`, () => {
    const make = () => {
      const app = harness.make();
      const { registry } = app.router;
      const Named = registry.register("Task", Task);
      registry.register("Unused", z.object({ note: z.string() }));
      registry.registerParameter(
        "Tenant",
        z.string().openapi({ param: { name: "x-tenant", in: "header" }, description: "The tenant" }),
      );
      registry.registerPath({
        method: "get",
        path: "/health/:probe",
        summary: "Health of a probe, served by a plain handler",
        request: { params: z.object({ probe: z.string() }) },
        responses: { "200": { description: "Up", ...contentJson(z.object({ up: z.boolean() })) } },
      });
      registry.registerWebhook({
        method: "post",
        path: "taskDone",
        request: { body: contentJson(Named) },
        responses: { "200": { description: "Received" } },
      });
      app.router.get("/tasks/:id", ReadTask);
      return app;
    };

    it("lists named schemas, parameters, paths and webhooks it was given (3.1), valid and linted", async () => {
      const app = make();
      const response = await app.request("/openapi.json");
      expect(response.status).toBe(200);
      const doc = await response.json();
      expect(doc.components.schemas.Task).toMatchObject({ type: "object", required: ["id", "title"] });
      expect(doc.components.schemas.Unused).toMatchObject({ properties: { note: { type: "string" } } });
      expect(doc.components.parameters.Tenant).toEqual({
        name: "x-tenant",
        in: "header",
        required: true,
        description: "The tenant",
        schema: { type: "string" },
      });
      const health = doc.paths["/health/{probe}"].get;
      expect(health.parameters).toEqual([{ name: "probe", in: "path", required: true, schema: { type: "string" } }]);
      // Served by a plain handler: no answers of specroute's own, and no claim that it is public.
      expect(Object.keys(health.responses)).toEqual(["200"]);
      expect(health).not.toHaveProperty("security");
      expect(doc.paths["/tasks/{id}"].get.responses["200"].content["application/json"].schema).toMatchObject({
        type: "object",
      });
      expect(doc.webhooks.taskDone.post.requestBody.content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/Task",
      });
      expect((await validateDocument(doc)).errors ?? null).toBeNull();
      expect(danglingRefs(doc)).toEqual([]);
      expect(await redoclyErrors(doc)).toEqual([]);
    });

    it("writes a valid 3.0 document, which has no place for webhooks", async () => {
      const doc = make().router.getGeneratedSchema("3");
      expect(doc.openapi).toBe("3.0.3");
      expect(doc).not.toHaveProperty("webhooks");
      expect(doc.paths["/health/{probe}"].get.summary).toContain("plain handler");
      expect(doc.components.parameters.Tenant.in).toBe("header");
      expect((await validateDocument(doc)).errors ?? null).toBeNull();
    });

    it("refuses a parameter without a name and location, naming it, when the document is built", () => {
      const app = harness.make();
      app.router.registry.registerParameter("Bare", z.string());
      expect(() => app.router.getGeneratedSchema()).toThrow(/registerParameter\("Bare"\)/);
    });

    it("merges a nested router's registrations into its parent's, paths under the given base", () => {
      const parent = harness.make();
      const nested = harness.nested();
      nested.registry.registerPath({ method: "get", path: "/ping", responses: { "200": { description: "Pong" } } });
      nested.registry.register("Inner", z.object({ a: z.string() }));
      parent.router.registry.merge(nested.registry, "/inner");
      const doc = parent.router.getGeneratedSchema();
      expect(doc.paths["/inner/ping"].get.responses["200"].description).toBe("Pong");
      expect(doc.components.schemas.Inner).toBeDefined();
    });
  });
}
