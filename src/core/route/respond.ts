import type { z } from "zod";
import { JSON_CONTENT_TYPE } from "../../errors/render";
import type { OpenAPIRouteSchema } from "../schema-types";

/**
 * Turns what `handle` returned into a Response, and checks it against the declared response schemas;
 * compiled once per route.
 */
export class ResponsePlan {
  /** Whether the router's `validateResponse` option asks for every result to be checked. */
  readonly validates: boolean;
  /** The zod schema of each status's JSON response (`default` included), looked up per result. */
  private readonly schemas: ReadonlyMap<string, z.ZodType>;

  constructor(schema: OpenAPIRouteSchema, validateResponse: boolean) {
    this.validates = validateResponse;
    const schemas = new Map<string, z.ZodType>();
    for (const [status, response] of Object.entries(schema.responses ?? {})) {
      const body = response?.content?.["application/json"]?.schema;
      if (isZodSchema(body)) schemas.set(status, body);
    }
    this.schemas = schemas;
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
    if (result === null || typeof result !== "object") return result;
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
    return new Response(stringify(body), { status: result.status, statusText: result.statusText, headers });
  }

  /** A `Response` passes untouched; `undefined` is 204; a string is text; anything else is 200 JSON. */
  toResponse(result: unknown): Response {
    if (result instanceof Response) return result;
    if (result === undefined) return new Response(null, { status: 204 });
    if (typeof result === "string") {
      return new Response(result, { status: 200, headers: { "content-type": "text/plain;charset=UTF-8" } });
    }
    return jsonResponse(result, 200);
  }
}

function isZodSchema(value: unknown): value is z.ZodType {
  // By shape, so schemas from another loaded zod copy count too.
  return typeof value === "object" && value !== null && "_zod" in value && "parseAsync" in value;
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
  return new Response(stringify(data), init);
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
  return new Response(stringify(data), init);
}

function stringify(data: unknown): string {
  try {
    return JSON.stringify(data);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return JSON.stringify(data, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
  }
}
