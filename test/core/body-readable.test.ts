import { Hono } from "hono";
import { AutoRouter } from "itty-router";
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
import { closeHttpHarnesses, eventually, harnesses, httpHarnesses, jsonBody, listenOnLoopback } from "../helpers";

type Accessor =
  | "json"
  | "text"
  | "arrayBuffer"
  | "formData"
  | "parseBody"
  | "blob"
  | "stream"
  | "cloneText"
  | "rawJson"
  | "rawText"
  | "rawArrayBuffer"
  | "rawFormData"
  | "rawStream"
  | "rawCloneText";

/** What a handler sees when it reads the body itself, whichever router called it. */
function readers(args: unknown[]): Partial<Record<Accessor, () => Promise<unknown>>> {
  const first = args[0] as any;
  if (first.req) {
    const req = first.req;
    // On Hono a handler reads the body through c.req, or through c.req.raw as the platform Request.
    return {
      json: () => req.json(),
      text: () => req.text(),
      arrayBuffer: async () => new TextDecoder().decode(await req.arrayBuffer()),
      formData: async () => formEntries(await req.formData()),
      parseBody: async () => describeValues(await req.parseBody({ all: true })),
      blob: async () => (await req.blob()).text(),
      rawJson: () => req.raw.json(),
      rawText: () => req.raw.text(),
      rawArrayBuffer: async () => new TextDecoder().decode(await req.raw.arrayBuffer()),
      rawFormData: async () => formEntries(await req.raw.formData()),
      rawStream: () => new Response(req.raw.body).text(),
      rawCloneText: () => req.raw.clone().text(),
    };
  }
  const request = first as Request;
  return {
    json: () => request.json(),
    text: () => request.text(),
    arrayBuffer: async () => new TextDecoder().decode(await request.arrayBuffer()),
    formData: async () => formEntries(await request.formData()),
    blob: async () => (await request.blob()).text(),
    stream: () => new Response(request.body).text(),
    cloneText: () => request.clone().text(),
  };
}

async function describeValue(value: unknown): Promise<unknown> {
  return value instanceof File ? { file: value.name, type: value.type, text: await value.text() } : value;
}

async function describeValues(record: Record<string, unknown>): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    out[key] = Array.isArray(value) ? await Promise.all(value.map(describeValue)) : await describeValue(value);
  }
  return out;
}

async function formEntries(form: FormData): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [key, value] of form) out.push([key, await describeValue(value)]);
  return out;
}

/** Validates, then reads the body again with each accessor named in `?read=a,b`, in order. */
function readingEndpoint(body: unknown) {
  return class extends OpenAPIRoute {
    schema = { request: { query: z.object({ read: z.string() }), body: body as any }, responses: {} };
    async handle(...args: unknown[]) {
      const { query, body } = await this.getValidatedData();
      const available = readers(args);
      const reads: unknown[] = [];
      for (const name of (query.read as string).split(",")) reads.push(await available[name as Accessor]!());
      return { validated: await describeValues(body as unknown as Record<string, unknown>), reads };
    }
  };
}

// Not a text/* type, and a name without an extension: Bun's FormData adds ";charset=utf-8" to text types
// (which a file's declared types then refuse) and takes a parsed file's type from its name's extension.
const NOTE = "application/x-note";
const Task = z.object({ title: z.string(), done: z.boolean().default(false) });
const ReadJson = readingEndpoint(contentJson(Task));
const ReadForm = readingEndpoint(contentForm(z.object({ title: z.string(), tags: z.array(z.string()) })));
const ReadUpload = readingEndpoint(
  contentMultipart(z.object({ title: z.string(), file: fileField({ maxSize: 1024, types: [NOTE] }) })),
);

function multipartBody(): FormData {
  const form = new FormData();
  form.append("title", "Grüße");
  form.append("file", new File(["hello\r\n--almost a boundary"], "note", { type: NOTE }));
  form.append("extra", new File(["not declared, dropped"], "x.bin"));
  return form;
}

const FILE = { file: "note", type: NOTE, text: "hello\r\n--almost a boundary" };
// The file as Hono's parseBody() gives it: under Bun, Hono's parse there loses the part's Content-Type.
const PARSED_FILE = "Bun" in globalThis ? { ...FILE, type: expect.any(String) } : FILE;

afterAll(closeHttpHarnesses);

// In-process and over real HTTP (@hono/node-server here; Bun's and Deno's own servers in the runtime matrix).
const everyHarness = [...harnesses, ...httpHarnesses].map((harness) => ({
  ...harness,
  label: harness.transport ? `${harness.name} over HTTP` : harness.name,
}));

describe.each(everyHarness)("a handler reads the body again after validation ($label)", (harness) => {
  const hono = harness.name === "hono";
  const make = () => {
    const app = harness.make();
    app.router.post("/json", ReadJson);
    app.router.post("/form", ReadForm);
    app.router.post("/upload", ReadUpload);
    return app;
  };
  const sent = { title: "Grüße ✓", done: true };
  const accessors: Accessor[] = hono
    ? ["json", "text", "arrayBuffer", "blob", "rawJson", "rawText", "rawArrayBuffer", "rawStream", "rawCloneText"]
    : ["json", "text", "arrayBuffer", "blob", "stream", "cloneText"];

  it.each(accessors)("a JSON body through %s", async (accessor) => {
    const response = await make().request(`/json?read=${accessor}`, jsonBody(sent));
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual(sent);
    const read = reads[0];
    expect(typeof read === "string" ? JSON.parse(read) : read).toEqual(sent);
  });

  it("the same JSON body twice: json() then text() then json()", async () => {
    const response = await make().request("/json?read=json,text,json", jsonBody(sent));
    const { reads } = await response.json();
    expect(reads).toEqual([sent, JSON.stringify(sent), sent]);
  });

  it("every way to read a JSON body, each twice where the platform allows it", async () => {
    const sequence: Accessor[] = hono
      ? // c.req.raw is a Request: its own body reads once, a clone of it as often as it is cloned.
        ["json", "json", "text", "text", "rawCloneText", "rawCloneText", "rawJson", "arrayBuffer", "blob"]
      : ["json", "json", "text", "text", "cloneText", "cloneText", "stream", "stream", "arrayBuffer", "blob"];
    const response = await make().request(`/json?read=${sequence.join(",")}`, jsonBody(sent));
    expect(response.status).toBe(200);
    const { reads } = await response.json();
    expect(reads.map((read: unknown) => (typeof read === "string" ? JSON.parse(read) : read))).toEqual(
      sequence.map(() => sent),
    );
  });

  it("a handler's own JSON.parse of a body that is not JSON fails as it would unvalidated", async () => {
    class ParseOnly extends OpenAPIRoute {
      schema = { request: { body: contentJson(z.unknown()) }, responses: {} };
      async handle(...args: unknown[]) {
        const text = await readers(args).text!();
        return { text, arrayBuffer: await readers(args).arrayBuffer!() };
      }
    }
    const app = harness.make();
    app.router.post("/raw", ParseOnly);
    const response = await app.request("/raw", jsonBody('  {"a": [1, 2]}  '));
    expect(await response.json()).toEqual({ text: '  {"a": [1, 2]}  ', arrayBuffer: '  {"a": [1, 2]}  ' });
  });

  const formAccessors: Accessor[] = hono
    ? ["text", "arrayBuffer", "formData", "parseBody", "rawText", "rawFormData"]
    : ["text", "arrayBuffer", "formData"];
  const form = "title=Gr%C3%BC%C3%9Fe&tags=a&tags=b";
  const formInit = () => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });

  it.each(formAccessors)("a URL-encoded form body through %s", async (accessor) => {
    const response = await make().request(`/form?read=${accessor}`, formInit());
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual({ title: "Grüße", tags: ["a", "b"] });
    const expected = {
      text: form,
      arrayBuffer: form,
      formData: [
        ["title", "Grüße"],
        ["tags", "a"],
        ["tags", "b"],
      ],
      parseBody: { title: "Grüße", tags: ["a", "b"] },
    }[accessor.replace(/^raw(.)/, (_, first: string) => first.toLowerCase()) as "text"];
    expect(reads[0]).toEqual(expected);
  });

  it("the same form body twice: text() then formData()", async () => {
    const response = await make().request(`/form?read=text,formData${hono ? ",parseBody" : ""}`, formInit());
    const { reads } = await response.json();
    expect(reads[0]).toBe(form);
    expect(reads[1]).toHaveLength(3);
    if (hono) expect(reads[2]).toEqual({ title: "Grüße", tags: ["a", "b"] });
  });

  it("a multipart body through formData(): the validated parts, files included, undeclared files dropped", async () => {
    const response = await make().request("/upload?read=formData,formData", { method: "POST", body: multipartBody() });
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual({ title: "Grüße", file: FILE });
    const entries = [
      ["title", "Grüße"],
      ["file", FILE],
    ];
    expect(reads).toEqual([entries, entries]);
  });

  it("a multipart body through text(): rebuilt with the request's own boundary", async () => {
    const encoded = new Request("http://localhost/", { method: "POST", body: multipartBody() });
    const contentType = encoded.headers.get("content-type")!;
    const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
    const init = { method: "POST", headers: { "content-type": contentType }, body: await encoded.arrayBuffer() };
    const response = await make().request("/upload?read=text,arrayBuffer", init);
    const { reads } = await response.json();
    expect(reads[1]).toBe(reads[0]);
    expect(reads[0]).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nGrüße\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note"\r\n` +
        `Content-Type: ${NOTE}\r\n\r\nhello\r\n--almost a boundary\r\n--${boundary}--\r\n`,
    );
  });

  if (hono) {
    it("a multipart body through c.req.raw.formData(), after c.req.parseBody()", async () => {
      const response = await make().request("/upload?read=parseBody,rawFormData", {
        method: "POST",
        body: multipartBody(),
      });
      const { reads } = await response.json();
      expect(reads[1]).toEqual([
        ["title", "Grüße"],
        ["file", FILE],
      ]);
    });

    it("a multipart body through c.req.parseBody(), after c.req.text()", async () => {
      const response = await make().request("/upload?read=text,parseBody", { method: "POST", body: multipartBody() });
      const { reads } = await response.json();
      expect(reads[1]).toEqual({ title: "Grüße", file: PARSED_FILE });
    });
  }

  it("a 900 KB JSON body under the 1 MiB limit reaches the handler whole", async () => {
    const big = { title: "x".repeat(900 * 1024), done: false };
    const response = await make().request("/json?read=text,json", jsonBody(big));
    expect(response.status).toBe(200);
    const { reads } = await response.json();
    expect(reads[0]).toHaveLength(JSON.stringify(big).length);
    expect(reads[1].title).toHaveLength(900 * 1024);
  });

  it("a body over the limit is still refused with 413 before the handler runs", async () => {
    const response = await make().request("/json?read=text", jsonBody({ title: "x".repeat(1024 * 1024) }));
    expect(response.status).toBe(413);
  });

  // In-process: over HTTP the server, not specroute, decides when the sender's stream is read.
  if (harness.transport !== "http")
    it("a body over the limit without a declared length is refused with 413", async () => {
      const chunk = new TextEncoder().encode(`{"title":"${"x".repeat(64 * 1024)}`);
      let sentChunks = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sentChunks++ < 20) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const response = await make().request("/json?read=text", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(response.status).toBe(413);
      // Refused after 17 of the 20 chunks; the rest was read and dropped, so a sender could finish.
      await eventually(() => sentChunks === 21);
      expect(sentChunks).toBe(21);
    });
});

describe("the platform Request is never altered", () => {
  it("Hono: c.req.raw is a Request of specroute's own with the body; the one Hono was given keeps its prototype", async () => {
    let given: Request | undefined;
    class Inspect extends OpenAPIRoute {
      schema = { request: { body: contentJson(Task) }, responses: {} };
      async handle(c: any) {
        const raw = c.req.raw as Request;
        return {
          prototype: Object.getPrototypeOf(raw) === Request.prototype,
          replaced: raw !== given,
          givenPrototype: Object.getPrototypeOf(given) === Request.prototype,
          givenUsed: given!.bodyUsed,
          used: raw.bodyUsed,
          headers: raw.headers.get("x-sent"),
          url: raw.url,
          again: await c.req.json(),
          raw: await raw.json(),
        };
      }
    }
    const app = new Hono();
    app.use("*", async (c, next) => {
      given = c.req.raw;
      await next();
    });
    fromHono(app).post("/inspect", Inspect);
    const response = await app.request("/inspect?x=1", jsonBody({ title: "t" }, { headers: { "x-sent": "yes" } }));
    expect(await response.json()).toEqual({
      prototype: true,
      replaced: true,
      givenPrototype: true,
      givenUsed: true,
      used: false,
      headers: "yes",
      url: "http://localhost/inspect?x=1",
      again: { title: "t" },
      raw: { title: "t" },
    });
  });

  it("Hono: c.req.raw can still be assigned by the app, and a route without a body keeps Hono's own", async () => {
    class Assign extends OpenAPIRoute {
      schema = { request: { body: contentJson(Task) }, responses: {} };
      async handle(c: any) {
        c.req.raw = new Request("http://other/", { method: "PUT", body: "mine" });
        return { text: await c.req.raw.text(), method: c.req.method };
      }
    }
    let given: Request | undefined;
    class NoBody extends OpenAPIRoute {
      schema = { responses: {} };
      async handle(c: any) {
        return { same: c.req.raw === given };
      }
    }
    const app = new Hono();
    app.use("*", async (c, next) => {
      given = c.req.raw;
      await next();
    });
    const router = fromHono(app);
    router.post("/assign", Assign);
    router.post("/nobody", NoBody);
    expect(await (await app.request("/assign", jsonBody({ title: "t" }))).json()).toEqual({
      text: "mine",
      method: "PUT",
    });
    expect(await (await app.request("/nobody", jsonBody({ title: "t" }))).json()).toEqual({ same: true });
  });

  it("Hono: c.req.valid() of a validator middleware before the endpoint still answers", async () => {
    const { validator } = await import("hono/validator");
    class Valid extends OpenAPIRoute {
      schema = { request: { body: contentJson(Task) }, responses: {} };
      async handle(c: any) {
        const { body } = await this.getValidatedData<typeof this.schema>();
        return { valid: c.req.valid("json"), body, raw: await c.req.raw.json() };
      }
    }
    const app = new Hono();
    fromHono(app).post(
      "/valid",
      validator("json", (value) => ({ seen: value.title })),
      Valid,
    );
    const response = await app.request("/valid", jsonBody({ title: "t" }));
    expect(await response.json()).toEqual({
      valid: { seen: "t" },
      body: { title: "t", done: false },
      raw: { title: "t" },
    });
  });

  it("itty-router: the handler reads a request of specroute's own; the router's request keeps its prototype", async () => {
    let seen: Request | undefined;
    class Inspect extends OpenAPIRoute {
      schema = { request: { body: contentJson(Task) }, responses: {} };
      async handle(request: Request) {
        return { same: request === seen, again: await request.json(), url: request.url };
      }
    }
    const router = fromIttyRouter(AutoRouter());
    router.post(
      "/inspect",
      (request: Request) => {
        seen = request;
      },
      Inspect,
    );
    const request = new Request("http://localhost/inspect", jsonBody({ title: "t" }));
    const response = await router.fetch(request);
    expect(await response.json()).toEqual({ same: false, again: { title: "t" }, url: "http://localhost/inspect" });
    expect(Object.getPrototypeOf(request)).toBe(Request.prototype);
  });

  it("itty-router: clone() of the request a handler reads keeps every field of the original and the body", async () => {
    class Clone extends OpenAPIRoute {
      schema = { request: { body: contentJson(Task) }, responses: {} };
      async handle(request: Request) {
        const copy = request.clone();
        const { method, credentials, integrity, keepalive, redirect, referrerPolicy, mode, cache } = copy;
        return {
          fields: { method, credentials, integrity, keepalive, redirect, referrerPolicy, mode, cache },
          header: copy.headers.get("x-trace"),
          body: await copy.json(),
          again: await request.text(),
        };
      }
    }
    const router = fromIttyRouter(AutoRouter());
    router.post("/clone", Clone);
    const init = {
      ...jsonBody({ title: "cloned" }),
      credentials: "include",
      integrity: "sha256-abc",
      keepalive: true,
      redirect: "manual",
      referrerPolicy: "no-referrer",
      mode: "same-origin",
      cache: "no-store",
    } as RequestInit;
    const original = new Request("http://localhost/clone", init);
    original.headers.set("x-trace", "t-1");
    // What the runtime keeps of those fields (Bun keeps no integrity, keepalive or referrerPolicy): the copy keeps the same.
    const { credentials, integrity, keepalive, redirect, referrerPolicy, mode, cache } = original;
    const response = await router.fetch(original);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      fields: { method: "POST", credentials, integrity, keepalive, redirect, referrerPolicy, mode, cache },
      header: "t-1",
      body: { title: "cloned" },
      again: JSON.stringify({ title: "cloned" }),
    });
  });
});

describe("itty-router's AutoRouter, whose handlers get a Proxy of the request", () => {
  it("request.json() and request.formData() after validation", async () => {
    const router = fromIttyRouter(AutoRouter());
    router.post("/json", ReadJson);
    router.post("/upload", ReadUpload);
    const sent = { title: "proxied", done: true };
    const json = await router.fetch(new Request("http://localhost/json?read=json,text", jsonBody(sent)));
    expect((await json.json()).reads).toEqual([sent, JSON.stringify(sent)]);
    const upload = await router.fetch(
      new Request("http://localhost/upload?read=formData", { method: "POST", body: multipartBody() }),
    );
    expect((await upload.json()).reads[0]).toEqual([
      ["title", "Grüße"],
      ["file", FILE],
    ]);
  });
});

describe("Hono: a middleware read the body through c.req before the endpoint", () => {
  const make = (read: (c: any) => Promise<unknown>) => {
    const app = new Hono();
    app.use(async (c, next) => {
      await read(c);
      await next();
    });
    const router = fromHono(app);
    router.post("/json", ReadJson);
    router.post("/form", ReadForm);
    router.post("/upload", ReadUpload);
    return app;
  };
  const sent = { title: "read first", done: true };

  it.each([
    ["c.req.json()", (c: any) => c.req.json()],
    ["c.req.text()", (c: any) => c.req.text()],
    ["c.req.arrayBuffer()", (c: any) => c.req.arrayBuffer()],
  ])("%s: specroute validates Hono's copy, and the handler reads it again", async (_name, read) => {
    const response = await make(read).request("/json?read=json,text", jsonBody(sent));
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual(sent);
    expect(reads).toEqual([sent, JSON.stringify(sent)]);
  });

  it("c.req.parseBody() of a URL-encoded form", async () => {
    const response = await make((c) => c.req.parseBody()).request("/form?read=text,parseBody", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "title=t&tags=a&tags=b",
    });
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual({ title: "t", tags: ["a", "b"] });
    expect(reads[1]).toEqual({ title: "t", tags: ["a", "b"] });
  });

  it("c.req.parseBody() of a multipart upload", async () => {
    const response = await make((c) => c.req.parseBody()).request("/upload?read=formData", {
      method: "POST",
      body: multipartBody(),
    });
    expect(response.status).toBe(200);
    const { validated, reads } = await response.json();
    expect(validated).toEqual({ title: "Grüße", file: FILE });
    // c.req.formData() answers from Hono's own cache: every part the middleware parsed.
    expect(reads[0].map(([name]: [string]) => name)).toEqual(["title", "file", "extra"]);
  });

  it("the body limit still holds for a body Hono read first", async () => {
    const response = await make((c) => c.req.text()).request(
      "/json?read=text",
      jsonBody({ title: "x".repeat(1024 * 1024) }),
    );
    expect(response.status).toBe(413);
  });
});

describe("a handler reads the body again over real HTTP (Hono on node-server)", () => {
  async function withServer(run: (origin: string) => Promise<void>): Promise<void> {
    const app = new Hono();
    const router = fromHono(app);
    router.post("/json", ReadJson);
    router.post("/upload", ReadUpload);
    const { origin, close } = await listenOnLoopback(app.fetch);
    try {
      await run(origin);
    } finally {
      await close();
    }
  }

  it("c.req.json() and c.req.text() after validation of a JSON body", async () => {
    await withServer(async (origin) => {
      const sent = { title: "über HTTP", done: true };
      const response = await fetch(`${origin}/json?read=json,text`, jsonBody(sent));
      expect(response.status).toBe(200);
      expect((await response.json()).reads).toEqual([sent, JSON.stringify(sent)]);
    });
  });

  it("c.req.parseBody() and c.req.formData() after validation of a streamed multipart upload", async () => {
    await withServer(async (origin) => {
      const response = await fetch(`${origin}/upload?read=parseBody,formData`, {
        method: "POST",
        body: multipartBody(),
      });
      expect(response.status).toBe(200);
      const { reads } = await response.json();
      expect(reads[0]).toEqual({ title: "Grüße", file: PARSED_FILE });
      expect(reads[1]).toEqual([
        ["title", "Grüße"],
        ["file", PARSED_FILE],
      ]);
    });
  });
});

describe("a request-like object (chanfana-style tests) is validated, never a 500", () => {
  class CreateTask extends OpenAPIRoute {
    schema = {
      request: { headers: z.object({ "x-team": z.string().optional() }), body: contentJson(Task) },
      responses: {},
    };
    async handle() {
      const { body, headers } = await this.getValidatedData();
      return { body, team: headers["x-team"] ?? null };
    }
  }
  const router = fromIttyRouter(AutoRouter());
  router.post("/tasks", CreateTask);
  const send = (like: Record<string, unknown>) =>
    router.fetch({ method: "POST", url: "https://example.com/tasks", ...like } as unknown as Request);

  it("a json() method without headers or a body stream gives the body", async () => {
    const response = await send({ json: () => ({ title: "from json()" }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: { title: "from json()", done: false }, team: null });
  });

  it("headers given as a plain record are read as headers", async () => {
    const response = await send({ headers: { "x-team": "core" }, json: async () => ({ title: "t" }) });
    expect(response.status).toBe(200);
    expect((await response.json()).team).toBe("core");
  });

  it("a json() that returns an invalid body is a 400 naming the field", async () => {
    const response = await send({ json: () => ({}) });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].path).toEqual(["body", "title"]);
  });

  it("a json() that throws is a 400 saying the body is not JSON", async () => {
    const response = await send({
      json: () => {
        throw new SyntaxError("Unexpected end of JSON input");
      },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].message).toMatch(/not valid JSON/);
  });

  it("no headers and no body at all is a 400 for the missing body", async () => {
    const response = await send({});
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].message).toMatch(/Request body is required/);
  });

  it("a declared Content-Length without a stream is not read as a body to fetch", async () => {
    const headers = { "content-type": "application/json", "content-length": "15" };
    const response = await send({ headers, json: () => ({ title: "declared" }) });
    expect(response.status).toBe(200);
    expect((await response.json()).body.title).toBe("declared");
  });

  it("a form Content-Type without a stream reads as no body (400), not a crash", async () => {
    class Form extends OpenAPIRoute {
      schema = { request: { body: contentForm(z.object({ title: z.string() })) }, responses: {} };
      async handle() {
        return {};
      }
    }
    const formRouter = fromIttyRouter(AutoRouter());
    formRouter.post("/form", Form);
    const response = await formRouter.fetch({
      method: "POST",
      url: "https://example.com/form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    } as unknown as Request);
    expect(response.status).toBe(400);
  });

  it("headers no Headers object accepts are left out instead of failing", async () => {
    const response = await send({ headers: { "bad header": "x", "x-team": "ok" }, json: () => ({ title: "t" }) });
    expect(response.status).toBe(200);
    expect((await response.json()).team).toBe("ok");
  });
});
