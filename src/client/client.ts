import type { ClientInput, ItemStream, RequestParts, RouteAnswer, SuccessStatus } from "./route-types";

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The fetch to send requests with (e.g. `app.request` in tests, or one that adds credentials); default `globalThis.fetch`. */
  fetch?: (input: Request) => Response | Promise<Response>;
  /** Headers sent with every request (an API key, a token), or a function returning them per request. */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
}

/** The route map a router type carries: what `createClient<typeof router>` reads. */
type RoutesOf<R> = R extends { "~routes"?: infer S } ? NonNullable<S> : never;

type AnswersAt<S, P, M extends string> = P extends keyof S
  ? `$${M}` extends keyof S[P]
    ? S[P][`$${M}`]
    : never
  : never;

/** The input of a call: derived from the endpoint for specroute routes, Hono's own input for routes of a plain Hono app. */
type InputOf<A, P extends string> = [A] extends [{ "~endpoint"?: [infer I, infer M extends string, any] }]
  ? ClientInput<RequestParts<I, P, M>>
  : A extends { input: infer In }
    ? In
    : never;

/** The arguments after the path: the input (optional when nothing in it is required) and per-call request options. */
type CallArgs<In> = {} extends In ? [input?: In, init?: CallInit] : [input: In, init?: CallInit];

/** Per-call request options: extra headers, an abort signal, and the rest of `RequestInit`. */
export type CallInit = Omit<RequestInit, "method" | "body">;

/**
 * What a call resolves to, one member per status the route can answer: `data` on a 2xx (and 3xx),
 * `error` (in the error format in force) otherwise; `response` is the fetch Response, body already read.
 */
export type ClientResult<A> = A extends RouteAnswer
  ? A["status"] extends SuccessStatus | 300 | 301 | 302 | 303 | 304 | 307 | 308
    ? { ok: true; status: A["status"]; data: A["output"]; error?: undefined; response: Response }
    : { ok: false; status: A["status"]; data?: undefined; error: A["output"]; response: Response }
  : never;

/** Paths of `S` that have a `method` route. */
type PathsWith<S, M extends string> = { [P in keyof S & string]: `$${M}` extends keyof S[P] ? P : never }[keyof S &
  string];

// The path is checked on the argument rather than as P's constraint: inferring a type parameter
// constrained to the paths made the compiler derive every route's types on the first call.
type Method<S, M extends string> = <P extends string>(
  path: P extends PathsWith<S, M> ? P : PathsWith<S, M>,
  ...args: CallArgs<InputOf<AnswersAt<S, P, M>, P>>
) => Promise<ClientResult<AnswersAt<S, P, M>>>;

/**
 * A typed client of router `R`'s routes: one function per method, taking a path as registered.
 *
 * @example
 * const api: Client<typeof routes> = createClient<typeof routes>("https://api.example.com");
 */
export interface Client<R, S = RoutesOf<R>> {
  get: Method<S, "get">;
  head: Method<S, "head">;
  post: Method<S, "post">;
  put: Method<S, "put">;
  patch: Method<S, "patch">;
  delete: Method<S, "delete">;
}

/** A call's input as the runtime reads it (the types above say which members a route takes). */
interface AnyInput {
  param?: Record<string, unknown>;
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  cookie?: Record<string, unknown>;
  json?: unknown;
  form?: Record<string, unknown>;
  multipart?: Record<string, unknown>;
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

/**
 * A typed client for the routes of a specroute router (Hono or itty-router): paths, parameters, query,
 * headers and bodies typed by the endpoints' schemas, answers typed per status. Nothing of the server
 * is imported: the router is only a type here.
 *
 * @example
 * import { createClient } from "specroute/client";
 * import type { TasksApi } from "./app";
 * const api = createClient<TasksApi>("https://tasks.example.com", { headers: { "x-api-key": key } });
 * const created = await api.post("/projects", { json: { name: "Launch" } });
 * if (created.ok) console.log(created.data.result.id);
 * else console.log(created.error.errors[0]?.message);
 */
export function createClient<R>(baseUrl: string, options: ClientOptions = {}): Client<R> {
  const base = baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const call = async (method: string, path: string, input: AnyInput = {}, init: CallInit = {}) => {
    const headers = new Headers(
      typeof options.headers === "function" ? await options.headers() : (options.headers ?? undefined),
    );
    for (const [name, value] of Object.entries(input.header ?? {})) {
      if (value !== undefined) headers.set(name, String(value));
    }
    if (input.cookie) headers.set("cookie", cookieHeader(input.cookie));
    for (const [name, value] of new Headers(init.headers)) headers.set(name, value);
    let body: BodyInit | undefined;
    if (input.json !== undefined) {
      body = JSON.stringify(input.json, bigintAsJson);
      headers.set("content-type", "application/json");
    } else if (input.form) {
      body = new URLSearchParams(formEntries(input.form) as Array<[string, string]>);
    } else if (input.multipart) {
      const form = new FormData();
      for (const [name, value] of formEntries(input.multipart)) form.append(name, value);
      body = form;
    }
    const url = base + fillPath(path, input.param) + queryString(input.query);
    const request = new Request(url, { ...init, method: method.toUpperCase(), headers, body });
    const response = await send(request);
    const parsed = response.ok
      ? (readStream(response, request) ?? (await readBody(response)))
      : await readBody(response);
    // Held until the body is read: undici follows a Request's signal through a weak reference, so an
    // abort would be lost once the Request were collected.
    keepUntilRead(request);
    return response.ok || (response.status >= 300 && response.status < 400)
      ? { ok: true, status: response.status, data: parsed, response }
      : { ok: false, status: response.status, error: parsed, response };
  };
  const client: Record<string, unknown> = {};
  for (const method of METHODS) {
    client[method] = (path: string, input?: AnyInput, init?: CallInit) => call(method, path, input, init);
  }
  return client as unknown as Client<R>;
}

/** `/projects/:id{[0-9]+}` with `{ id: 7 }` → `/projects/7`; values are percent-encoded, an absent optional one dropped. */
export function fillPath(path: string, params: Record<string, unknown> = {}): string {
  return path.replace(
    /\/:([A-Za-z0-9_]+)(\{(?:[^{}]|\{[^{}]*\})*\})?(\?)?/g,
    (_segment, name: string, _pattern, optional) => {
      const value = params[name];
      if (value === undefined || value === null) {
        if (optional) return "";
        throw new TypeError(`Path parameter "${name}" of ${path} is missing`);
      }
      return `/${encodeURIComponent(String(value))}`;
    },
  );
}

/** `?a=1&tag=x&tag=y`: arrays as repeated keys, `undefined` members left out; "" when nothing remains. */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) search.append(name, scalar(one));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function formEntries(values: Record<string, unknown>): Array<[string, string | Blob]> {
  const entries: Array<[string, string | Blob]> = [];
  for (const [name, value] of Object.entries(values)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) entries.push([name, one instanceof Blob ? one : scalar(one)]);
    }
  }
  return entries;
}

function scalar(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

function cookieHeader(cookies: Record<string, unknown>): string {
  return Object.entries(cookies)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(scalar(value))}`)
    .join("; ");
}

/**
 * A streamed answer's items as they arrive: Server-Sent Events as `{ data, event?, id?, retry? }` with
 * `data` parsed from JSON, JSON Lines one value per line. The stream's last `error` event (or error
 * line) is thrown as a {@link StreamError}; leaving the loop early cancels the response. Undefined when
 * the answer is not a stream.
 */
function readStream(response: Response, request: Request): ItemStream<unknown> | undefined {
  const type = (response.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (!response.body) return undefined;
  if (type === "text/event-stream") return events(lines(response, request));
  if (type === "application/jsonl" || type === "application/x-ndjson" || type === "application/jsonlines") {
    return itemStream(jsonLines(lines(response, request)), {});
  }
  return undefined;
}

/** Keeps `message` reachable for as long as the caller's frame is; a no-op the optimizer cannot drop. */
function keepUntilRead(message: Request | Response): void {
  if (message.bodyUsed === undefined) throw new TypeError("not a Request or Response");
}

/**
 * The response body's lines as they arrive (CR LF, LF or CR ended), decoded as UTF-8; the reader is
 * released on exit. `request` is held while the body streams, so aborting its signal ends the stream
 * (see `call`); `response` too, since undici cancels the body of a collected Response that nothing
 * reads yet (an iterator kept while its Response is not, before its first item). The body stays the
 * caller's until the first item is asked for.
 */
async function* lines(response: Response, request: Request): AsyncGenerator<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let end = pending.search(/\r\n|\r|\n/);
      while (end >= 0) {
        const width = pending.startsWith("\r\n", end) ? 2 : 1;
        // A CR at the very end may be the first half of a CR LF still to come.
        if (pending[end] === "\r" && width === 1 && end === pending.length - 1) break;
        yield pending.slice(0, end);
        pending = pending.slice(end + width);
        end = pending.search(/\r\n|\r|\n/);
      }
    }
    pending += decoder.decode();
    if (pending !== "") yield pending;
  } finally {
    keepUntilRead(request);
    keepUntilRead(response);
    await reader.cancel().catch(() => {});
  }
}

/**
 * Server-Sent Events read from their lines, as the HTML standard parses them, with the stream's
 * `lastEventId`: the last `id` field sent, as an EventSource keeps it (a block of only an `id`, which
 * dispatches no event, moves it too). Send it back as `Last-Event-ID` to go on where the stream was.
 */
function events(source: AsyncGenerator<string>): ItemStream<unknown> {
  const place: { lastEventId?: string } = {};
  return itemStream(parseEvents(source, place), place);
}

/** `items` with the `lastEventId` that `place` holds (none in JSON Lines). */
function itemStream(items: AsyncGenerator<unknown>, place: { lastEventId?: string }): ItemStream<unknown> {
  return Object.defineProperty(items, "lastEventId", {
    get: () => place.lastEventId,
    enumerable: true,
  }) as ItemStream<unknown>;
}

async function* parseEvents(source: AsyncGenerator<string>, place: { lastEventId?: string }): AsyncGenerator<unknown> {
  let data: string[] = [];
  let fields: { event?: string; id?: string; retry?: number } = {};
  let lastEventId: string | undefined;
  for await (const line of source) {
    if (line === "") {
      place.lastEventId = lastEventId;
      if (data.length > 0) {
        const event = { data: parseData(data.join("\n")), ...fields };
        if (event.event === "error") throw new StreamError(event.data);
        yield event;
      }
      data = [];
      fields = {};
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "data") data.push(value);
    else if (name === "event") fields.event = value;
    else if (name === "id" && !value.includes("\0")) {
      fields.id = value;
      lastEventId = value;
    } else if (name === "retry" && /^\d+$/.test(value)) fields.retry = Number(value);
  }
}

/** JSON Lines: one value per non-empty line; an error body (the stream failed part-way) is thrown. */
async function* jsonLines(source: AsyncGenerator<string>): AsyncGenerator<unknown> {
  for await (const line of source) {
    if (line.trim() === "") continue;
    const item = JSON.parse(line);
    if (isErrorBody(item)) throw new StreamError(item);
    yield item;
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** specroute's error envelope, or an RFC 9457 problem with its `errors`: what a failing stream ends with. */
function isErrorBody(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const body = item as { success?: unknown; errors?: unknown; type?: unknown; status?: unknown };
  return (
    Array.isArray(body.errors) &&
    (body.success === false || (typeof body.type === "string" && typeof body.status === "number"))
  );
}

/**
 * A streamed answer that failed part-way: the server ended it with an error event or line. `body` is
 * that error body, in the server's error format.
 *
 * @example
 * try { for await (const event of result.data) show(event.data); }
 * catch (err) { if (err instanceof StreamError) console.log(err.body); }
 */
export class StreamError extends Error {
  constructor(readonly body: unknown) {
    const first = (body as { errors?: Array<{ message?: unknown }> } | null)?.errors?.[0]?.message;
    super(typeof first === "string" ? `The stream failed: ${first}` : "The stream failed");
    this.name = "StreamError";
  }
}

/** The body as JSON when the response says so, as text otherwise; `null` when there is none. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return null;
  const type = response.headers.get("content-type") ?? "";
  return /[/+]json\b/i.test(type) ? JSON.parse(text) : text;
}

const MAX_SAFE = 9007199254740991n;

/**
 * A bigint as the route reads one (JSON.stringify refuses them): the JSON integer its document shows
 * while a number holds it exactly, its decimal digits past that (what a JSON number would round).
 */
function bigintAsJson(_key: string, value: unknown): unknown {
  if (typeof value !== "bigint") return value;
  return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : String(value);
}
