import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, contentJson, fromHono, OpenAPIRoute, SqlListEndpoint } from "../../src";
import { harnesses, jsonBody } from "../helpers";

class Upload extends OpenAPIRoute {
  schema = { request: { body: contentJson(z.object({ data: z.string() })) }, responses: {} };
  async handle() {
    const { body } = await this.getValidatedData();
    return { length: body.data.length };
  }
}

class Ping extends OpenAPIRoute {
  schema = { responses: {} };
  async handle() {
    return { pong: true };
  }
}

class AnyJson extends OpenAPIRoute {
  schema = { request: { body: contentJson(z.unknown()) }, responses: {} };
  async handle() {
    return { ok: true };
  }
}

class Bounded extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({ tags: z.array(z.string()).min(1).max(3).optional() }),
      body: contentJson(z.object({ items: z.array(z.number()).max(5), names: z.array(z.string()).nonempty() })),
    },
    responses: {},
  };
  async handle() {
    const { body, query } = await this.getValidatedData();
    return { items: body.items.length, names: body.names.length, tags: query.tags?.length ?? 0 };
  }
}

/** A real HTTP server on 127.0.0.1 (an ephemeral port) in front of a Hono app. */
async function listen(app: Hono): Promise<{ port: number; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            (server as http.Server).closeAllConnections?.();
            server.close(() => done());
          }),
      }),
    );
  });
}

interface UploadResult {
  status: number;
  /** Bytes the client had written when the answer arrived. */
  sentAtAnswer: number;
  millis: number;
  body: string;
}

/** Streams `total` bytes of a JSON body, stopping as soon as the server answers. */
function upload(port: number, total: number, declareLength: boolean): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (declareLength) headers["content-length"] = String(total);
    const request = http.request({ host: "127.0.0.1", port, method: "POST", path: "/upload", headers, agent: false });
    let sent = 0;
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      const sentAtAnswer = sent;
      const millis = performance.now() - started;
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode!, sentAtAnswer, millis, body });
      });
    });
    // Once the server has answered, it may close the connection under the unfinished upload.
    request.on("error", (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(64 * 1024, " ");
    const pump = () => {
      if (sent === 0) {
        request.write('{"data":"');
        sent += 9;
      }
      while (sent < total && !answered) {
        const size = Math.min(chunk.length, total - sent);
        sent += size;
        if (!request.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
          request.once("drain", pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    pump();
  });
}

describe("body size limit over real HTTP (@hono/node-server on 127.0.0.1)", () => {
  const MB = 1024 * 1024;
  let server: { port: number; close(): Promise<void> };
  beforeAll(async () => {
    const app = new Hono();
    fromHono(app).post("/upload", Upload).get("/ping", Ping);
    server = await listen(app);
  });
  afterAll(() => server.close());

  for (const declareLength of [false, true]) {
    const how = declareLength ? "with a declared Content-Length" : "streamed without a length (chunked)";
    it(`answers 413 to a 50 MB body ${how} long before it is sent, without buffering it`, async () => {
      globalThis.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const result = await upload(server.port, 50 * MB, declareLength);
      const grown = process.memoryUsage().rss - rssBefore;
      expect(result.status).toBe(413);
      expect(JSON.parse(result.body).errors[0]).toMatchObject({ code: 7014 });
      // The answer came after at most a few MB of the 50: the limit (1 MiB) plus socket buffers.
      expect(result.sentAtAnswer).toBeLessThan(10 * MB);
      expect(grown).toBeLessThan(40 * MB);
      console.log(
        `50 MB upload ${how}: 413 after ${(result.sentAtAnswer / MB).toFixed(1)} MB sent, ${result.millis.toFixed(0)} ms, RSS +${(grown / MB).toFixed(1)} MB`,
      );
    });
  }

  it("still accepts a body under the limit on the same server", async () => {
    const result = await upload(server.port, 512 * 1024, false);
    expect(result.status).toBe(400); // 512 KiB of spaces is not a finished JSON string: read whole, then refused
    const small = await fetch(`http://127.0.0.1:${server.port}/upload`, jsonBody({ data: "x".repeat(900_000) }));
    expect(small.status).toBe(200);
    expect(await small.json()).toEqual({ length: 900_000 });
  });

  it("keeps answering other clients while 20 clients trickle their bodies a byte at a time", async () => {
    const slowStarted = performance.now();
    let slowFinished = 0;
    const slow = Array.from(
      { length: 20 },
      () =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = http.request({
            host: "127.0.0.1",
            port: server.port,
            method: "POST",
            path: "/upload",
            headers: { "content-type": "application/json" },
            agent: false,
          });
          request.on("response", (response) => {
            let body = "";
            response.on("data", (chunk) => (body += chunk));
            response.on("end", () => resolve({ status: response.statusCode!, body }));
          });
          request.on("error", reject);
          request.write('{"data":"');
          let bytes = 0;
          const timer = setInterval(() => {
            if (bytes++ < 60) request.write("a");
            else {
              clearInterval(timer);
              request.end('"}');
              slowFinished++;
            }
          }, 25);
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies: number[] = [];
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const started = performance.now();
          const response = await fetch(`http://127.0.0.1:${server.port}/ping`);
          expect(await response.json()).toEqual({ pong: true });
          latencies.push(performance.now() - started);
        }),
      );
    }
    // All 100 quick requests were answered while every slow body was still arriving (the order, not a time).
    expect(slowFinished).toBe(0);
    const answers = await Promise.all(slow);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(JSON.parse(answers[0]!.body)).toEqual({ length: 60 });
    console.log(
      `slow bodies: 100 quick requests answered in max ${Math.max(...latencies).toFixed(0)} ms while 20 bodies trickled for ${(performance.now() - slowStarted).toFixed(0)} ms`,
    );
  });
});

for (const harness of harnesses) {
  describe(`${harness.name}: nesting, array and page limits`, () => {
    const { router, request } = harness.make({ db: betterSqlite3Driver(notesDb()) });
    router.post("/any", AnyJson);
    router.post("/bounded", Bounded);
    router.get("/notes", NotesList);
    const post = (path: string, body: string) => request(path, jsonBody(body));

    it("accepts JSON nested 256 deep and refuses 257, and 10k levels quickly", async () => {
      expect((await post("/any", `${"[".repeat(256)}${"]".repeat(256)}`)).status).toBe(200);
      expect((await post("/any", `${'{"a":'.repeat(256)}1${"}".repeat(256)}`)).status).toBe(200);
      for (const body of [
        `${"[".repeat(257)}${"]".repeat(257)}`,
        `${'{"a":'.repeat(257)}1${"}".repeat(257)}`,
        `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
        `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`,
      ]) {
        const started = performance.now();
        const response = await post("/any", body);
        expect(response.status).toBe(400);
        expect((await response.json()).errors[0].message).toMatch(/nested deeper than 256/);
        expect(performance.now() - started).toBeLessThan(500);
      }
    });

    it("honours the array limits a schema declares, in the body and in repeated query keys", async () => {
      const ok = await post("/bounded?tags=a&tags=b&tags=c", JSON.stringify({ items: [1, 2, 3, 4, 5], names: ["x"] }));
      expect(await ok.json()).toEqual({ items: 5, names: 1, tags: 3 });
      const cases: Array<[string, unknown, string]> = [
        ["/bounded", { items: [1, 2, 3, 4, 5, 6], names: ["x"] }, "body.items"],
        ["/bounded", { items: [], names: [] }, "body.names"],
        ["/bounded?tags=a&tags=b&tags=c&tags=d", { items: [], names: ["x"] }, "query.tags"],
        ["/bounded", { items: Array(100_000).fill(1), names: ["x"] }, "body.items"],
        // 2000 repeats make a 14 KB URL, about what an HTTP server accepts (Node's header limit is 16 KB).
        // itty-router groups repeated keys in quadratic time before any handler runs: 20k take seconds there.
        [`/bounded?${"tags=a&".repeat(2000)}`, { items: [], names: ["x"] }, "query.tags"],
      ];
      for (const [path, body, field] of cases) {
        const started = performance.now();
        const response = await post(path, JSON.stringify(body));
        expect(response.status, field).toBe(400);
        const paths = (await response.json()).errors.map((error: { path: string[] }) => error.path.join("."));
        expect(paths).toContain(field);
        expect(performance.now() - started).toBeLessThan(500);
      }
    });

    it("caps per_page at 100 whatever the table holds", async () => {
      const page = async (query: string) => request(`/notes${query}`);
      expect((await (await page("")).json()).result).toHaveLength(20);
      expect((await (await page("?per_page=100")).json()).result).toHaveLength(100);
      for (const query of [
        "?per_page=101",
        "?per_page=1e9",
        "?per_page=0",
        "?per_page=-1",
        "?per_page=100&per_page=100",
      ]) {
        expect((await page(query)).status, query).toBe(400);
      }
      const last = await (await page("?per_page=100&page=2")).json();
      expect(last.result).toHaveLength(50);
      expect(last.result_info).toMatchObject({ count: 50, total_count: 150 });
    });
  });
}

const Note = z.object({ id: z.number().int(), title: z.string() });
class NotesList extends SqlListEndpoint {
  _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
}

function notesDb() {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO notes (title) VALUES (?)");
  for (let i = 0; i < 150; i++) insert.run(`note ${i}`);
  return db;
}
