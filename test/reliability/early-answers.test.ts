import type http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { betterSqlite3Driver } from "specroute";
import { lingeringClose } from "specroute/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../examples/tasks/app";
import { MIGRATIONS } from "../../examples/tasks/migrations";

// A request refused before its body is read must still deliver its answer to a client that is still
// sending. The tasks example is served as examples/tasks/server.ts serves it, over 127.0.0.1.

const MB = 1024 * 1024;
const TRIES = 50;
const API_KEY = "early-answers-key";
const CHUNK = new Uint8Array(64 * 1024).fill(0x20);

/** A body of `total` spaces, produced 64 KiB at a time as the client sends it, never held whole. */
function bodyStream(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(CHUNK.byteLength, total - sent);
      sent += size;
      controller.enqueue(size === CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, size));
    },
  });
}

interface Upload {
  path: string;
  size: number;
  apiKey: boolean;
  /** Declares the body's `Content-Length`; without it the body is sent chunked. */
  declared: boolean;
}

/** The status the client read, or the error code it saw instead (`UND_ERR_SOCKET`, `EPIPE`, ...). */
async function send(port: number, upload: Upload): Promise<number | string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (upload.apiKey) headers["x-api-key"] = API_KEY;
  if (upload.declared) headers["content-length"] = String(upload.size);
  try {
    const response = await fetch(`http://127.0.0.1:${port}${upload.path}`, {
      method: "POST",
      headers,
      body: bodyStream(upload.size),
      duplex: "half",
    } as RequestInit);
    const body = await response.json();
    return body.success === false ? response.status : `${response.status} without the error envelope`;
  } catch (err) {
    const error = err as Error & { cause?: { code?: string }; code?: string };
    return error.cause?.code ?? error.code ?? error.message;
  }
}

interface StubbornResult {
  /** Every status line the client read, in order. */
  statuses: string[];
  /** Bytes of body written before the body ended or the connection was closed under it. */
  sent: number;
  /** Whether the connection was closed before the whole body was sent. */
  cut: boolean;
}

/**
 * A client over a raw socket that keeps sending its whole chunked body whatever the answer, as a
 * simple uploader does, then asks for `/projects` on the same connection.
 */
function stubbornUpload(
  port: number,
  path: string,
  total: number,
  { close = false, apiKey = true } = {},
): Promise<StubbornResult> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const size = Buffer.from(`${CHUNK.byteLength.toString(16)}\r\n`);
    let sent = 0;
    let cut = false;
    let received = "";
    const done = () => {
      socket.destroy();
      resolve({ statuses: received.match(/HTTP\/1\.1 \d{3}/g) ?? [], sent, cut });
    };
    socket.on("data", (data) => {
      received += data;
      if (received.split("HTTP/1.1").length > 2 && received.endsWith("}")) done();
    });
    socket.on("error", () => (cut = true));
    socket.on("close", done);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${
        apiKey ? `X-API-Key: ${API_KEY}\r\n` : ""
      }${close ? "Connection: close\r\n" : ""}\r\n`,
    );
    const pump = () => {
      while (sent < total && !socket.destroyed) {
        sent += CHUNK.byteLength;
        socket.write(size);
        socket.write(CHUNK);
        if (!socket.write("\r\n")) return void socket.once("drain", pump);
      }
      if (socket.destroyed) return;
      socket.write("0\r\n\r\n");
      if (!close) socket.write("GET /projects HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    };
    pump();
  });
}

/** Runs `TRIES` uploads, five at a time, and counts what the clients read. */
async function tally(port: number, upload: Upload): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let done = 0; done < TRIES; done += 5) {
    const results = await Promise.all(Array.from({ length: 5 }, () => send(port, upload)));
    for (const result of results) counts[result] = (counts[result] ?? 0) + 1;
  }
  return counts;
}

describe("answers to refused uploads reach the client (tasks example on @hono/node-server, 127.0.0.1)", () => {
  let port: number;
  let server: http.Server;
  let projectId: number;

  beforeAll(async () => {
    const sqlite = new Database(":memory:");
    for (const statement of MIGRATIONS) sqlite.exec(statement);
    const env = { DB: betterSqlite3Driver(sqlite), API_KEY };
    const { app } = createApp();
    await new Promise<void>((resolve) => {
      server = lingeringClose(
        serve({ fetch: (request) => app.fetch(request, env), hostname: "127.0.0.1", port: 0 }, (info) => {
          port = (info as AddressInfo).port;
          resolve();
        }),
      ) as http.Server;
    });
    const created = await fetch(`http://127.0.0.1:${port}/projects`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": API_KEY },
      body: JSON.stringify({ name: "uploads" }),
    });
    projectId = (await created.json()).result.id;
  });

  afterAll(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );

  const cases: Array<{ status: number; what: string; upload: (size: number) => Omit<Upload, "size"> }> = [
    {
      status: 415,
      what: "a JSON body to the multipart upload route, streamed",
      upload: () => ({ path: `/projects/${projectId}/attachments`, apiKey: true, declared: false }),
    },
    {
      status: 415,
      what: "a JSON body to the multipart upload route, with its Content-Length",
      upload: () => ({ path: `/projects/${projectId}/attachments`, apiKey: true, declared: true }),
    },
    {
      status: 401,
      what: "a write without the API key, streamed",
      upload: () => ({ path: "/projects", apiKey: false, declared: false }),
    },
    {
      status: 401,
      what: "a write without the API key, with its Content-Length",
      upload: () => ({ path: "/projects", apiKey: false, declared: true }),
    },
    {
      status: 413,
      what: "a declared Content-Length over the 1 MiB limit",
      upload: () => ({ path: "/projects", apiKey: true, declared: true }),
    },
    {
      status: 413,
      what: "a streamed JSON body that passes the 1 MiB limit",
      upload: () => ({ path: "/projects", apiKey: true, declared: false }),
    },
  ];

  for (const size of [2 * MB, 50 * MB]) {
    for (const { status, what, upload } of cases) {
      it(`${status} for ${what}: ${size / MB} MB, every one of ${TRIES} clients reads it`, async () => {
        const started = performance.now();
        const counts = await tally(port, { ...upload(size), size });
        console.log(
          `${size / MB} MB, ${what}: ${JSON.stringify(counts)} in ${(performance.now() - started).toFixed(0)} ms`,
        );
        expect(counts).toEqual({ [status]: TRIES });
      });
    }
  }

  it("drops the rest of a refused body up to 16 MiB and keeps the connection, past that closes it after answering", async () => {
    const path = `/projects/${projectId}/attachments`;
    const small = await stubbornUpload(port, path, 8 * MB);
    expect(small).toEqual({ statuses: ["HTTP/1.1 415", "HTTP/1.1 200"], sent: 8 * MB, cut: false });
    const large = await stubbornUpload(port, path, 50 * MB);
    expect(large.statuses).toEqual(["HTTP/1.1 415"]);
    expect(large.cut).toBe(true);
    // The 16 MiB dropped plus what the socket buffers held, then the connection was closed.
    expect(large.sent).toBeGreaterThan(16 * MB);
    expect(large.sent).toBeLessThan(40 * MB);
    console.log(`a client sending 50 MB regardless: read 415, cut after ${(large.sent / MB).toFixed(1)} MB`);
  });

  for (const size of [2 * MB, 50 * MB]) {
    for (const [status, apiKey] of [
      [415, true],
      [401, false],
    ] as const) {
      it(`${status} reaches ${TRIES} clients that sent Connection: close with ${size / MB} MB (lingeringClose)`, async () => {
        const path = apiKey ? `/projects/${projectId}/attachments` : "/projects";
        const counts: Record<string, number> = {};
        for (let done = 0; done < TRIES; done += 5) {
          const results = await Promise.all(
            Array.from({ length: 5 }, () => stubbornUpload(port, path, size, { close: true, apiKey })),
          );
          for (const { statuses } of results)
            counts[statuses.join() || "no answer"] = (counts[statuses.join() || "no answer"] ?? 0) + 1;
        }
        expect(counts).toEqual({ [`HTTP/1.1 ${status}`]: TRIES });
      });
    }
  }

  it("still serves a valid upload and JSON write on the same server afterwards", async () => {
    const form = new FormData();
    form.set("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    const upload = await fetch(`http://127.0.0.1:${port}/projects/${projectId}/attachments`, {
      method: "POST",
      headers: { "x-api-key": API_KEY },
      body: form,
    });
    expect(upload.status).toBe(201);
    expect((await upload.json()).size).toBe(5);
  });
});
