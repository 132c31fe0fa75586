import type { z } from "zod";
import { NotAcceptableException, ResponseValidationException } from "../../errors/exceptions";
import {
  type ErrorFormat,
  exceptionBody,
  type HandlerZodErrors,
  JSON_CONTENT_TYPE,
  toApiException,
} from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import { parseStandard, seam, standardSchemaOf } from "../../schema";
import { essenceOf, isJsonEssence } from "../media-type";
import type { ContentObject, OpenAPIRouteSchema } from "../schema-types";
import { type MediaOffer, negotiate, type Offer, type Serializer } from "./negotiate";

/**
 * Turns what `handle` returned into a Response, and checks it against the declared response schemas;
 * compiled once per route.
 */
export class ResponsePlan {
  /** Whether the router's `validateResponse` option asks for every result to be checked. */
  readonly validates: boolean;
  /** The zod schema of each status's JSON response (`default` included), looked up per result. */
  private readonly schemas: ReadonlyMap<string, z.ZodType>;
  /**
   * The media types data returned by `handle()` can be written in, when the 200 declares several (or
   * one that is not JSON) and the router can write them: the request's `Accept` chooses. Null: JSON.
   */
  readonly offers: readonly Offer[] | null;
  /** The streamed media types (`text/event-stream`, JSON Lines) the 200 declares, for an async iterable result. */
  readonly streams: readonly StreamOffer[];
  /** Whether an answer depends on the request's `Accept`: several formats to choose from. */
  readonly readsAccept: boolean;

  constructor(
    schema: OpenAPIRouteSchema,
    validateResponse: boolean,
    serializers: Readonly<Record<string, Serializer>> = {},
    private readonly failing: StreamFailureOptions = DEFAULT_FAILING,
  ) {
    this.validates = validateResponse;
    const bodies = new Map<string, z.ZodType>();
    for (const [status, response] of Object.entries(schema.responses ?? {})) {
      const content = response?.content ?? {};
      // The JSON one when there is one, else the first zod schema of another media type.
      const body = [content["application/json"]?.schema, ...Object.values(content).map((media) => media?.schema)].find(
        seam.isSchema,
      );
      if (body) bodies.set(status, body);
    }
    this.schemas = bodies;
    this.streams = streamOffersOf(schema.responses?.["200"]?.content);
    const ok = schema.responses?.["200"]?.content;
    this.offers = offersOf(
      Object.keys(ok ?? {}).filter((mediaType) => !this.streams.some((stream) => stream.mediaType === mediaType)),
      serializers,
    );
    this.readsAccept = this.offers !== null || this.streams.length > 1;
  }

  /** The JSON schema declared for `status`, else the `default` response's. */
  responseSchema(status: number): z.ZodType | undefined {
    return this.schemas.get(String(status)) ?? this.schemas.get("default");
  }

  /**
   * `result` checked and stripped by its schema: a JSON Response by its status's, a plain object by
   * the 200 one. Anything else, or without a zod schema, passes unchanged; a mismatch throws the ZodError.
   */
  async validateResponse(result: unknown): Promise<unknown> {
    // A stream's items are checked one by one as they are written.
    if (result === null || typeof result !== "object" || isAsyncIterable(result)) return result;
    if (!isResponse(result)) {
      const schema = this.responseSchema(200);
      return schema ? parseOutput(schema, result) : result;
    }
    const schema = this.responseSchema(result.status);
    if (!schema || !result.headers.get("content-type")?.includes("application/json")) return result;
    const body = await parseOutput(schema, await result.clone().json());
    // The body is rewritten, so length and transfer headers of the original no longer apply.
    const headers = new Headers(result.headers);
    headers.delete("content-length");
    headers.delete("transfer-encoding");
    return new Response(toJsonText(body), { status: result.status, statusText: result.statusText, headers });
  }

  /**
   * A `Response` passes untouched; `undefined` is 204; a string is text; anything else is 200 JSON, or,
   * where the 200 offers several media types, the one `accept` (the request's header) prefers (406 when
   * it takes none).
   */
  toResponse(result: unknown, accept: string | null = null, request?: Request): Response {
    if (isResponse(result)) return result;
    if (result === undefined) return new Response(null, { status: 204 });
    if (isAsyncIterable(result)) return this.toStream(result, accept, request);
    if (typeof result === "string") {
      return new Response(result, { status: 200, headers: { "content-type": "text/plain;charset=UTF-8" } });
    }
    if (this.offers === null) return jsonResponse(result, 200);
    const chosen = negotiate(accept, this.offers);
    if (chosen === null) {
      throw new NotAcceptableException(
        `This answer comes as ${this.offers.map((offer) => offer.mediaType).join(" or ")}: send an Accept header that takes one`,
      );
    }
    const body = chosen.serialize(result);
    return new Response(body as BodyInit, {
      status: 200,
      headers: { "content-type": chosen.mediaType, vary: "Accept" },
    });
  }

  private toStream(items: AsyncIterable<unknown>, accept: string | null, request: Request | undefined): Response {
    if (this.streams.length === 0) {
      throw new TypeError(
        "handle() returned an async iterable, but the route's 200 declares no text/event-stream or application/jsonl content to stream it as",
      );
    }
    const chosen = negotiate(accept, this.streams);
    if (chosen === null) {
      throw new NotAcceptableException(
        `This answer streams as ${this.streams.map((offer) => offer.mediaType).join(" or ")}: send an Accept header that takes one`,
      );
    }
    const response =
      request?.method === "HEAD"
        ? headOfStream(items, chosen)
        : streamResponse(items, chosen, this.validates, (thrown) => this.failureBody(thrown, request));
    if (this.streams.length > 1) response.headers.set("vary", "Accept");
    return response;
  }

  /**
   * The error body a stream that fails part-way ends with, in the route's error format. Its headers are
   * long sent, so a hidden failure's request id goes to the log only.
   */
  private failureBody(thrown: unknown, request: Request | undefined): unknown {
    const { errorFormat, handlerZodErrors, label } = this.failing;
    const exception = toApiException(thrown, handlerZodErrors);
    if (needsRequestId(exception)) {
      const requestId = requestIdFor(request);
      console.error(`[specroute] ${exception.status} while streaming ${label}, request id ${requestId}:`, thrown);
    }
    return exceptionBody(exception, errorFormat);
  }
}

/** How a route reports a stream that fails part-way: fixed when it is compiled. */
export interface StreamFailureOptions {
  readonly errorFormat: ErrorFormat;
  readonly handlerZodErrors: HandlerZodErrors;
  /** The route's name in the log. */
  readonly label: string;
}

const DEFAULT_FAILING: StreamFailureOptions = {
  errorFormat: "envelope",
  handlerZodErrors: "validation",
  label: "a route",
};

/**
 * What data can be written as for the 200's declared media types: JSON ones by the framework, others by
 * the router's `serializers` (types without one are for handlers that return a Response). Null when
 * there is nothing to choose: no type, or JSON alone.
 */
function offersOf(mediaTypes: string[], serializers: Readonly<Record<string, Serializer>>): Offer[] | null {
  const offers: Offer[] = [];
  for (const mediaType of mediaTypes) {
    const essence = essenceOf(mediaType);
    const serialize = isJsonEssence(essence)
      ? toJsonText
      : Object.hasOwn(serializers, essence)
        ? serializers[essence]
        : undefined;
    if (serialize) offers.push({ mediaType, essence, serialize });
  }
  // JSON in any of its spellings is written as today: negotiation starts where another format is offered.
  if (offers.every((offer) => offer.serialize === toJsonText)) return null;
  return offers;
}

/**
 * chanfana's `jsonResp`: `data` as a JSON response, 200 unless `params` (a `ResponseInit`) says
 * otherwise; headers given in `params` are added to the JSON content type.
 *
 * @example
 * return jsonResp({ id: 1 }, { status: 201 });
 */
export function jsonResp(data: unknown, params?: ResponseInit): Response {
  if (params === undefined) return jsonResponse(data, 200);
  const status = params.status ?? 200;
  // One Response, built once: its headers a plain record unless the caller's need merging.
  let headers: HeadersInit = { "content-type": JSON_CONTENT_TYPE };
  if (params.headers !== undefined) {
    headers = new Headers(headers);
    for (const [name, value] of new Headers(params.headers)) headers.set(name, value);
  }
  // A spread init is slow to build; it is needed only for members beyond these (statusText, Workers' cf, ...).
  const init = onlyStatusAndHeaders(params) ? { status, headers } : { ...params, status, headers };
  return new Response(toJsonText(data), init);
}

function onlyStatusAndHeaders(params: ResponseInit): boolean {
  for (const key in params) if (key !== "status" && key !== "headers") return false;
  return true;
}

/**
 * A JSON response; bigint values are written as JSON integers (see `toJsonText`). Each gets a
 * headers object of its own: @hono/node-server 1.x's Response keeps the init's and writes Content-Length
 * into it.
 */
export function jsonResponse(data: unknown, status: number): Response {
  return new Response(toJsonText(data), { status, headers: { "content-type": JSON_CONTENT_TYPE } });
}

/**
 * `value` as JSON text; a bigint is written as the JSON integer the document shows for it (`integer`,
 * `int64`), digit for digit, rather than failing the answer. Undefined for what JSON cannot hold at the
 * top (`undefined`, a function), as `JSON.stringify` gives.
 */
export function toJsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return withIntegers(value);
  }
}

type RawJson = (text: string) => unknown;
const rawJson = (JSON as unknown as { rawJSON?: RawJson }).rawJSON;
// Where the runtime has no JSON.rawJSON (Node 20): a string no client can send (a NUL and a random tag,
// made on first use, since Workers refuse randomness at start-up) stands for the digits, then is swapped.
let digitsMark: { prefix: string; written: RegExp } | undefined;

function withIntegers(value: unknown): string {
  if (rawJson) {
    const raw = rawJson;
    return JSON.stringify(value, (_key, member) => (typeof member === "bigint" ? raw(String(member)) : member));
  }
  digitsMark ??= digitsMarkOf(crypto.randomUUID());
  const { prefix, written } = digitsMark;
  const text = JSON.stringify(value, (_key, member) => (typeof member === "bigint" ? prefix + String(member) : member));
  return text.replace(written, "$1");
}

/** The mark for `tag`, and the mark as JSON.stringify writes it (the NUL as the six characters \u0000) with its digits. */
function digitsMarkOf(tag: string): { prefix: string; written: RegExp } {
  return { prefix: `\u0000${tag}:`, written: new RegExp(`"\\\\u0000${tag}:(-?\\d+)"`, "g") };
}

// Streamed answers: `handle()` returns an async iterable and each item goes out as it comes, as a
// Server-Sent Event or a JSON Lines line, pulled only as fast as the client reads.

/** How a streamed media type frames its items. */
export type StreamFormat = "sse" | "jsonl";

const FORMATS: Readonly<Record<string, StreamFormat>> = {
  "text/event-stream": "sse",
  "application/jsonl": "jsonl",
  "application/x-ndjson": "jsonl",
  "application/jsonlines": "jsonl",
};

/** A streamed media type a 200 declares, and the schema of one of its items. */
export interface StreamOffer extends MediaOffer {
  readonly format: StreamFormat;
  /** Checks each item when the router validates responses; null for a plain JSON Schema or none. */
  readonly itemSchema: z.ZodType | null;
}

/** What a stream does with a failure part-way: the error body its last event or line carries. */
export type StreamFailure = (thrown: unknown) => unknown;

/** Whether a media type is one specroute streams (`text/event-stream`, JSON Lines). */
export function streamFormatOf(mediaType: string): StreamFormat | undefined {
  return FORMATS[essenceOf(mediaType)];
}

/** The streamed media types of a response's content, in declared order; empty when it streams nothing. */
export function streamOffersOf(content: ContentObject | undefined): StreamOffer[] {
  const offers: StreamOffer[] = [];
  for (const [mediaType, media] of Object.entries(content ?? {})) {
    const format = streamFormatOf(mediaType);
    if (!format || !media) continue;
    const item = "itemSchema" in media ? media.itemSchema : undefined;
    offers.push({ mediaType, essence: essenceOf(mediaType), format, itemSchema: seam.isSchema(item) ? item : null });
  }
  return offers;
}

/**
 * A heartbeat among a stream's items, which keeps idle proxies from closing it: in SSE a comment line,
 * or, given `id`, a block of only that `id` field, which sets an EventSource's last event ID without
 * dispatching an event (the place a client cut off now reconnects from); nothing in JSON Lines.
 */
export interface StreamHeartbeat {
  readonly heartbeat: true;
  readonly id?: string;
}

// A class of its own, so no item a handler yields (a plain `{ heartbeat: true }`) is ever taken for one.
class Heartbeat implements StreamHeartbeat {
  readonly heartbeat = true;
  constructor(readonly id?: string) {
    Object.freeze(this);
  }
}

/** The heartbeat item (see `StreamHeartbeat`): never checked against the item schema, never data. */
export const STREAM_HEARTBEAT: StreamHeartbeat = new Heartbeat();

/** A heartbeat that tells an SSE client its place: `id` is what it sends back as `Last-Event-ID`. */
export function streamPosition(id: string): StreamHeartbeat {
  return new Heartbeat(id);
}

/** Whether `handle()` returned something to stream: an async iterable (an async generator, a channel). */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/**
 * A 200 whose body writes `items` in `offer`'s framing. Each item is read only when the client has
 * taken the one before (backpressure), checked by the item schema when `validate` is on, and written;
 * a failure ends the stream with one last error event (SSE) or line (JSONL). A client that goes away
 * cancels the body, which ends the iterator (its `return()` runs, so a generator's `finally` does).
 */
export function streamResponse(
  items: AsyncIterable<unknown>,
  offer: StreamOffer,
  validate: boolean,
  onFailure: StreamFailure,
): Response {
  const iterator = items[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const write = offer.format === "sse" ? sseEvent : jsonLine;
  const schema = validate ? offer.itemSchema : null;
  let ended = false;
  const stop = () => {
    ended = true;
    // Not awaited: a generator suspended in an `await` runs its `return()` only once that settles.
    Promise.resolve(iterator.return?.()).catch(() => {});
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (ended) return;
        try {
          const next = await iterator.next();
          if (ended) return;
          if (next.done) {
            ended = true;
            controller.close();
            return;
          }
          if (next.value instanceof Heartbeat) {
            if (offer.format === "sse") controller.enqueue(encoder.encode(sseHeartbeat(next.value)));
            else controller.enqueue(new Uint8Array(0));
            return;
          }
          const item = schema ? await checked(schema, next.value) : next.value;
          controller.enqueue(encoder.encode(write(item)));
        } catch (thrown) {
          if (ended) return;
          stop();
          controller.enqueue(
            encoder.encode(offer.format === "sse" ? sseError(onFailure(thrown)) : jsonLine(onFailure(thrown))),
          );
          controller.close();
        }
      },
      cancel: stop,
    },
    // Nothing is read ahead of the client: an item is pulled when the one before has been taken.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: streamHeaders(offer) });
}

function streamHeaders(offer: StreamOffer): Record<string, string> {
  return { "content-type": offer.mediaType, "cache-control": "no-cache" };
}

/**
 * A HEAD's answer to a streamed route: its headers, no body, and the iterator ended at once. A stream
 * made for it would never be read (Hono drops a HEAD's body unread) and so never end: a changes
 * stream would hold its listener's place for good.
 */
function headOfStream(items: AsyncIterable<unknown>, offer: StreamOffer): Response {
  Promise.resolve(items[Symbol.asyncIterator]().return?.()).catch(() => {});
  return new Response(null, { status: 200, headers: streamHeaders(offer) });
}

/** An item parsed by its schema; a mismatch is the server's fault, as for any response that fails its schema. */
async function checked(schema: z.ZodType, item: unknown): Promise<unknown> {
  try {
    return await parseOutput(schema, item);
  } catch (cause) {
    throw new ResponseValidationException("A streamed item does not match its schema", { cause });
  }
}

/** One item as JSON on one line; JSON escapes every line break inside it. */
function jsonLine(item: unknown): string {
  return `${(toJsonText(item) as string | undefined) ?? "null"}\n`;
}

/**
 * One Server-Sent Event: `event`, `id` and `retry` as given, `data` as JSON (one line, so a client reads
 * it back with `JSON.parse`). An item that is not `{ data, ... }` is sent as the event's data.
 */
function sseEvent(item: unknown): string {
  const event = isEventShape(item) ? item : { data: item };
  let text = "";
  if (event.event !== undefined) text += `event: ${field("event", event.event)}\n`;
  if (event.id !== undefined) text += `id: ${field("id", event.id)}\n`;
  if (event.retry !== undefined) text += `retry: ${field("retry", event.retry)}\n`;
  return `${text}data: ${(toJsonText(event.data) as string | undefined) ?? "null"}\n\n`;
}

/** A comment, or the block of only an `id` that moves the client's last event ID. */
function sseHeartbeat(heartbeat: Heartbeat): string {
  return heartbeat.id === undefined ? ":\n\n" : `id: ${field("id", heartbeat.id)}\n\n`;
}

/** The stream's last event when it fails part-way: named `error`, the error body as its data. */
function sseError(body: unknown): string {
  return `event: error\ndata: ${toJsonText(body)}\n\n`;
}

interface EventShape {
  data: unknown;
  event?: unknown;
  id?: unknown;
  retry?: unknown;
}

function isEventShape(item: unknown): item is EventShape {
  return typeof item === "object" && item !== null && Object.hasOwn(item, "data");
}

/** An event field's value: a line break would end the field and forge the next, so it is refused. */
function field(name: string, value: unknown): string {
  const text = String(value);
  if (/[\r\n]/.test(text)) throw new TypeError(`An event's ${name} may not contain a line break`);
  return text;
}

/** `value` parsed by a response's schema: zod's `parseAsync`, or a Standard Schema's validate (both throw on a mismatch). */
function parseOutput(schema: z.ZodType, value: unknown): Promise<unknown> {
  const standard = standardSchemaOf(schema);
  return standard ? parseStandard(standard, value) : schema.parseAsync(value);
}

// The runtime's Response as this module found it: a server may replace the global later (@hono/node-server
// puts a lighter class of its own there), whose instances still inherit from this one.
const LOADED_RESPONSE = globalThis.Response;

/**
 * Whether a value is a fetch Response: of the global class, of the one this module loaded with, or (a
 * global replaced before it loaded) any object the platform tags `Response`, such as what `fetch()` gives
 * under @hono/node-server, which `instanceof` its replacement class does not recognise.
 */
export function isResponse(value: unknown): value is Response {
  if (value instanceof Response || value instanceof LOADED_RESPONSE) return true;
  // A plain object (a handler's data, the common result) is never one: no tag to read.
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) === Object.prototype) return false;
  return Object.prototype.toString.call(value) === "[object Response]";
}
