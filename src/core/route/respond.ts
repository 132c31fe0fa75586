import type { z } from "zod";
import { NotAcceptableException } from "../../errors/exceptions";
import {
  type ErrorFormat,
  exceptionBody,
  type HandlerZodErrors,
  JSON_CONTENT_TYPE,
  toApiException,
} from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import { seam } from "../../schema";
import { essenceOf, isJsonEssence } from "../request/body-plan";
import type { OpenAPIRouteSchema } from "../schema-types";
import { toJsonText } from "./json-text";
import { negotiate, type Offer, type Serializer } from "./negotiate";
import { isAsyncIterable, type StreamOffer, streamOffersOf, streamResponse } from "./stream";

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
  async validate(result: unknown): Promise<unknown> {
    // A stream's items are checked one by one as they are written.
    if (result === null || typeof result !== "object" || isAsyncIterable(result)) return result;
    if (!(result instanceof Response)) {
      const schema = this.responseSchema(200);
      return schema ? schema.parseAsync(result) : result;
    }
    const schema = this.responseSchema(result.status);
    if (!schema || !result.headers.get("content-type")?.includes("application/json")) return result;
    const body = await schema.parseAsync(await result.clone().json());
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
    if (result instanceof Response) return result;
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
    const response = streamResponse(items, chosen, this.validates, (thrown) => this.failureBody(thrown, request));
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

// The init of every 200 JSON answer: one object, never written to (a Response copies what it keeps).
const JSON_200: ResponseInit = Object.freeze({
  status: 200,
  headers: Object.freeze({ "content-type": JSON_CONTENT_TYPE }),
});

/** A JSON response; bigint values are written as strings rather than failing the request. */
export function jsonResponse(data: unknown, status: number): Response {
  const init = status === 200 ? JSON_200 : { status, headers: { "content-type": JSON_CONTENT_TYPE } };
  return new Response(toJsonText(data), init);
}
