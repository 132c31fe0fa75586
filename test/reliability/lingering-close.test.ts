import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lingeringClose } from "specroute/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// lingeringClose depends on one undocumented Node behaviour: the HTTP/1 server closes a connection after
// its last answer by calling socket.destroySoon(). These tests check the linger itself on the Node that
// runs them (if Node stopped calling destroySoon(), the first test would fail with a reset), then the
// resets it prevents, with the server in another process: in one process the client and the server
// share an event loop, and the reset seldom shows (early-answers.test.ts passes even without
// lingeringClose there). See docs/reliability.md for the Node versions this was checked on.

const MB = 1024 * 1024;
const CHUNK = new Uint8Array(64 * 1024).fill(0x20);
const CHUNK_SIZE = Buffer.from(`${CHUNK.byteLength.toString(16)}\r\n`);
const ANSWER = JSON.stringify({ success: false, errors: [{ code: 7000, message: "Unsupported Media Type" }] });

/** The head of a POST with a chunked body, from a client that sent `Connection: close`. */
function head(path: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
}

/** Writes `total` bytes of chunked body, 64 KiB a chunk, as fast as the socket takes them, counting them in `sent`. */
function pump(socket: net.Socket, total: number, sent = { bytes: 0 }): Promise<void> {
  return new Promise((resolve) => {
    const next = () => {
      while (sent.bytes < total && !socket.destroyed) {
        sent.bytes += CHUNK.byteLength;
        socket.write(CHUNK_SIZE);
        socket.write(CHUNK);
        if (!socket.write("\r\n")) return void socket.once("drain", next);
      }
      resolve();
    };
    socket.once("close", () => resolve());
    next();
  });
}

interface AfterAnswer {
  status: string | undefined;
  /** Bytes of body written after the answer and the server's FIN had arrived. */
  sentAfter: number;
  /** The error the client saw, if any (`EPIPE`, `ECONNRESET` when the server reset the connection). */
  error: string | undefined;
}

/**
 * A client that sends one chunk of body with `Connection: close`, waits for the whole answer and the
 * server's FIN, then sends `after` more bytes of body and the last chunk.
 */
function afterAnswer(port: number, path: string, after: number): Promise<AfterAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let received = "";
    let error: string | undefined;
    const sent = { bytes: 0 };
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on("data", (data) => (received += data));
    socket.on("error", (err: NodeJS.ErrnoException) => (error ??= err.code));
    socket.once("end", async () => {
      await pump(socket, after, sent);
      if (!socket.destroyed) socket.end("0\r\n\r\n");
    });
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1], sentAfter: sent.bytes, error });
    });
    socket.write(head(path));
    socket.write(CHUNK_SIZE);
    socket.write(CHUNK);
    socket.write("\r\n");
  });
}

describe("lingeringClose on this Node: after the answer and a FIN, it reads what the client still sends", () => {
  let server: http.Server;
  let port: number;
  /** When the server's side of each connection closed, in `performance.now()` time, by the client's port. */
  const closedAt = new Map<number, number>();

  beforeAll(async () => {
    // Answers 415 without reading the body, as a refusal does; on /reading, once reading it has begun.
    server = lingeringClose(
      http.createServer((request, response) => {
        if (request.url === "/reading") request.resume();
        response.writeHead(415, { "content-type": "application/json" }).end(ANSWER);
      }),
      { maxBytes: 4 * MB, timeoutMs: 500 },
    );
    server.on("connection", (socket) => {
      const client = socket.remotePort!;
      socket.once("close", () => closedAt.set(client, performance.now()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );

  it("drops the rest of a body and closes without a reset once it ends", async () => {
    for (const path of ["/", "/reading"]) {
      const result = await afterAnswer(port, path, 2 * MB);
      expect(result).toEqual({ status: "415", sentAfter: 2 * MB, error: undefined });
    }
  });

  it("resets a client still sending past maxBytes of a body being read, which has read the answer by then", async () => {
    const result = await afterAnswer(port, "/reading", 32 * MB);
    expect(result.status).toBe("415");
    expect(result.error).toMatch(/^(ECONNRESET|EPIPE)$/);
    // The 4 MiB dropped plus what the socket buffers held, then the connection was closed.
    expect(result.sentAfter).toBeGreaterThan(4 * MB);
    expect(result.sentAfter).toBeLessThan(32 * MB);
  });

  it("closes after timeoutMs when the client stops sending", async () => {
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    socket.on("error", () => {});
    socket.resume();
    const fin = new Promise<number>((resolve) => socket.once("end", () => resolve(performance.now())));
    socket.write(head("/"));
    socket.write(CHUNK_SIZE);
    socket.write(CHUNK);
    socket.write("\r\n");
    const finAt = await fin;
    const client = socket.localPort!;
    for (let waited = 0; !closedAt.has(client) && waited < 3000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.destroy();
    const lingered = closedAt.get(client)! - finAt;
    expect(lingered).toBeGreaterThan(400);
    expect(lingered).toBeLessThan(2000);
  });
});

describe("refusals reach clients that sent Connection: close, with the server in another process", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const TRIES = 50;
  let child: ChildProcess;
  let port: number;

  beforeAll(async () => {
    // @hono/node-server answering 415 and 401 without reading the body, behind lingeringClose.
    const source = `
      import { serve } from "@hono/node-server";
      import { Hono } from "hono";
      import { lingeringClose } from ${JSON.stringify(pathToFileURL(`${root}src/node/lingering-close.ts`).href)};
      const app = new Hono();
      app.post("/415", (c) => c.json({ success: false }, 415));
      app.post("/401", (c) => c.json({ success: false }, 401));
      lingeringClose(serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => console.log("PORT " + info.port)));
    `;
    child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr!.on("data", (data) => (output += data));
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 45_000);
      child.stdout!.on("data", (data) => {
        output += data;
        const found = /PORT (\d+)/.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(Number(found[1]));
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code}:\n${output}`));
      });
    });
  });

  afterAll(() => {
    child?.kill("SIGKILL");
  });

  /** A client that sends its whole body with `Connection: close` whatever the answer; resolves with the status it read. */
  function stubbornUpload(path: string, total: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      let received = "";
      const timer = setTimeout(() => socket.destroy(), 10_000);
      socket.on("data", (data) => (received += data));
      socket.on("error", () => {});
      socket.once("close", () => {
        clearTimeout(timer);
        resolve(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? "no answer");
      });
      socket.write(head(path));
      void pump(socket, total).then(() => {
        if (!socket.destroyed) socket.write("0\r\n\r\n");
      });
    });
  }

  for (const size of [2 * MB, 50 * MB]) {
    for (const status of ["415", "401"]) {
      it(`${status} reaches ${TRIES} clients sending ${size / MB} MB`, async () => {
        const counts: Record<string, number> = {};
        for (let done = 0; done < TRIES; done += 5) {
          const results = await Promise.all(Array.from({ length: 5 }, () => stubbornUpload(`/${status}`, size)));
          for (const result of results) counts[result] = (counts[result] ?? 0) + 1;
        }
        expect(counts).toEqual({ [status]: TRIES });
      });
    }
  }
});
