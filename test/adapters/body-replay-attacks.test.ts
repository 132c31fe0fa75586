import net from "node:net";
import { Hono } from "hono";
import { AutoRouter, Router } from "itty-router";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  contentForm,
  contentJson,
  contentMultipart,
  fileField,
  fromHono,
  fromIttyRouter,
  OpenAPIRoute,
} from "../../src";
import { closeHttpHarnesses, httpHarnesses, jsonBody, listenOnLoopback } from "../helpers";

// Attacks on the request a handler is given to read the body again (core/request/body.ts's replay), over
// real HTTP: what a hostile client can make it answer, and what an app author copying the docs meets.
afterAll(closeHttpHarnesses);

/** The handler's own request: Hono's `c.req.raw`, itty-router's first argument. */
function ownRequest(args: unknown[]): Request {
  const first = args[0] as { req?: { raw: Request } };
  return first.req ? first.req.raw : (first as Request);
}

/** A raw HTTP/1.1 exchange, for what fetch will not send (a GET with a body, a body shorter than its Content-Length). */
function rawRequest(origin: string, head: string, body: Buffer | string): Promise<{ status: number; text: string }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      socket.write(head);
      socket.end(body);
    });
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, text: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
  });
}

describe.each(httpHarnesses)("the replayed request, attacked on $name over HTTP", (harness) => {
  it("keeps the original's headers, URL, method and signal, and answers bodyUsed false after every read", async () => {
    class Probe extends OpenAPIRoute {
      schema = { request: { body: contentJson(z.object({ a: z.number() })) }, responses: {} };
      async handle(...args: unknown[]) {
        await this.getValidatedData();
        const request = ownRequest(args);
        const first = await request.text();
        const stream1 = request.body;
        const stream2 = request.body;
        const again = await new Response(stream1).text();
        const used = request.bodyUsed;
        return {
          first,
          again,
          twice: await new Response(stream2).text(),
          used,
          bytes: new TextDecoder().decode(await request.bytes()),
          header: request.headers.get("x-probe"),
          url: new URL(request.url).pathname + new URL(request.url).search,
          method: request.method,
          signal: request.signal instanceof AbortSignal,
          isRequest: request instanceof Request,
          cloneOfClone: await request.clone().clone().text(),
        };
      }
    }
    const { router, request } = harness.make();
    router.post("/probe", Probe);
    const response = await request("/probe?x=1", jsonBody({ a: 1 }, { headers: { "x-probe": "yes" } }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      first: '{"a":1}',
      again: '{"a":1}',
      twice: '{"a":1}',
      used: false,
      bytes: '{"a":1}',
      header: "yes",
      url: "/probe?x=1",
      method: "POST",
      signal: true,
      isRequest: true,
      cloneOfClone: '{"a":1}',
    });
  });

  it("forwards as the docs say: new Request(url, request) and clone() carry the body that was validated", async () => {
    class Forward extends OpenAPIRoute {
      schema = { request: { body: contentJson(z.object({ a: z.number() })) }, responses: {} };
      async handle(...args: unknown[]) {
        await this.getValidatedData();
        const request = ownRequest(args);
        return {
          init: await new Request("http://upstream.test/x", request).text(),
          clone: await new Request(request.clone()).text(),
          headers: new Request(request.clone()).headers.get("x-probe"),
        };
      }
    }
    const { router, request } = harness.make();
    router.post("/forward", Forward);
    const response = await request("/forward", jsonBody({ a: 2 }, { headers: { "x-probe": "kept" } }));
    expect(await response.json()).toEqual({ init: '{"a":2}', clone: '{"a":2}', headers: "kept" });
  });

  it("multipart names and file names with quotes and line breaks: validated, formData() and clone().formData() agree with the platform's reader", async () => {
    class Upload extends OpenAPIRoute {
      schema = {
        request: { body: contentMultipart(z.object({ 'ti"t\r\nle': z.string(), file: fileField({ maxSize: 64 }) })) },
        responses: {},
      };
      async handle(...args: unknown[]) {
        const { body } = await this.getValidatedData();
        const request = ownRequest(args);
        const names = async (form: FormData) => [[...form.keys()], (form.get("file") as File).name];
        return {
          validated: [Object.keys(body), body.file.name, await body.file.text()],
          form: await names(await request.formData()),
          cloned: await names(await request.clone().formData()),
        };
      }
    }
    const { router, request } = harness.make();
    router.post("/upload", Upload);
    const form = new FormData();
    form.append('ti"t\r\nle', "value");
    form.append("file", new File(["data"], 'we"ird\r\nname.txt', { type: "text/plain" }));
    form.append("extra", new File(["dropped"], "x.bin"));
    // The sender writes `"`, CR and LF in names as %22, %0D and %0A (HTML's encoding); the platform's reader undoes it.
    const platform = await new Request("http://127.0.0.1/", { method: "POST", body: form }).formData();
    expect((platform.get("file") as File).name).toBe('we"ird\r\nname.txt');
    const response = await request("/upload", { method: "POST", body: form });
    expect(response.status).toBe(200);
    const seen = await response.json();
    expect(seen.validated).toEqual([['ti"t\r\nle', "file"], 'we"ird\r\nname.txt', "data"]);
    expect(seen.form).toEqual([['ti"t\r\nle', "file"], 'we"ird\r\nname.txt']);
    expect(seen.cloned).toEqual(seen.form);
  });

  it("refuses __proto__ in JSON, a form and multipart with a 400", async () => {
    class Anything extends OpenAPIRoute {
      schema = {
        request: {
          body: {
            content: {
              ...contentJson(z.object({ a: z.string().optional() })).content,
              ...contentForm(z.object({ a: z.string().optional() })).content,
              ...contentMultipart(z.object({ a: z.string().optional() })).content,
            },
          },
        },
        responses: {},
      };
      async handle() {
        return { ok: true, data: await this.getValidatedData() };
      }
    }
    const { router, request } = harness.make();
    router.post("/any", Anything);
    const json = await request("/any", jsonBody('{"a":"x","__proto__":{"admin":true}}'));
    const escaped = await request("/any", jsonBody('{"a":"x","\\u005f_proto__":{"admin":true}}'));
    const form = await request("/any", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=x&__proto__=y",
    });
    const encodedForm = await request("/any", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=x&%5F%5Fproto%5F%5F=y",
    });
    const multi = new FormData();
    multi.append("__proto__", "y");
    const multipart = await request("/any", { method: "POST", body: multi });
    expect([json.status, escaped.status, form.status, encodedForm.status, multipart.status]).toEqual([
      400, 400, 400, 400, 400,
    ]);
  });

  it("an empty multipart body, and one with only the closing delimiter, read as no body", async () => {
    class Optional extends OpenAPIRoute {
      schema = { request: { body: contentMultipart(z.object({ a: z.string().optional() })) }, responses: {} };
      async handle(...args: unknown[]) {
        await this.getValidatedData();
        return { text: await ownRequest(args).text(), keys: [...(await ownRequest(args).formData()).keys()] };
      }
    }
    const { router, request } = harness.make();
    router.post("/opt", Optional);
    const headers = { "content-type": "multipart/form-data; boundary=b" };
    const closing = await request("/opt", { method: "POST", headers, body: "--b--\r\n" });
    expect(closing.status).toBe(200);
    expect(await closing.json()).toEqual({ text: "--b--\r\n", keys: [] });
  });

  it("a body over the limit, chunked without a Content-Length, is a 413 before the handler", async () => {
    let ran = false;
    class Small extends OpenAPIRoute {
      schema = { request: { body: contentJson(z.object({ a: z.string() })) }, responses: {} };
      async handle() {
        ran = true;
        return {};
      }
    }
    const { router, request } = harness.make({ maxBodySize: 100 } as any);
    router.post("/small", Small);
    const big = JSON.stringify({ a: "x".repeat(500) });
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < big.length; i += 50) controller.enqueue(new TextEncoder().encode(big.slice(i, i + 50)));
        controller.close();
      },
    });
    const streamed = await request("/small", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    const declared = await request("/small", jsonBody({ a: "x".repeat(500) }));
    const multi = new FormData();
    multi.append("a", "x".repeat(500));
    const multipart = await request("/small", { method: "POST", body: multi });
    expect([streamed.status, declared.status, multipart.status]).toEqual([413, 413, 415]);
    expect(ran).toBe(false);
  });
});

describe("a Hono middleware that read the body before the endpoint (over HTTP)", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  class Title extends OpenAPIRoute {
    schema = { request: { body: contentJson(z.object({ title: z.string() })) }, responses: {} };
    async handle(c: any) {
      const { body } = await this.getValidatedData();
      return { validated: body.title, json: (await c.req.json()).title, raw: await c.req.raw.text() };
    }
  }

  for (const how of ["c.req.json", "c.req.text", "c.req.arrayBuffer", "c.req.raw.clone"] as const) {
    it(`${how} in a middleware, then the endpoint validates and reads the same body`, async () => {
      const app = new Hono();
      app.use(async (c, next) => {
        if (how === "c.req.json") await c.req.json();
        if (how === "c.req.text") await c.req.text();
        if (how === "c.req.arrayBuffer") await c.req.arrayBuffer();
        if (how === "c.req.raw.clone") await c.req.raw.clone().text();
        await next();
      });
      fromHono(app).post("/t", Title);
      const server = await listenOnLoopback((request, env) => app.fetch(request, env));
      servers.push(server);
      const response = await fetch(`${server.origin}/t`, jsonBody({ title: "same" }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ validated: "same", json: "same", raw: '{"title":"same"}' });
    });
  }

  it("c.req.parseBody() of a multipart upload in a middleware: the endpoint's limits still hold, names as sent", async () => {
    class Up extends OpenAPIRoute {
      schema = { request: { body: contentMultipart(z.object({ file: fileField({ maxSize: 10 }) })) }, responses: {} };
      async handle(c: any) {
        const { body } = await this.getValidatedData();
        const parsed = await c.req.parseBody();
        return { validated: body.file.name, parsed: (parsed.file as File).name, size: body.file.size };
      }
    }
    const app = new Hono();
    app.use(async (c, next) => {
      await c.req.parseBody();
      await next();
    });
    fromHono(app).post("/up", Up);
    const server = await listenOnLoopback((request, env) => app.fetch(request, env));
    servers.push(server);
    const send = (content: string) => {
      const form = new FormData();
      form.append("file", new File([content], 'a"b.bin'));
      return fetch(`${server.origin}/up`, { method: "POST", body: form });
    };
    expect((await send("x".repeat(11))).status).toBe(413);
    const ok = await send("x".repeat(10));
    expect(await ok.json()).toEqual({ validated: 'a"b.bin', parsed: 'a"b.bin', size: 10 });
  });

  it("c.req.raw.text() in a middleware (the body consumed, no cache): a 500, not a hang", async () => {
    const app = new Hono();
    app.use(async (c, next) => {
      await c.req.raw.text();
      await next();
    });
    fromHono(app).post("/t", Title);
    const server = await listenOnLoopback((request, env) => app.fetch(request, env));
    servers.push(server);
    const response = await fetch(`${server.origin}/t`, {
      ...jsonBody({ title: "same" }),
      signal: AbortSignal.timeout(3000),
    });
    // The app consumed the body behind Hono's back: specroute cannot read it, and says so as a 500 (logged).
    expect(response.status).toBe(500);
  });

  it("a GET with a body over raw HTTP is answered, its body not read as the route's", async () => {
    class Get extends OpenAPIRoute {
      schema = {
        request: { query: z.object({ q: z.string() }), body: contentJson(z.object({ x: z.string() })) },
        responses: {},
      };
      async handle() {
        return { data: await this.getValidatedData() };
      }
    }
    const app = new Hono();
    fromHono(app).get("/g", Get);
    const server = await listenOnLoopback((request, env) => app.fetch(request, env));
    servers.push(server);
    const body = '{"x":"y"}';
    const { port } = new URL(server.origin);
    const answer = await rawRequest(
      server.origin,
      `GET /g?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    );
    expect(answer.status).toBe(200);
  });
});

describe.each(httpHarnesses)("more hostile bodies on $name over HTTP", (harness) => {
  class Note extends OpenAPIRoute {
    schema = { request: { body: contentJson(z.object({ note: z.string() })) }, responses: {} };
    async handle(...args: unknown[]) {
      const { body } = await this.getValidatedData();
      const request = ownRequest(args) as Request & { params?: Record<string, string> };
      return { note: body.note, params: request.params ?? null };
    }
  }

  it("where text/plain is refused: every spelling of it, and no Content-Type, are 415s; JSON labelled as JSON passes", async () => {
    const { router, request } = harness.make({ readTextPlainAsJson: false } as any);
    router.post("/note", Note);
    const body = '{"note":"csrf"}';
    const statuses = [];
    for (const type of ["text/plain", "Text/Plain; charset=utf-8", " text/plain ;x=y", "text/plain;"]) {
      statuses.push((await request("/note", { method: "POST", headers: { "content-type": type }, body })).status);
    }
    statuses.push((await request("/note", { method: "POST", body: new TextEncoder().encode(body) })).status);
    expect(statuses).toEqual([415, 415, 415, 415, 415]);
    const valid = await request("/note", jsonBody({ note: "ok" }));
    expect(valid.status).toBe(200);
  });

  it("a multipart file over its own limit, streamed, is a 413; one under it passes", async () => {
    class Up extends OpenAPIRoute {
      schema = { request: { body: contentMultipart(z.object({ file: fileField({ maxSize: 10 }) })) }, responses: {} };
      async handle() {
        const { body } = await this.getValidatedData();
        return { size: body.file.size };
      }
    }
    const { router, request } = harness.make();
    router.post("/up", Up);
    const form = new FormData();
    form.append("file", new File(["x".repeat(11)], "big.bin"));
    const encoded = new Request("http://x/", { method: "POST", body: form });
    const type = encoded.headers.get("content-type")!;
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
        controller.close();
      },
    });
    const refused = await request("/up", {
      method: "POST",
      headers: { "content-type": type },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(refused.status).toBe(413);
    const small = new FormData();
    small.append("file", new File(["x".repeat(10)], "ok.bin"));
    expect(await (await request("/up", { method: "POST", body: small })).json()).toEqual({ size: 10 });
  });
});

describe("a Content-Length the body does not fill (raw HTTP)", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  class Note extends OpenAPIRoute {
    schema = { request: { body: contentJson(z.object({ note: z.string() })) }, responses: {} };
    async handle() {
      return { note: (await this.getValidatedData()).body.note };
    }
  }

  for (const adapter of ["hono", "itty-router"] as const) {
    it(`${adapter}: the handler never runs on the short body, and the server serves the next request`, async () => {
      let ran = 0;
      class Counted extends Note {
        async handle() {
          ran++;
          return super.handle();
        }
      }
      const fetchOf = (() => {
        if (adapter === "hono") {
          const app = new Hono();
          fromHono(app).post("/note", Counted);
          return (request: Request, env: unknown) => app.fetch(request, env as any);
        }
        const router = fromIttyRouter(Router());
        router.post("/note", Counted);
        return async (request: Request, env: unknown) =>
          (await router.fetch(request, env)) ?? new Response(null, { status: 404 });
      })();
      const server = await listenOnLoopback(fetchOf);
      servers.push(server);
      const { port } = new URL(server.origin);
      const short = '{"note":"cut';
      const answer = await rawRequest(
        server.origin,
        `POST /note HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
        short,
      );
      // The client half-closed: nothing more will come. Either an error answer, or the connection closed unanswered.
      expect(answer.status === 0 || answer.status >= 400).toBe(true);
      expect(ran).toBe(0);
      const next = await fetch(`${server.origin}/note`, jsonBody({ note: "next" }));
      expect(await next.json()).toEqual({ note: "next" });
    });
  }
});

describe.each(httpHarnesses)("validateRequest() of what the handler holds, on $name over HTTP", (harness) => {
  it("the replay, its clone() and a request-like object validate to the same body; a lying json() is a 400", async () => {
    class Again extends OpenAPIRoute {
      schema = { request: { body: contentJson(z.object({ n: z.number() })) }, responses: {} };
      async handle(...args: unknown[]) {
        const { body } = await this.getValidatedData();
        const request = ownRequest(args);
        const own = (await this.validateRequest(request)).body;
        const cloned = (await this.validateRequest(request.clone())).body;
        const like = {
          method: "POST",
          url: request.url,
          headers: { "content-type": "application/json" },
          json: async () => ({ n: body.n + 1 }),
        } as unknown as Request;
        const fromLike = (await this.validateRequest(like)).body;
        const lying = { ...like, json: async () => JSON.parse("{not json") } as unknown as Request;
        const refused = await this.validateRequest(lying).then(
          () => "accepted",
          (err: { status?: number }) => err.status,
        );
        return { body, own, cloned, fromLike, refused };
      }
    }
    const { router, request } = harness.make();
    router.post("/again", Again);
    const response = await request("/again", jsonBody({ n: 1 }));
    expect(await response.json()).toEqual({
      body: { n: 1 },
      own: { n: 1 },
      cloned: { n: 1 },
      fromLike: { n: 2 },
      refused: 400,
    });
  });
});

describe("itty-router's AutoRouter, a middleware before the endpoint, over HTTP", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it("the replay keeps params, query and what the middleware put on the request; a form reads again", async () => {
    class Form extends OpenAPIRoute {
      schema = {
        request: {
          params: z.object({ id: z.string() }),
          body: contentForm(z.object({ tag: z.array(z.string()) })),
        },
        responses: {},
      };
      async handle(
        request: Request & { params: Record<string, string>; query: Record<string, unknown>; user?: string },
      ) {
        const { body, params } = await this.getValidatedData();
        const form = await request.formData();
        request.user = `${request.user}!`;
        return {
          validated: [params.id, body.tag],
          params: request.params,
          query: { ...request.query },
          user: request.user,
          form: form.getAll("tag"),
          text: await request.text(),
        };
      }
    }
    const router = fromIttyRouter(
      AutoRouter({
        before: [
          (request: any) => {
            request.user = "set-by-middleware";
          },
        ],
      }),
    );
    router.post("/things/:id", Form);
    const server = await listenOnLoopback((request, env) => router.fetch(request, env));
    servers.push(server);
    const response = await fetch(`${server.origin}/things/a%20b?q=1&q=2`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "tag=x&tag=y%26z",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      validated: ["a b", ["x", "y&z"]],
      params: { id: "a%20b" },
      query: { q: ["1", "2"] },
      user: "set-by-middleware!",
      form: ["x", "y&z"],
      text: "tag=x&tag=y%26z",
    });
  });
});
