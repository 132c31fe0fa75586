import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { Router } from "itty-router";
import { afterEach, beforeEach } from "vitest";
import { fromHono, fromIttyRouter, type RouterOptions } from "../src";

/** A router wrapper plus a way to send it a request in-process, the same for every adapter. */
export interface TestApp {
  router: any;
  /** Errors that reached the router's own error handler (Hono's onError, itty-router's catch). */
  caught: unknown[];
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Hands a Request to the app as a server would, with the server's environment. */
  serveWith(request: Request, env: unknown): Promise<Response | undefined> | Response;
  /**
   * Over HTTP only: the request sent from another loopback address of this machine (`127.0.0.2`), as a
   * second client at its own address would send it.
   */
  requestFrom?(
    localAddress: string,
    path: string,
    init?: { method?: string; headers?: Record<string, string> },
  ): Promise<Response>;
}

export interface AdapterHarness {
  name: "hono" | "itty-router";
  /** How requests reach the app: handed to it in-process, or over HTTP on 127.0.0.1. */
  transport?: "http";
  make(options?: RouterOptions): TestApp;
  /** A router of the same kind to mount inside another with `route(prefix, nested)`. */
  nested(options?: RouterOptions): any;
}

export const honoHarness: AdapterHarness = {
  name: "hono",
  make(options) {
    const app = new Hono();
    const caught: unknown[] = [];
    // As a chanfana app's onError: framework errors arrive as HTTPExceptions, the rest as thrown.
    app.onError((err, c) => {
      caught.push(err);
      return err instanceof HTTPException ? err.getResponse() : c.text("router 500", 500);
    });
    const router = fromHono(app, options);
    return {
      router,
      caught,
      request: async (path, init) => app.request(path, init),
      serveWith: (request, env) => app.fetch(request, env as any),
    };
  },
  nested: (options) => fromHono(new Hono(), options),
};

export const ittyHarness: AdapterHarness = {
  name: "itty-router",
  make(options) {
    const caught: unknown[] = [];
    const itty = Router({
      catch: (err: unknown) => {
        caught.push(err);
        return new Response("router 500", { status: 500 });
      },
    });
    const router = fromIttyRouter(itty, options);
    const serveWith = async (request: Request, env: unknown) =>
      ((await itty.fetch(request, env)) as Response | undefined) ?? new Response("no route", { status: 404 });
    return {
      router,
      caught,
      request: async (path, init) => serveWith(new Request(`http://localhost${path}`, init), undefined),
      serveWith,
    };
  },
  nested: (options) => fromIttyRouter(Router(), options),
};

export const harnesses = [honoHarness, ittyHarness];

/** The servers the HTTP harnesses started; `closeHttpHarnesses()` stops them. */
const started: Array<Promise<{ origin: string; close(): Promise<void> }>> = [];

/**
 * The same adapter served over real HTTP on 127.0.0.1 by @hono/node-server, which hands the app the
 * Node request in its environment: what specroute then reads headers and bodies from. Under Bun and
 * Deno (the runtime matrix), by the runtime's own server instead.
 */
function overHttp(harness: AdapterHarness): AdapterHarness {
  return {
    ...harness,
    transport: "http",
    make(options) {
      const inProcess = harness.make(options);
      let server: Promise<{ origin: string; close(): Promise<void> }> | undefined;
      const serveApp = () => {
        server ??= listenOnLoopback(
          (request, env) => inProcess.serveWith(request, env) as Response | Promise<Response>,
        );
        if (!started.includes(server)) started.push(server);
        return server;
      };
      return {
        ...inProcess,
        request: async (path, init) => fetch(`${(await serveApp()).origin}${path}`, init),
        requestFrom: async (localAddress, path, init) =>
          requestFrom(localAddress, `${(await serveApp()).origin}${path}`, init),
      };
    },
  };
}

export const httpHarnesses = [overHttp(honoHarness), overHttp(ittyHarness)];

/** Stops every server the HTTP harnesses started. */
export async function closeHttpHarnesses(): Promise<void> {
  for (const server of started.splice(0)) await (await server).close();
}

/**
 * A bodiless request sent with node:http from `localAddress` (any of 127.0.0.0/8 on Linux), which fetch
 * cannot choose: the server sees a client at that address. Runs on Node, Bun and Deno.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method: init.method ?? "GET", headers: init.headers, localAddress }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("error", reject);
      answer.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? ""]) headers.append(name, one);
        }
        resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode, headers }));
      });
    });
    sent.on("error", reject);
    sent.end();
  });
}

/** JSON request init for a body. */
export function jsonBody(body: unknown, init: RequestInit = {}): RequestInit {
  return {
    method: "POST",
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/** Resolves once `condition()` holds, checking every 10 ms, or after `timeoutMs` (the caller's assertion then fails). */
export async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Validates an OpenAPI document against the official schema of its version; returns the errors. */
export async function documentErrors(doc: unknown): Promise<unknown> {
  const validator = new Validator();
  const result = await validator.validate(doc as any);
  return result.valid ? null : result.errors;
}

/** What the code under test sends to `console.error` during each test of the calling file, one array per call. */
export function captureConsoleErrors(): unknown[][] {
  const logged: unknown[][] = [];
  const original = console.error;
  beforeEach(() => {
    logged.length = 0;
    console.error = (...args: unknown[]) => logged.push(args);
  });
  afterEach(() => {
    console.error = original;
  });
  return logged;
}

/** The server `listenOnLoopback` starts on this runtime, for test titles. */
export const loopbackServer: string =
  "Bun" in globalThis ? "Bun.serve" : "Deno" in globalThis ? "Deno.serve" : "@hono/node-server";

/**
 * A real HTTP server on 127.0.0.1 (an ephemeral port) in front of `fetch`: the runtime's own server under
 * Bun (`Bun.serve`) and Deno (`Deno.serve`), handing the app what each hands it, and @hono/node-server on Node.
 */
export function listenOnLoopback(
  fetch: (request: Request, env: any) => Response | Promise<Response>,
): Promise<{ origin: string; close(): Promise<void> }> {
  // Neither global is typed here: the test code is checked against Node's types only.
  const { Bun, Deno } = globalThis as any;
  if (Bun) {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request: Request, bun: unknown) => fetch(request, bun),
    });
    return Promise.resolve({ origin: `http://127.0.0.1:${server.port}`, close: () => server.stop(true) });
  }
  if (Deno) {
    return new Promise((resolve) => {
      const server = Deno.serve(
        {
          hostname: "127.0.0.1",
          port: 0,
          onListen: ({ port }: { port: number }) =>
            resolve({ origin: `http://127.0.0.1:${port}`, close: () => server.shutdown() }),
        },
        (request: Request, info: unknown) => fetch(request, info),
      );
    });
  }
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
      resolve({
        origin: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            (server as http.Server).closeAllConnections?.();
            server.close(() => done());
          }),
      }),
    );
  });
}
