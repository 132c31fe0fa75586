import type { Server, Socket } from "node:net";
import type { Readable } from "node:stream";

/** Limits of {@link lingeringClose}. */
export interface LingeringCloseOptions {
  /**
   * Most bytes dropped from a request body still being read (by the app or a drain) before the closing
   * connection is reset: 16 MiB by default. A body nobody had started reading is dropped by Node
   * itself, and only `timeoutMs` bounds it.
   */
  maxBytes?: number;
  /** Longest wait for the client to stop sending, in milliseconds: 2000 by default. */
  timeoutMs?: number;
}

/**
 * Makes a Node HTTP server close connections without losing its last answer: when it closes a
 * connection whose request body is still arriving (a 401, 413 or 415 to a client that sent
 * `Connection: close`), it sends the answer and a FIN, then reads and drops what the client still
 * sends, up to `maxBytes` or `timeoutMs`, before closing. Without it Node closes at once, the
 * unread bytes make the kernel reset the connection, and the client often sees `EPIPE` or
 * `ECONNRESET` instead of the answer.
 *
 * @example
 * import { serve } from "@hono/node-server";
 * import { lingeringClose } from "specroute/node";
 * lingeringClose(serve({ fetch: app.fetch, port: 8787 }));
 */
export function lingeringClose<S extends Server>(server: S, options: LingeringCloseOptions = {}): S {
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 2000;
  // Depends on undocumented Node behaviour: its HTTP/1 server closes a connection after the last answer by calling net.Socket#destroySoon() (itself undocumented), replaced here on each socket; checked on Node 20, 22 and 24 (docs/reliability.md).
  // HTTP/2 sessions never call it, so they are unaffected; @hono/node-server also calls it when its own drain gives up.
  const requests = new WeakMap<Socket, Readable>();
  server.on("request", (request: Readable & { socket: Socket }) => requests.set(request.socket, request));
  server.on("connection", (socket: Socket) => {
    socket.destroySoon = () => linger(socket, requests.get(socket), maxBytes, timeoutMs);
  });
  return server;
}

function linger(socket: Socket, request: Readable | undefined, maxBytes: number, timeoutMs: number): void {
  if (socket.destroyed) return;
  socket.end();
  // Nothing more will arrive, or the app gave up on the body (destroyed it): close as Node does.
  if (!request || request.destroyed || request.readableEnded || !socket.readable) {
    if (socket.writableFinished) socket.destroy();
    else socket.once("finish", () => socket.destroy());
    return;
  }
  let dropped = 0;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, timeoutMs);
  timer.unref();
  // The HTTP parser reads the socket itself and hands the body to the request: drop it there.
  request.on("data", (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > maxBytes) close();
  });
  request.once("end", close);
  socket.once("end", close);
  socket.once("close", () => clearTimeout(timer));
  request.resume();
}
