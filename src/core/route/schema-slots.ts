import { seam, unusableSchemaReason } from "../../schema";
import type { OpenAPIRouteSchema } from "../schema-types";

const PARAMETER_PARTS = ["params", "query", "headers", "cookies"] as const;

/**
 * Checks every place of a route's schema that holds a schema, when the route is compiled, so a value the
 * framework could neither validate nor document fails there, naming where it sits, instead of in the
 * middle of a document or a request.
 * Request parts are read through zod; bodies and responses also take a plain JSON Schema object.
 *
 * @example
 * checkSchemaSlots({ responses: { "200": { description: "ok", content: { "application/json": { schema: "string" } } } } });
 * // throws: responses["200"].content["application/json"].schema is a string: give a zod schema or a JSON Schema object
 */
export function checkSchemaSlots(schema: OpenAPIRouteSchema): void {
  const request = schema.request ?? {};
  for (const part of PARAMETER_PARTS) {
    const value: unknown = request[part];
    refuseUnusable(value, `request.${part}`);
    if (value !== undefined && !seam.isSchema(value)) {
      throw new Error(
        `request.${part} is ${describe(value)}: request parts are read through a zod object schema; ` +
          "document a plain JSON Schema parameter in the schema's `parameters` instead",
      );
    }
  }
  if (request.body !== undefined) checkContent(request.body.content, "request.body.content");
  for (const [status, response] of Object.entries(schema.responses ?? {})) {
    const where = `responses[${JSON.stringify(status)}]`;
    if (typeof response !== "object" || response === null) {
      throw new Error(`${where} is ${describe(response)}: give a Response Object ({ description, content })`);
    }
    if (response.content !== undefined) checkContent(response.content, `${where}.content`);
  }
  for (const [index, parameter] of (schema.parameters ?? []).entries()) {
    if (typeof parameter !== "object" || parameter === null || Array.isArray(parameter)) {
      throw new Error(`parameters[${index}] is ${describe(parameter)}: give an OpenAPI Parameter Object`);
    }
  }
}

function checkContent(content: unknown, where: string): void {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    throw new Error(
      `${where} is ${describe(content)}: give an object of media types, e.g. { "application/json": { schema } }`,
    );
  }
  for (const [mediaType, media] of Object.entries(content)) {
    if (media === undefined) continue;
    const at = `${where}[${JSON.stringify(mediaType)}]`;
    if (typeof media !== "object" || media === null) {
      throw new Error(`${at} is ${describe(media)}: give a Media Type Object ({ schema })`);
    }
    for (const key of ["schema", "itemSchema"] as const) {
      const value: unknown = (media as Record<string, unknown>)[key];
      refuseUnusable(value, `${at}.${key}`);
      if (value === undefined || seam.isSchema(value) || isSchemaObject(value)) continue;
      throw new Error(`${at}.${key} is ${describe(value)}: give a zod schema or a JSON Schema object`);
    }
  }
}

/** A value that looks like a schema specroute cannot use (a Standard Schema without JSON Schema) fails here, naming why. */
function refuseUnusable(value: unknown, where: string): void {
  const reason = unusableSchemaReason(value);
  if (reason !== null) throw new Error(`${where} is ${reason}`);
}

function isSchemaObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object that is not a zod schema";
  return `a ${typeof value}`;
}
