import Database from "better-sqlite3";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, fromHono, InputValidationException, SqlCreateEndpoint } from "../../src";
import { listenOnLoopback } from "../helpers";

// A stored endpoint's `constraintsMessages` answers a UNIQUE
// violation with "a fresh copy" of the configured exception (docs/security.md, "Where a stored endpoint's
// database comes from"). The copy of an InputValidationException is rebuilt as a plain
// InputValidationException (src/errors/exceptions.ts `freshException`), so an app's subclass loses its
// own status and code on the wire, while the document (`uniqueConflicts`) lists the subclass's status.

class SlugTaken extends InputValidationException {
  status = 422;
  code = 9001;
}

describe("constraintsMessages: an app's own InputValidationException subclass", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it("answers a duplicate with the subclass's status and code, as the document lists", async () => {
    const sqlite = new Database(":memory:");
    sqlite.exec("CREATE TABLE posts (id INTEGER PRIMARY KEY AUTOINCREMENT, slug TEXT NOT NULL UNIQUE)");
    const Post = z.object({ id: z.number().int(), slug: z.string() });
    class CreatePost extends SqlCreateEndpoint {
      _meta = {
        model: { tableName: "posts", schema: Post, primaryKeys: ["id"], unique: ["slug"] },
        fields: Post.omit({ id: true }),
      };
      constraintsMessages = { "posts.slug": new SlugTaken("This slug is taken") };
    }
    const app = new Hono();
    fromHono(app, { db: betterSqlite3Driver(sqlite) }).post("/posts", CreatePost);
    const server = await listenOnLoopback(app.fetch);
    servers.push(server);

    const doc = await (await fetch(`${server.origin}/openapi.json`)).json();
    expect(Object.keys(doc.paths["/posts"].post.responses)).toContain("422");

    const post = () =>
      fetch(`${server.origin}/posts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ slug: "hello" }),
      });
    expect((await post()).status).toBe(201);
    const duplicate = await post();
    const body = await duplicate.json();
    expect({ status: duplicate.status, code: body.errors[0].code, message: body.errors[0].message }).toEqual({
      status: 422,
      code: 9001,
      message: "This slug is taken",
    });
  });
});
