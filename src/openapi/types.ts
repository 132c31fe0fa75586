import type { z } from "zod";
import type { OpenAPIRouteSchema } from "../core/schema-types";

/** OpenAPI versions the document can be written in. */
/** "3" writes OpenAPI 3.0.3; "3.2" is 3.1 plus what 3.2 adds (`itemSchema` for streams). */
export type OpenAPIVersion = "3" | "3.1" | "3.2";

/** One documented operation: the route table entry the document builder reads. */
export interface DocumentRoute {
  /** Lower-case HTTP method. */
  method: string;
  /** Path in OpenAPI form, base included: `/users/{userId}`. */
  path: string;
  /** The endpoint's schema, with `operationId` already resolved. */
  schema: OpenAPIRouteSchema;
  /** Whether its 200 is written in the media type the request's `Accept` chooses (so it may answer 406). */
  negotiates?: boolean;
}

/** The document-level part of the router's `schema` option (everything but paths). */
export interface DocumentSchema {
  info?: { title?: string; version?: string; description?: string; [key: string]: unknown };
  servers?: Array<{ url: string; description?: string; [key: string]: unknown }>;
  components?: { securitySchemes?: Record<string, unknown>; [key: string]: unknown };
  security?: Array<Record<string, string[]>>;
  tags?: Array<{ name: string; description?: string; [key: string]: unknown }>;
  externalDocs?: { url: string; description?: string };
  [extension: string]: unknown;
}

export interface DocumentConfig {
  openapiVersion: OpenAPIVersion;
  schema: DocumentSchema;
  /** Whether error responses are RFC 9457 problem details (documented as `application/problem+json`). */
  problemDetails: boolean;
  /** List the answers the framework gives on its own (400, 401, 403, 404, 409, 413, 415). Default true. */
  automaticResponses?: boolean;
  /** Parameters, paths (in OpenAPI form) and webhooks added through the router's registry. */
  registered?: RegisteredDocumentParts;
  /**
   * Given, a route whose schema cannot be documented is left out and handed here (`"GET /tasks"`, the
   * error); without it, the error is thrown.
   */
  onRouteFailure?: (route: string, error: unknown) => void;
}

/** A generated OpenAPI document (plain JSON). */
export type OpenAPIDocument = Record<string, unknown> & {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
};

/**
 * An OpenAPI 3.0 Object without `paths`, `components` and `webhooks` (chanfana's type of the router's `schema`).
 *
 * @example
 * const schema: Partial<OpenAPIObjectConfig> = { info: { title: "Tasks", version: "1.0.0" } };
 * fromHono(new Hono(), { schema });
 */
export type OpenAPIObjectConfig = Omit<DocumentSchema, "components" | "paths" | "webhooks"> & {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
};

/**
 * An OpenAPI 3.1 Object without `paths`, `components` and `webhooks` (the same shape as {@link OpenAPIObjectConfig}).
 *
 * @example
 * const schema: Partial<OpenAPIObjectConfigV31> = { info: { title: "Tasks", version: "1.0.0" }, jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base" };
 */
export type OpenAPIObjectConfigV31 = OpenAPIObjectConfig;

/**
 * An operation served by something specroute does not validate (a plain Hono handler, a proxy): its
 * method and path (`/users/{id}` or `/users/:id`) and the same fields as an endpoint's `schema`.
 */
export type RegisteredRoute = OpenAPIRouteSchema & { method: string; path: string };

/** What a registry adds to a document besides components. */
export interface RegisteredDocumentParts {
  parameters: Array<{ name: string; schema: z.ZodType }>;
  paths: RegisteredRoute[];
  webhooks: RegisteredRoute[];
}
