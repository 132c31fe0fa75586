import { concatBytes, cutOffError, isLength, readBodyBytes } from "../core/request/incoming";
import { runtimeAddress } from "./runtime-address";

/** The part of Node's `http.IncomingMessage` specroute reads (duck-typed: no Node import in a Workers bundle). */
export interface NodeIncomingMessage {
  headers: Record<string, string | string[] | undefined>;
  readableDidRead: boolean;
  readableEnded: boolean;
  listenerCount(event: string): number;
  on(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * The Node request under `request`, when @hono/node-server passed it in the environment (`env.incoming`)
 * and `request` is the lightweight Request it made from it: then headers are read from it as they
 * arrived and a body of declared length is taken from it as it arrives, with no Headers object and no
 * copy. Undefined otherwise: on Workers, Bun and Deno, and for a Request the app built itself (which may
 * carry other headers or another body than the Node request).
 */
export function nodeRequestOf(env: unknown, request: Request): NodeIncomingMessage | undefined {
  const incoming = (env as { incoming?: unknown } | null | undefined)?.incoming;
  if (typeof incoming !== "object" || incoming === null || typeof (incoming as NodeIncomingMessage).on !== "function")
    return undefined;
  if (typeof (incoming as NodeIncomingMessage).headers !== "object") return undefined;
  // node-server's lightweight request is a plain prototype object over Request.prototype: no class, no constructor.
  const prototype = Object.getPrototypeOf(request) as object | null;
  if (prototype === null || Object.hasOwn(prototype, "constructor")) return undefined;
  if (Object.getPrototypeOf(prototype) !== globalThis.Request?.prototype) return undefined;
  return incoming as NodeIncomingMessage;
}

/** A header of the Node request by lower-case name, as a fetch Headers would give it; null when absent. */
export function nodeHeader(incoming: NodeIncomingMessage, name: string): string | null {
  // Own headers only: a header named `__proto__` must not read the object's prototype.
  const value = Object.hasOwn(incoming.headers, name) ? incoming.headers[name] : undefined;
  if (value === undefined) return null;
  return typeof value === "string" ? value : value.join(name === "cookie" ? "; " : ", ");
}

/** Whether the Node request's body can be read here: nothing has read it or started to. */
function bodyUnread(incoming: NodeIncomingMessage): boolean {
  return !incoming.readableDidRead && !incoming.readableEnded && incoming.listenerCount("data") === 0;
}

/**
 * The body of a request that declares its `length` (checked against the limit before), read from the
 * Node request as it arrives: null when there is no Node request or its body cannot be read here (no
 * declared length, or read already), and the fetch Request's own reader is used instead.
 */
export function readNodeBody(incoming: NodeIncomingMessage | null, length: number | null): Promise<Uint8Array> | null {
  if (incoming === null || !isLength(length) || !bodyUnread(incoming)) return null;
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const onData = (chunk: Uint8Array) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    };
    const onEnd = () => settle(() => resolve(concatBytes(chunks, size)));
    // Either is the client's doing (it closed the connection part-way): a 400, never a 500.
    const onError = (err: unknown) => settle(() => reject(cutOffError(err)));
    const onClose = () => settle(() => reject(cutOffError(undefined)));
    const settle = (done: () => void) => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
      done();
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

/**
 * What the Hono and itty-router adapters' requests share: headers and a body read through the fetch
 * Request, or, under @hono/node-server, through the Node request beneath it (see `nodeRequestOf`).
 */
export abstract class NodeBackedIncoming {
  abstract readonly request: Request;
  /** The Node request under it, looked up when first read; null when there is none. */
  private nodeRequest: NodeIncomingMessage | null | undefined;
  /** The fetch Request's headers, once read. */
  private headers: Headers | undefined;

  /** The router's environment, where @hono/node-server passes the Node request (`env.incoming`). */
  protected abstract bindings(): unknown;

  header(name: string): string | null {
    const node = this.node();
    if (node) return nodeHeader(node, name);
    // The Headers read once: on Workers each `request.headers` is a call into the runtime.
    this.headers ??= this.request.headers;
    return this.headers.get(name);
  }

  /** The client's address as the runtime gives it (see `runtimeAddress`). */
  clientAddress(): string | null | undefined {
    return runtimeAddress(this.bindings(), this.request, this);
  }

  /** The body's bytes (see `IncomingRequest.readBytes`), from the Node request when it can give them. */
  protected readOwnBytes(limit: number, length: number | null): Promise<Uint8Array | null> {
    return readNodeBody(this.node(), length) ?? readBodyBytes(this.request, length, limit);
  }

  private node(): NodeIncomingMessage | null {
    if (this.nodeRequest === undefined) this.nodeRequest = nodeRequestOf(this.bindings(), this.request) ?? null;
    return this.nodeRequest;
  }
}
