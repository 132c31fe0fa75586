// Every type chanfana 3 exports from its root, imported from specroute's root with chanfana's meaning.
// test/surface/chanfana-exports.test.ts checks this import list covers the fixture's type names.
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type AnyZodObject,
  contentJson,
  type Except,
  type FilterCondition,
  type Filters,
  fromHono,
  fromIttyRouter,
  type HonoOpenAPIHandler,
  type HonoOpenAPIRouterType,
  type HttpMethod,
  type IsEqual,
  type IttyRouterOpenAPIHandler,
  type IttyRouterOpenAPIRouterType,
  type ListFilters,
  type ListResult,
  type Logger,
  type Meta,
  type MetaInput,
  type Model,
  type ModelComplete,
  type O,
  type OpenAPIHandler,
  type OpenAPIObjectConfig,
  type OpenAPIObjectConfigV31,
  OpenAPIRoute,
  type OpenAPIRouterType,
  type OpenAPIRouteSchema,
  type OrderByDirection,
  type RequestTypes,
  type ResponseConfig,
  type RouteOptions,
  type RouteParameter,
  type RouterOptions,
  type SafeFilters,
  type SerializerContext,
  type SetOptional,
  type SetRequired,
  type Simplify,
  type UpdatedData,
  type UpdateFilters,
  type ValidatedData,
  type ZodContentObject,
  type ZodMediaType,
  type ZodRequestBody,
} from "../../src";

describe("chanfana's utility types", () => {
  it("Simplify, IsEqual, Except, SetOptional, SetRequired", () => {
    type Task = { id: number; title: string; done?: boolean };
    expectTypeOf<Simplify<{ a: 1 } & { b: 2 }>>().toEqualTypeOf<{ a: 1; b: 2 }>();
    expectTypeOf<IsEqual<string, string>>().toEqualTypeOf<true>();
    expectTypeOf<IsEqual<string, any>>().toEqualTypeOf<false>();
    expectTypeOf<Except<Task, "id">>().toEqualTypeOf<{ title: string; done?: boolean }>();
    expectTypeOf<SetOptional<Task, "title">>().toEqualTypeOf<{ id: number; title?: string; done?: boolean }>();
    expectTypeOf<SetRequired<Task, "done">>().toEqualTypeOf<{ id: number; title: string; done: boolean }>();
    // @ts-expect-error: with requireExactProps a removed key may not be given
    const exact: Except<Task, "id", { requireExactProps: true }> = { id: 1, title: "t" };
    void exact;
  });
});

describe("chanfana's schema types", () => {
  it("describe what an endpoint's schema accepts", () => {
    const body: ZodRequestBody = { description: "A task", ...contentJson(z.object({ title: z.string() })) };
    const content: ZodContentObject = { "application/xml": { schema: z.string() } };
    const media: ZodMediaType = "application/vnd.api+json";
    const query: AnyZodObject = z.object({ page: z.number() });
    const request: RequestTypes = { body, query };
    const parameter: RouteParameter = query.transform((value) => value);
    const response: ResponseConfig = { description: "OK", content };
    const schema: OpenAPIRouteSchema = { request, responses: { "200": response } };
    void [media, parameter, schema];
    const page = z.object({ page: z.number() });
    expectTypeOf<ValidatedData<{ request: { query: typeof page } }>["query"]>().toEqualTypeOf<{ page: number }>();
  });

  it("OpenAPIObjectConfig is the router's document-level schema", () => {
    const config: OpenAPIObjectConfig = { openapi: "3.0.3", info: { title: "Tasks", version: "1.0.0" } };
    const v31: Partial<OpenAPIObjectConfigV31> = { info: { title: "Tasks", version: "2.0.0" } };
    const options: RouterOptions = { schema: config };
    fromHono(new Hono(), options);
    fromIttyRouter(AutoRouter(), { schema: v31 });
    // @ts-expect-error: info.title is required
    const missing: OpenAPIObjectConfig = { openapi: "3.1.0", info: { version: "1" } };
    void missing;
  });
});

describe("chanfana's router types", () => {
  it("name the wrappers and their cores", () => {
    const hono: HonoOpenAPIRouterType = fromHono(new Hono());
    const itty: IttyRouterOpenAPIRouterType<ReturnType<typeof AutoRouter>> = fromIttyRouter(AutoRouter());
    const common: OpenAPIRouterType<Hono> = hono;
    expectTypeOf(common.registry.registerComponent("securitySchemes", "b", {}).name).toEqualTypeOf<string>();
    expectTypeOf(itty.registry).toEqualTypeOf(hono.registry);
    const method: HttpMethod = "patch";
    // @ts-expect-error: not a documented method
    const other: HttpMethod = "options";
    void [method, other];

    class Probe extends OpenAPIRoute {
      async handle() {
        const router: OpenAPIHandler = this.params.router;
        return { documented: router.routes.length };
      }
    }
    void Probe;
    expectTypeOf<HonoOpenAPIHandler>().toMatchTypeOf<OpenAPIHandler>();
    expectTypeOf<IttyRouterOpenAPIHandler>().toMatchTypeOf<OpenAPIHandler>();
    expectTypeOf<RouteOptions["raiseUnknownParameters"]>().toEqualTypeOf<boolean>();
  });
});

describe("chanfana's CRUD types", () => {
  it("are exported", () => {
    expectTypeOf<Filters>().not.toBeAny();
    expectTypeOf<FilterCondition>().not.toBeAny();
    expectTypeOf<ListFilters>().not.toBeAny();
    expectTypeOf<UpdateFilters>().not.toBeAny();
    expectTypeOf<ListResult<unknown>>().not.toBeAny();
    expectTypeOf<Meta>().not.toBeAny();
    expectTypeOf<MetaInput>().not.toBeAny();
    expectTypeOf<Model>().not.toBeAny();
    expectTypeOf<O<Meta>>().not.toBeAny();
    expectTypeOf<SerializerContext>().not.toBeAny();
    expectTypeOf<ModelComplete>().not.toBeAny();
    expectTypeOf<UpdatedData>().toEqualTypeOf<{ updatedData: Record<string, any> }>();
    expectTypeOf<OrderByDirection>().toEqualTypeOf<"asc" | "desc">();
    expectTypeOf<SafeFilters["conditions"]>().toEqualTypeOf<string[]>();
    expectTypeOf<Logger["warn"]>().toBeFunction();
  });
});
