import type { z } from "zod";
import { ResponseValidationException } from "../../errors/exceptions";
import { seam } from "../../schema";
import { essenceOf } from "../request/body-plan";
import type { ContentObject } from "../schema-types";
import { toJsonText } from "./json-text";
import type { MediaOffer } from "./negotiate";

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
  const headers: Record<string, string> = { "content-type": offer.mediaType, "cache-control": "no-cache" };
  return new Response(body, { status: 200, headers });
}

/** An item parsed by its schema; a mismatch is the server's fault, as for any response that fails its schema. */
async function checked(schema: z.ZodType, item: unknown): Promise<unknown> {
  try {
    return await schema.parseAsync(item);
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
