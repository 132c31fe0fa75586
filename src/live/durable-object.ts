import type { ChangeBroker } from "./types";

/** The part of a Durable Object namespace binding (`env.LIVE_CHANGES`) the broker uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** The part of a Durable Object's state (`ctx`) the broker's object uses: the WebSocket hibernation API. */
export interface DurableObjectStateLike {
  acceptWebSocket(socket: WebSocket): void;
  getWebSockets(): WebSocket[];
}

/** What workerd adds to the WebSocket and Response of the standard (no types without @cloudflare/workers-types). */
type WorkersWebSocket = WebSocket & { accept(): void };
type WebSocketPairConstructor = new () => { 0: WebSocket; 1: WebSocket };

/** Milliseconds before a watch whose socket closed opens a new one. */
const REOPEN_MS = 1000;

/**
 * The broker of a live collection on Workers: one Durable Object per collection (by name, in the
 * namespace bound to {@link LiveChangesObject}) that holds a WebSocket for each watching listener and
 * tells them all, on `committed`, that the log grew. The listeners then read the log (D1's change log)
 * themselves: the object keeps no changes, so it loses none when it is evicted. Each watch has its own
 * socket, because on Workers a socket belongs to the request that opened it. A socket that closes (the
 * object moved or was redeployed) wakes its watcher, which reads what it may have missed, and is
 * opened again a second later for as long as the watch lasts.
 *
 * @example
 * // wrangler.jsonc: "durable_objects": { "bindings": [{ "name": "LIVE_CHANGES", "class_name": "LiveChangesObject" }] }
 * export { LiveChangesObject } from "specroute";
 */
export function durableObjectBroker(namespace: DurableObjectNamespaceLike): ChangeBroker {
  const objectOf = (collection: string) => namespace.get(namespace.idFromName(collection) as never);

  const open = async (collection: string): Promise<WorkersWebSocket> => {
    const response = await objectOf(collection).fetch("https://live/watch", { headers: { Upgrade: "websocket" } });
    const socket = (response as Response & { webSocket?: WorkersWebSocket | null }).webSocket;
    if (!socket)
      throw new Error(
        `The live collection ${collection}'s Durable Object answered ${response.status}, not a WebSocket`,
      );
    socket.accept();
    return socket;
  };

  return {
    async watch(collection, wake) {
      let watching = true;
      let socket = await open(collection);
      let reopening: ReturnType<typeof setTimeout> | undefined;
      const follow = (current: WorkersWebSocket) => {
        current.addEventListener("message", () => wake());
        current.addEventListener("close", () => {
          if (!watching || current !== socket) return;
          // What committed while no socket listened is in the log: one read now, one when a socket is back.
          wake();
          reopening = setTimeout(function reopen() {
            if (!watching) return;
            open(collection).then(
              (next) => {
                if (!watching) return next.close(1000);
                socket = next;
                follow(next);
                wake();
              },
              () => {
                reopening = setTimeout(reopen, REOPEN_MS);
              },
            );
          }, REOPEN_MS);
        });
      };
      follow(socket);
      return async () => {
        watching = false;
        clearTimeout(reopening);
        socket.close(1000, "unwatched");
      };
    },
    async committed(collection) {
      try {
        const response = await objectOf(collection).fetch("https://live/committed", { method: "POST" });
        await response.body?.cancel();
      } catch (error) {
        // The write has committed and answers; its listeners read it at the next wake.
        console.error(`[specroute] waking the listeners of ${collection} failed:`, error);
      }
    },
  };
}

/**
 * The Durable Object class of {@link durableObjectBroker}: export it from the Worker and bind it (as
 * `LIVE_CHANGES`, the name a change feed looks for on D1 unless its `durableObject` option names
 * another). It accepts listeners' WebSockets with the hibernation API, so an object whose listeners
 * are idle is evicted from memory while their sockets stay open, and sends each a message when a
 * write to its collection committed.
 */
export class LiveChangesObject {
  constructor(
    private readonly ctx: DurableObjectStateLike,
    _env?: unknown,
  ) {}

  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/watch") {
      if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
        return new Response("Expected a WebSocket upgrade", { status: 426 });
      }
      const Pair = (globalThis as { WebSocketPair?: WebSocketPairConstructor }).WebSocketPair;
      if (!Pair) return new Response("LiveChangesObject runs in workerd", { status: 501 });
      const pair = new Pair();
      this.ctx.acceptWebSocket(pair[1]);
      return new Response(null, { status: 101, webSocket: pair[0] } as ResponseInit);
    }
    if (pathname === "/committed" && request.method === "POST") {
      for (const socket of this.ctx.getWebSockets()) {
        try {
          socket.send("grew");
        } catch {
          // A socket closing as the message goes out: its watcher reads the log when it reopens.
        }
      }
      return new Response(null, { status: 204 });
    }
    return new Response("Not found", { status: 404 });
  }

  /** Listeners send nothing; a message is ignored. */
  webSocketMessage(): void {}

  /** Completes the close a listener began. */
  webSocketClose(socket: WebSocket, code: number, reason: string): void {
    try {
      socket.close(code === 1005 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }
}
