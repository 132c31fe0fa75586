export { buildDocument } from "./document";
export { extendZodWithOpenApi, type OpenApiMetadata, type ParameterMetadata } from "./extend-zod";
export { type ConvertedSchema, type SchemaIO, type SchemaObject, toOpenApiSchema } from "./json-schema";
export type { DocumentConfig, DocumentRoute, DocumentSchema, OpenAPIDocument, OpenAPIVersion } from "./types";
export { toYaml } from "./yaml";
