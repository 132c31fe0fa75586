/**
 * The client's address as the runtime serving the request gives it, as text; `null` where the runtime's own
 * value is there but names no address for this request (the socket already closed: the client reset it or
 * closed its side; Bun's `requestIP` answering null; a Deno connection without a host name); undefined where
 * the environment holds no runtime value that gives one. Read only from what the runtime sets, never from a
 * header a client could send itself:
 *
 * - Node (`@hono/node-server`): the socket's peer, from the Node request in `env.incoming`;
 * - Bun: `server.requestIP(request)`, the server being `env` (Bun.serve's second argument) or `env.server`;
 * - Deno: `env.remoteAddr` (Deno.serve's handler info);
 * - Cloudflare Workers: `CF-Connecting-IP`, which Cloudflare sets, on a request that carries the runtime's
 *   own `cf` object (no client can give a request one).
 *
 * `env` is what the router's environment is (Hono's `c.env`, itty-router's second argument), as Hono's
 * own `getConnInfo` helpers read it on each runtime.
 */
export function runtimeAddress(
  env: unknown,
  request: Request,
  headers: { header(name: string): string | null },
): string | null | undefined {
  const bindings = env as RuntimeEnv | null | undefined;
  // Node forgets a socket's peer once the socket is closed, so a client gone by now reads as none (null).
  const socket = bindings?.incoming?.socket;
  if (typeof socket === "object" && socket !== null) return stringOrNull(socket.remoteAddress);
  const server = typeof bindings?.requestIP === "function" ? bindings : bindings?.server;
  if (typeof server?.requestIP === "function") return stringOrNull(server.requestIP(request)?.address);
  const remote = bindings?.remoteAddr;
  if (typeof remote === "object" && remote !== null) return stringOrNull(remote.hostname);
  // A property read, not `in`: an itty-router request is a Proxy answering path parameters by name (strings).
  const cf = (request as { cf?: unknown }).cf;
  if (typeof cf === "object" && cf !== null) return headers.header("cf-connecting-ip") ?? undefined;
  return undefined;
}

/** What the runtimes put in the environment, as far as an address is read from it. */
interface RuntimeEnv {
  incoming?: { socket?: { remoteAddress?: unknown } };
  requestIP?: BunServer["requestIP"];
  server?: BunServer;
  remoteAddr?: { hostname?: unknown } | null;
}

interface BunServer {
  requestIP?(request: Request): { address?: unknown } | null | undefined;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
