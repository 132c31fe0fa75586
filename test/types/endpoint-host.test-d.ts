import type { Context } from "hono";
import { describe, expectTypeOf, it } from "vitest";
import { OpenAPIHandler, OpenAPIRoute } from "../../src";

interface Env {
  DB: { prepare(sql: string): unknown };
}

describe("an endpoint's params.router", () => {
  it("reads the bindings as chanfana apps do", () => {
    class ListTasks extends OpenAPIRoute<[Context<{ Bindings: Env }>]> {
      async handle() {
        const env = this.params.router.getBindings(this.args);
        // The router does not know the app's bindings: they read as chanfana read them.
        env.DB.prepare("SELECT 1");
        const typed: Env = this.params.router.getBindings(this.args);
        return { db: typed.DB };
      }
    }
    void ListTasks;
  });

  it("types the request, the path parameters and the db option", () => {
    class Probe extends OpenAPIRoute {
      async handle() {
        const { router } = this.params;
        expectTypeOf(router.getRequest(this.args)).toEqualTypeOf<Request>();
        expectTypeOf(router.getUrlParams(this.args)).toEqualTypeOf<Record<string, string | undefined>>();
        expectTypeOf(router.options.db).toEqualTypeOf<unknown>();
        // @ts-expect-error: the handler arguments are an array
        router.getRequest("not the arguments");
        return {};
      }
    }
    void Probe;
  });

  it("is what OpenAPIHandler names, and instanceof still narrows", () => {
    class Probe extends OpenAPIRoute {
      async handle() {
        const router: OpenAPIHandler = this.params.router;
        if (router instanceof OpenAPIHandler) expectTypeOf(router.compile).toBeFunction();
        return {};
      }
    }
    void Probe;
  });
});
