import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type Filters, fromHono, ListEndpoint, ReadEndpoint } from "../../src";

const Post = z.object({ userId: z.number().int(), postId: z.number().int(), title: z.string() });
const model = { tableName: "posts", schema: Post, primaryKeys: ["userId", "postId"] };

class ReadPost extends ReadEndpoint {
  _meta = { model };
  async fetch(filters: Filters) {
    return { userId: filters.filters[0]!.value, postId: filters.filters[1]!.value, title: "t" };
  }
}

class ReadPostWithPath extends ReadPost {
  _meta = { model, pathParameters: ["userId", "postId"], tags: ["meta-tag"] };
}

describe("primary keys and nested routes", () => {
  it("refuses a nested route whose own segment lacks the primary keys, with the spec's message", () => {
    const posts = fromHono(new Hono());
    expect(() => posts.get("/:postId", ReadPost)).toThrow(
      'Model primaryKeys differ from urlParameters on: /{postId}: ["userId","postId"] !== ["postId"]',
    );
  });

  it("accepts it when pathParameters names the merged path's keys, and reads by both", async () => {
    const app = new Hono();
    const posts = fromHono(new Hono());
    posts.get("/:postId", ReadPostWithPath);
    fromHono(app).route("/users/:userId/posts", posts);
    const response = await app.request("/users/3/posts/4");
    expect(await response.json()).toEqual({ success: true, result: { userId: 3, postId: 4, title: "t" } });
  });

  it("accepts a flat route with every key in the path", () => {
    expect(() => fromHono(new Hono()).get("/users/:userId/posts/:postId", ReadPost)).not.toThrow();
  });
});

describe("schema derived from Meta, merged with the user's schema", () => {
  it("lets the user's tags, summary and extra responses win over the Meta's", () => {
    class Tagged extends ReadPostWithPath {
      schema = {
        tags: ["user-tag"],
        summary: "Read a post",
        responses: { "418": { description: "Teapot" } },
      };
    }
    const openapi = fromHono(new Hono());
    openapi.get("/users/:userId/posts/:postId", Tagged);
    openapi.get("/u/:userId/p/:postId", ReadPostWithPath);
    const paths = openapi.schema.paths as any;
    const op = paths["/users/{userId}/posts/{postId}"].get;
    expect(op.tags).toEqual(["user-tag"]);
    expect(op.summary).toBe("Read a post");
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "404", "418"]);
    expect(paths["/u/{userId}/p/{postId}"].get.tags).toEqual(["meta-tag"]);
  });

  it("refuses list configuration naming fields the model does not have", () => {
    class BadList extends ListEndpoint {
      _meta = { model };
      filterFields = ["nope"];
      async list() {
        return { result: [] };
      }
    }
    expect(() => fromHono(new Hono()).get("/posts", BadList)).toThrow(
      'filterFields: "nope" is not a field of the model',
    );
  });

  it("refuses list option names that collide with a filter", () => {
    class Colliding extends ListEndpoint {
      _meta = { model: { ...model, schema: Post.extend({ page: z.number() }) } };
      filterFields = ["page"];
      async list() {
        return { result: [] };
      }
    }
    expect(() => fromHono(new Hono()).get("/posts", Colliding)).toThrow(/"page" is declared twice/);
  });
});
