import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromHono, NotFoundException, OpenAPIRoute } from "../../src";
import { documentErrors } from "../helpers";

class GetPost extends OpenAPIRoute {
  schema = {
    request: { params: z.object({ userId: z.number().int(), postId: z.number().int() }) },
    responses: {},
  };
  async handle(c: { get(key: string): unknown }) {
    const { params } = await this.getValidatedData();
    return { ...params, seenByMiddleware: c.get("mark") ?? null };
  }
}

class Missing extends OpenAPIRoute {
  schema = { responses: {} };
  async handle(): Promise<unknown> {
    throw new NotFoundException("gone");
  }
}

describe("Hono adapter specifics", () => {
  it("answers a route whose validation and handle are synchronous with a Response, not a promise", async () => {
    class Ping extends OpenAPIRoute {
      schema = { request: { query: z.object({ n: z.number().int() }) }, responses: {} };
      handle() {
        return { pong: true };
      }
    }
    const app = new Hono();
    fromHono(app).get("/ping", Ping);
    const answer = app.fetch(new Request("http://localhost/ping?n=1"));
    expect(answer).toBeInstanceOf(Response);
    expect(await (answer as Response).json()).toEqual({ pong: true });
    // A refused request still goes through handleError and onError, asynchronously.
    const refused = await app.fetch(new Request("http://localhost/ping?n=x"));
    expect(refused.status).toBe(400);
  });

  it("delivers framework errors to onError as HTTPExceptions carrying the formatted response", async () => {
    const app = new Hono();
    const seen: unknown[] = [];
    app.onError((err, c) => {
      seen.push(err);
      return err instanceof HTTPException ? err.getResponse() : c.text("other", 500);
    });
    fromHono(app).get("/missing", Missing);
    const response = await app.request("/missing");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ success: false, errors: [{ code: 7002, message: "gone" }], result: {} });
    expect(seen[0]).toBeInstanceOf(HTTPException);
    expect((seen[0] as HTTPException).cause).toBeInstanceOf(NotFoundException);
  });

  it("answers through Hono's default error handler when the app has none", async () => {
    const app = new Hono();
    fromHono(app).get("/missing", Missing);
    expect((await app.request("/missing")).status).toBe(404);
  });

  it("keeps Hono middleware, plain routes and route() of a plain Hono app working", async () => {
    const app = new Hono<{ Variables: { mark: string } }>();
    const openapi = fromHono(app);
    openapi.use("*", async (c, next) => {
      c.set("mark", "mw");
      await next();
      c.header("x-after", "1");
    });
    const plain = new Hono().get("/ping", (c) => c.text("pong"));
    openapi.route("/plain", plain);
    openapi.get("/users/:userId/posts/:postId", GetPost);
    openapi.get("/raw", (c) => c.text("raw handler"));

    const response = await openapi.request("/users/1/posts/2");
    expect(await response.json()).toEqual({ userId: 1, postId: 2, seenByMiddleware: "mw" });
    expect(response.headers.get("x-after")).toBe("1");
    expect(await (await app.request("/plain/ping")).text()).toBe("pong");
    expect(await (await app.request("/raw")).text()).toBe("raw handler");
    expect(Object.keys(openapi.schema.paths)).toEqual(["/users/{userId}/posts/{postId}"]);
  });

  it("mounts a nested specroute router under a prefix with parameters", async () => {
    const app = new Hono();
    const openapi = fromHono(app);
    const posts = fromHono(new Hono());
    posts.get("/:postId", GetPost);
    openapi.route("/users/:userId/posts", posts);

    expect(await (await app.request("/users/5/posts/6")).json()).toMatchObject({ userId: 5, postId: 6 });
    const doc = await (await app.request("/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(["/users/{userId}/posts/{postId}"]);
    expect(await documentErrors(doc)).toBeNull();
    // The nested router's own document routes do not surface under the prefix.
    expect((await app.request("/users/5/posts/openapi.json")).status).not.toBe(200);
  });

  it("registers under basePath() and documents the full path", async () => {
    const app = new Hono();
    const v1 = fromHono(app).basePath("/v1");
    v1.get("/users/:userId/posts/:postId", GetPost);
    expect((await app.request("/v1/users/1/posts/2")).status).toBe(200);
    expect(Object.keys(v1.schema.paths)).toEqual(["/v1/users/{userId}/posts/{postId}"]);
  });

  it("documents Hono regex parameters as plain path parameters", async () => {
    const app = new Hono();
    const openapi = fromHono(app);
    openapi.get("/users/:userId{[0-9]+}/posts/:postId", GetPost);
    expect(Object.keys(openapi.schema.paths)).toEqual(["/users/{userId}/posts/{postId}"]);
    expect((await app.request("/users/abc/posts/1")).status).toBe(404);
  });
});
