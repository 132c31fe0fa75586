import type { z } from "zod";
import { ResponseValidationException } from "../errors/exceptions";
import { JSON_CONTENT_TYPE } from "../errors/render";
import type { OpenAPIRouteSchema } from "./schema-types";

/** Turns what `handle` returned into a Response, compiled once per route. */
export class ResponsePlan {
  /** The declared 200 JSON schema, checked only when `validateResponse` is on. */
  private readonly okSchema: z.ZodType | null;

  constructor(schema: OpenAPIRouteSchema, validateResponse: boolean) {
    this.okSchema = validateResponse
      ? (schema.responses?.["200"]?.content?.["application/json"]?.schema ?? null)
      : null;
  }

  /** A `Response` passes untouched; `undefined` is 204; a string is text; anything else is 200 JSON. */
  toResponse(result: unknown): Response {
    if (result instanceof Response) return result;
    if (result === undefined) return new Response(null, { status: 204 });
    if (typeof result === "string") {
      return new Response(result, { status: 200, headers: { "content-type": "text/plain;charset=UTF-8" } });
    }
    let data: unknown = result;
    if (this.okSchema) {
      const checked = this.okSchema.safeParse(result);
      if (!checked.success) {
        throw new ResponseValidationException(`Response does not match its schema: ${checked.error.message}`);
      }
      data = checked.data;
    }
    return jsonResponse(data, 200);
  }
}

/** A JSON response; bigint values are written as strings rather than failing the request. */
export function jsonResponse(data: unknown, status: number): Response {
  return new Response(stringify(data), { status, headers: { "content-type": JSON_CONTENT_TYPE } });
}

function stringify(data: unknown): string {
  try {
    return JSON.stringify(data);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return JSON.stringify(data, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
  }
}
