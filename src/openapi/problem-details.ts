import type { SchemaObject } from "../schema";

/** Component name of the RFC 9457 problem schema in documents that use problem details. */
export const PROBLEM_COMPONENT = "ProblemDetails";

/** Media type of RFC 9457 error bodies. */
export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** The body every error response has in problem-details mode (the same in OpenAPI 3.0 and 3.1). */
export function problemDetailsSchema(): SchemaObject {
  return {
    type: "object",
    description: "An RFC 9457 problem details object.",
    properties: {
      type: { type: "string", format: "uri-reference", example: "about:blank" },
      title: { type: "string", description: "Short summary of the kind of error." },
      status: { type: "integer", description: "The HTTP status code." },
      detail: { type: "string", description: "What went wrong with this request." },
      errors: {
        type: "array",
        items: {
          type: "object",
          properties: {
            code: { type: "integer" },
            message: { type: "string" },
            path: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
          },
          required: ["code", "message"],
        },
      },
    },
    required: ["type", "title", "status", "detail", "errors"],
  };
}
