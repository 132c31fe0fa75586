import { connect } from "node:net";
import { Hono } from "hono";
import { Router } from "itty-router";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, fromIttyRouter, OpenAPIRoute } from "../../src";
import { nodeRequestOf } from "../../src/adapters/node-request";
import { listenOnLoopback } from "../helpers";

// Under @hono/node-server specroute reads headers and bodies from the Node request the server passes in
// the environment; only when the Request the app gets is the server's own for it.

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function listen(fetch: (request: Request, env: any) => Response | Promise<Response>): Promise<string> {
  const server = await listenOnLoopback(fetch);
  servers.push(server);
  return server.origin;
}

class Echo extends OpenAPIRoute {
  schema = {
    request: {
      headers: z.object({ "x-tenant": z.string() }),
      body: contentJson(z.object({ title: z.string() })),
    },
    responses: {},
  };
  async handle() {
    const { headers, body } = await this.getValidatedData();
    return { tenant: headers["x-tenant"], title: body.title };
  }
}

const send = (origin: string, tenant: string, title: string) =>
  fetch(`${origin}/echo`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant": tenant },
    body: JSON.stringify({ title }),
  });

describe("the Node request under @hono/node-server's own Request", () => {
  it("is found for the server's request, and not for a Request the app built", async () => {
    const seen: Array<[string, boolean]> = [];
    const app = new Hono();
    app.post("/probe", (c) => {
      seen.push([c.req.header("x-kind")!, nodeRequestOf(c.env, c.req.raw) !== undefined]);
      return c.text("ok");
    });
    const origin = await listen((request, env) =>
      request.headers.get("x-kind") === "rebuilt" ? app.fetch(new Request(request), env) : app.fetch(request, env),
    );
    for (const kind of ["own", "rebuilt"]) {
      await fetch(`${origin}/probe`, { method: "POST", headers: { "x-kind": kind }, body: "x" });
    }
    expect(seen).toEqual([
      ["own", true],
      ["rebuilt", false],
    ]);
  });

  for (const adapter of ["hono", "itty-router"] as const) {
    it(`${adapter}: validates the headers and body of the Request the app hands on, not the client's`, async () => {
      const handle = (() => {
        if (adapter === "hono") {
          const app = new Hono();
          fromHono(app).post("/echo", Echo);
          return (request: Request, env: unknown) => app.fetch(request, env as any);
        }
        const router = fromIttyRouter(Router());
        router.post("/echo", Echo);
        return (request: Request, env: unknown) => router.fetch(request, env);
      })();
      // A front that sanitises what the client claims, keeping the server's environment.
      const origin = await listen(async (request, env) => {
        const headers = new Headers(request.headers);
        headers.set("x-tenant", "assigned-by-front");
        const body = JSON.stringify({ title: `${(await request.json()).title} (checked)` });
        headers.set("content-length", String(new TextEncoder().encode(body).byteLength));
        return handle(new Request(request.url, { method: request.method, headers, body }), env);
      });
      const response = await send(origin, "claimed-by-client", "hello");
      expect(await response.json()).toEqual({ tenant: "assigned-by-front", title: "hello (checked)" });
      // Served directly, the same route reads the client's own request.
      const direct = await listen(handle);
      expect(await (await send(direct, "client", "hi")).json()).toEqual({ tenant: "client", title: "hi" });
    });
  }
});

/** Every header, through a schema that names none. */
class AllHeaders extends OpenAPIRoute {
  schema = { request: { headers: z.record(z.string(), z.string()) }, responses: {} };
  async handle() {
    return (await this.getValidatedData()).headers;
  }
}

/** One raw request, written as a client may write it (a header fetch would not send as sent), and its answer. */
function rawGet(origin: string, path: string, headerLines: string[]): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headerLines.join("\r\n")}\r\n\r\n`),
    );
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("end", () =>
      resolve({ status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) }),
    );
  });
}

describe("a header named __proto__ on the Node request", () => {
  it("is no header: a schema that reads every header still answers 200, without it", async () => {
    const app = new Hono();
    fromHono(app).get("/all", AllHeaders);
    const origin = await listen((request, env) => app.fetch(request, env));
    const answer = await rawGet(origin, "/all", ["__proto__: x", "X-Kept: 1"]);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"x-kept":"1"');
    expect(answer.body).not.toContain("__proto__");
  });
});
