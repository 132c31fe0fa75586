import { Router } from "itty-router";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromIttyRouter, OpenAPIRoute } from "../../src";
import { documentErrors } from "../helpers";

class GetPost extends OpenAPIRoute {
  schema = {
    request: { params: z.object({ userId: z.number().int(), postId: z.number().int() }) },
    responses: {},
  };
  async handle(request: Request, env: { tag?: string } | undefined) {
    const { params } = await this.getValidatedData();
    return { ...params, url: new URL(request.url).pathname, tag: env?.tag ?? null };
  }
}

const fetchFrom = async (router: { fetch: (r: Request, ...a: any[]) => Promise<any> }, path: string, env?: object) =>
  ((await router.fetch(new Request(`http://localhost${path}`), env)) as Response | undefined) ??
  new Response(null, { status: 404 });

describe("itty-router adapter specifics", () => {
  it("passes the request and the environment to handle()", async () => {
    const router = fromIttyRouter(Router());
    router.get("/users/:userId/posts/:postId", GetPost);
    const response = await fetchFrom(router, "/users/1/posts/2", { tag: "env" });
    expect(await response.json()).toEqual({ userId: 1, postId: 2, url: "/users/1/posts/2", tag: "env" });
  });

  it("mounts a nested router's endpoints under a prefix with route()", async () => {
    const router = fromIttyRouter(Router());
    const posts = fromIttyRouter(Router());
    posts.get("/:postId", GetPost);
    router.route("/users/:userId/posts", posts);
    expect(await (await fetchFrom(router, "/users/3/posts/4")).json()).toMatchObject({ userId: 3, postId: 4 });
    const doc = router.schema;
    expect(Object.keys(doc.paths)).toEqual(["/users/{userId}/posts/{postId}"]);
    expect(await documentErrors(doc)).toBeNull();
  });

  it("mounts a chanfana-style nested router that carries its own base with all()", async () => {
    const router = fromIttyRouter(Router());
    const nested = fromIttyRouter(Router({ base: "/api" }), { base: "/api" });
    nested.get("/users/:userId/posts/:postId", GetPost);
    router.all("/api/*", nested);
    expect((await fetchFrom(router, "/api/users/1/posts/2")).status).toBe(200);
    expect(Object.keys(router.schema.paths)).toEqual(["/api/users/{userId}/posts/{postId}"]);
    expect((await fetchFrom(router, "/api/openapi.json")).status).toBe(404);
  });
});
