import net from "node:net";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, OpenAPIRoute } from "../../src";
import { captureConsoleErrors, harnesses, listenOnLoopback } from "../helpers";

// A client that stops sending its body part-way and closes its side of the connection: a declared
// Content-Length it never reaches, or a chunked body it never ends. That is the client's doing, so the
// route answers 400 naming the body and the app's error handler (its 500, its log) never hears of it.

const logged = captureConsoleErrors();
const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

class CreateNote extends OpenAPIRoute {
  schema = {
    request: { body: contentJson(z.object({ title: z.string() })) },
    responses: { "200": { description: "The note", ...contentJson(z.object({ title: z.string() })) } },
  };
  async handle() {
    return (await this.getValidatedData<typeof this.schema>()).body;
  }
}

/** What the server answers a request whose head is `head` and whose body stops after `part`, the client's side then closed. */
function cutOff(port: number, head: string, part: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(`${head}\r\n\r\n${part}`);
      // After the server has begun reading the body: then the rest never comes.
      setTimeout(() => socket.end(), 100);
    });
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    setTimeout(() => socket.destroy(), 5000);
  });
}

for (const harness of harnesses) {
  describe(`a body cut off part-way, over HTTP: ${harness.name}`, () => {
    it.each([
      ["short of its Content-Length", "Content-Length: 100", '{"title":'],
      ["chunked, never ended", "Transfer-Encoding: chunked", '9\r\n{"title":\r\n'],
    ])("is answered 400, never the app's 500 or a log line, when it is %s", async (_, framing, part) => {
      const app = harness.make();
      app.router.post("/notes", CreateNote);
      const server = await listenOnLoopback((request, env) => app.serveWith(request, env) as Response);
      servers.push(server);
      const { port } = new URL(server.origin);
      const answer = await cutOff(
        Number(port),
        `POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}`,
        part,
      );
      // Node's server answers a request cut off so itself (400, Connection: close); the app's answer is never sent.
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      // What reaches the router's error handler is the 400 (Hono's adapter raises it as an HTTPException), never an unknown error.
      for (const error of app.caught) expect(error).toMatchObject({ status: 400 });
      expect(logged).toEqual([]);
    });
  });
}

describe("a body cut off part-way, over HTTP: hono, after a middleware read it", () => {
  it("is answered 400 as without the middleware, never the app's 500", async () => {
    const caught: unknown[] = [];
    const app = new Hono();
    // An audit log that reads the body and goes on whatever it finds.
    app.use(async (c, next) => {
      await c.req.json().catch(() => null);
      await next();
    });
    app.onError((error, c) => {
      caught.push(error);
      return c.text("onError", 500);
    });
    fromHono(app).post("/notes", CreateNote);
    const server = await listenOnLoopback((request, env) => app.fetch(request, env));
    servers.push(server);
    const { port } = new URL(server.origin);
    for (const [framing, part] of [
      ["Content-Length: 100", '{"title":'],
      ["Transfer-Encoding: chunked", '9\r\n{"title":\r\n'],
    ] as const) {
      await cutOff(
        Number(port),
        `POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}`,
        part,
      );
    }
    expect(caught).toHaveLength(2);
    for (const error of caught) expect(error).toMatchObject({ status: 400 });
    expect(logged).toEqual([]);
  });
});

describe("a body whose read fails for the app's own code", () => {
  it("is the app's 500, its error logged, never a 400 blaming the connection", async () => {
    const caught: unknown[] = [];
    const app = new Hono();
    // A middleware whose transform of the body has a bug.
    app.use(async (c, next) => {
      const broken = new TransformStream<Uint8Array, Uint8Array>({
        transform() {
          throw new TypeError("the transform's own bug");
        },
      });
      c.req.raw = new Request(c.req.raw, { body: c.req.raw.body!.pipeThrough(broken), duplex: "half" } as RequestInit);
      await next();
    });
    app.onError((error, c) => {
      caught.push(error);
      return c.text("onError", 500);
    });
    fromHono(app).post("/notes", CreateNote);
    const server = await listenOnLoopback((request, env) => app.fetch(request, env));
    servers.push(server);
    const answer = await fetch(`${server.origin}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "a" }),
    });
    expect(answer.status).toBe(500);
    expect(caught).toHaveLength(1);
    expect(String(caught[0])).toContain("the transform's own bug");
  });
});
