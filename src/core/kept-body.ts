import { boundaryOf, type MultipartEntry } from "./multipart";

/** What specroute read of a request's body: its bytes, or the parts of a streamed multipart body. */
type KeptBody =
  | { bytes: Uint8Array; contentType: string | null; parts?: undefined }
  | { bytes?: undefined; contentType: string; parts: MultipartEntry[] };

// On the request itself, not in a WeakMap: itty-router hands handlers a Proxy whose methods are bound to the target.
const KEPT = Symbol("specroute.keptBody");
/** Per prototype of the requests seen (Request, node-server's lazy request, ...), the one serving kept bodies. */
const keptPrototypes = new WeakMap<object, object>();

const encoder = new TextEncoder();
// Request.text() replaces invalid sequences rather than failing, and so does this.
const lenient = new TextDecoder("utf-8");

/** The kept body; a promise while a body read elsewhere (a router's own cache) is still arriving. */
function keptOf(request: Request): KeptBody | Promise<KeptBody> {
  return (request as unknown as Record<symbol, KeptBody | Promise<KeptBody>>)[KEPT]!;
}

/** The body as one Blob: a multipart body is rebuilt around the parts' Files, never copying them. */
function asBlob(body: KeptBody): Blob {
  if (body.parts) return multipartBlob(body.parts, boundaryOf(body.contentType), body.contentType);
  return new Blob([body.bytes as Uint8Array<ArrayBuffer>], { type: body.contentType ?? "" });
}

async function bytesOf(body: KeptBody): Promise<Uint8Array> {
  return body.parts ? new Uint8Array(await asBlob(body).arrayBuffer()) : body.bytes;
}

/** The runtime's own parsing (its errors included), over the kept bytes and the request's Content-Type. */
async function viaResponse(body: KeptBody): Promise<Response> {
  const bytes = (await bytesOf(body)) as Uint8Array<ArrayBuffer>;
  return new Response(bytes, body.contentType === null ? undefined : { headers: { "content-type": body.contentType } });
}

// Shared by every kept request (no closures per request); `this` is the request, as with the native methods.
const METHODS: PropertyDescriptorMap = {
  arrayBuffer: method(async function (this: Request) {
    const body = await keptOf(this);
    if (body.parts) return asBlob(body).arrayBuffer();
    // The bytes specroute holds are handed out, not copied: the same buffer on every call, as Hono's cache does.
    const { bytes } = body;
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
  }),
  bytes: method(async function (this: Request) {
    return new Uint8Array(await this.arrayBuffer());
  }),
  text: method(async function (this: Request) {
    return lenient.decode(await bytesOf(await keptOf(this)));
  }),
  json: method(async function (this: Request) {
    return JSON.parse(await this.text());
  }),
  blob: method(async function (this: Request) {
    return asBlob(await keptOf(this));
  }),
  formData: method(async function (this: Request) {
    const body = await keptOf(this);
    if (!body.parts) return (await viaResponse(body)).formData();
    const form = new FormData();
    for (const { name, value } of body.parts) if (value !== undefined) form.append(name, value);
    return form;
  }),
  // The native clone() refuses a consumed body; this one shares the kept body (no copy) with a new Request.
  clone: {
    configurable: true,
    writable: true,
    value: function clone(this: Request & { cf?: unknown }) {
      const init: RequestInit & { cf?: unknown } = {
        method: this.method,
        headers: this.headers,
        redirect: this.redirect,
        signal: this.signal,
      };
      if (this.cf !== undefined) init.cf = this.cf;
      const copy = new Request(this.url, init);
      install(copy, keptOf(this));
      return copy;
    },
  },
  body: {
    configurable: true,
    get(this: Request) {
      const kept = keptOf(this);
      if (!(kept instanceof Promise) && kept.parts) return asBlob(kept).stream();
      return new ReadableStream<Uint8Array>({
        async start(controller) {
          const body = await kept;
          const bytes = body.parts ? await bytesOf(body) : body.bytes;
          if (bytes.byteLength > 0) controller.enqueue(bytes);
          controller.close();
        },
      });
    },
  },
  // Every body method answers again, so the body counts as unread.
  bodyUsed: { configurable: true, get: () => false },
};

function method(fn: (this: Request) => Promise<unknown>): PropertyDescriptor {
  return { configurable: true, writable: true, value: fn };
}

/**
 * Makes a body specroute has read readable again: the request's body methods (`json`, `text`,
 * `arrayBuffer`, `bytes`, `blob`, `formData`, `body`, `clone`) answer from `bytes`, lazily, through a
 * prototype inserted between the request and its own, so a handler that never reads the body pays
 * no copy and no decoding.
 */
export function keepBody(request: Request, bytes: Uint8Array, contentType: string | null): void {
  install(request, { bytes, contentType });
}

/**
 * The same for a streamed multipart body, whose raw bytes were never held: `formData()` gives the parts
 * specroute kept (dropped undeclared files are absent), and the other methods a multipart body rebuilt
 * from them with the request's own boundary, so its Content-Type still describes it.
 */
export function keepMultipart(request: Request, parts: MultipartEntry[], contentType: string): void {
  install(request, { parts, contentType });
}

/** Which of a router's cached reads to take, most exact first. */
const CACHE_KEYS = ["arrayBuffer", "text", "blob", "json", "formData"] as const;

/**
 * Serves a body that was already read into a cache keyed by body method (Hono's `c.req.bodyCache`,
 * filled when a middleware called `c.req.json()`): specroute then reads that copy, not the consumed
 * stream, and the request's body methods answer from it as after specroute's own read.
 */
export function keepCachedBody(request: Request, cache: Record<string, Promise<unknown> | undefined>): void {
  const key = CACHE_KEYS.find((name) => cache[name] !== undefined);
  if (key === undefined) return;
  const contentType = request.headers.get("content-type");
  const body = cache[key]!.then((value) => fromCache(value, contentType));
  // A route that declares no body never awaits it; its failure is the reader's to see, not an unhandled one.
  body.catch(() => {});
  install(request, body);
}

async function fromCache(value: unknown, contentType: string | null): Promise<KeptBody> {
  if (typeof value === "string") return { bytes: encoder.encode(value), contentType };
  if (value instanceof ArrayBuffer) return { bytes: new Uint8Array(value), contentType };
  if (value instanceof Blob) return { bytes: new Uint8Array(await value.arrayBuffer()), contentType };
  if (value instanceof FormData) {
    const parts = [...value].map(([name, part]) => ({ name, value: part }));
    if (contentType !== null && /^\s*multipart\/form-data/i.test(contentType)) return { parts, contentType };
    const form = new URLSearchParams();
    for (const { name, value: part } of parts) form.append(name, typeof part === "string" ? part : part.name);
    return { bytes: encoder.encode(form.toString()), contentType };
  }
  // A parsed JSON value: written back as JSON, as Hono itself does to serve another method.
  return { bytes: encoder.encode(JSON.stringify(value)), contentType };
}

// One symbol property, then one prototype swap (in that order, the cheaper): far cheaper than own methods.
function install(request: Request, body: KeptBody | Promise<KeptBody>): void {
  // A frozen request-like object cannot take it; its body simply stays read, as before.
  if (!Object.isExtensible(request)) return;
  (request as unknown as Record<symbol, KeptBody | Promise<KeptBody>>)[KEPT] = body;
  const prototype = Object.getPrototypeOf(request) as object;
  let keptPrototype = keptPrototypes.get(prototype);
  if (keptPrototype === undefined) {
    keptPrototype = Object.create(prototype, METHODS) as object;
    keptPrototypes.set(prototype, keptPrototype);
    // A request read twice (validated again) keeps its prototype.
    keptPrototypes.set(keptPrototype, keptPrototype);
  }
  if (keptPrototype !== prototype) Object.setPrototypeOf(request, keptPrototype);
}

/** A multipart body of `parts` delimited by `boundary`; Files are referenced, not read. */
function multipartBlob(parts: MultipartEntry[], boundary: string, contentType: string): Blob {
  const chunks: BlobPart[] = [];
  for (const { name, value } of parts) {
    if (value === undefined) continue;
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"`;
    if (typeof value === "string") {
      chunks.push(encoder.encode(`${head}\r\n\r\n`), encoder.encode(value), "\r\n");
    } else {
      head += `; filename="${escapeName(value.name)}"\r\nContent-Type: ${value.type || "application/octet-stream"}`;
      chunks.push(encoder.encode(`${head}\r\n\r\n`), value, "\r\n");
    }
  }
  chunks.push(`--${boundary}--\r\n`);
  return new Blob(chunks, { type: contentType });
}

/** Quotes, CR and LF in a name are percent-encoded, as browsers write them. */
function escapeName(name: string): string {
  return name.replace(/["\r\n]/g, (c) => (c === '"' ? "%22" : c === "\r" ? "%0D" : "%0A"));
}
