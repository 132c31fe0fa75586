import type { z } from "zod";
import { streamFormatOf } from "../core/route/respond";
import type {
  ContentObject,
  OpenAPIRouteSchema,
  RequestBodyConfig,
  RequestSchema,
  ResponseConfig,
} from "../core/schema-types";
import type { Authenticator } from "../core/security/auth";
import { RouteSecurity } from "../core/security/security";
import { isErrorEnvelopeSchema, sharedResponseName } from "../errors/exceptions";
import { adaptPlainSchema, COMPONENT_REF_PREFIX, type SchemaIO, seam } from "../schema";
import { frameworkResponses, isAutomatic, type ResponseEntry } from "./automatic-responses";
import { ComponentCollector } from "./components";
import { PROBLEM_COMPONENT, PROBLEM_MEDIA_TYPE, problemDetailsSchema } from "./problem-details";
import type { DocumentConfig, DocumentRoute, OpenAPIDocument, OpenAPIVersion } from "./types";

type Json = Record<string, unknown>;

/** State shared while one document is built. */
interface BuildContext {
  version: OpenAPIVersion;
  collector: ComponentCollector;
  problemDetails: boolean;
  usesProblemDetails: boolean;
  /** Schemes declared by the authenticators routes enforce, by name. */
  securitySchemes: Map<string, Json>;
  /** Whether operations list the answers the framework gives on its own. */
  automaticResponses: boolean;
  /** Operations that need no credentials and do not say so: `security: []` once the document has a scheme. */
  unsecured: Json[];
  /** Built-in error answers, written once under `components.responses` and referenced by each operation. */
  sharedResponses: Map<string, Json>;
}

const RESPONSE_REF_PREFIX = "#/components/responses/";

const DOCUMENT_VERSIONS: Record<OpenAPIVersion, string> = { "3": "3.0.3", "3.1": "3.1.0", "3.2": "3.2.0" };

// The only keys a Path Item accepts as operations; anything else (e.g. a router's "all") is not documentable.
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

const PARAMETER_LOCATIONS = [
  ["params", "path"],
  ["query", "query"],
  ["headers", "header"],
  ["cookies", "cookie"],
] as const satisfies ReadonlyArray<readonly [keyof RequestSchema, string]>;

/**
 * Builds the OpenAPI document for a route table: a pure function of its arguments.
 *
 * @example
 * const doc = buildDocument(
 *   [{ method: "get", path: "/users/{id}", schema: { request: { params: z.object({ id: z.uuid() }) } } }],
 *   { openapiVersion: "3.1", schema: { info: { title: "Users", version: "2.0.0" } }, problemDetails: false },
 * );
 * doc.paths["/users/{id}"].get; // { parameters: [{ name: "id", in: "path", required: true, ... }], ... }
 */
export function buildDocument(routes: DocumentRoute[], config: DocumentConfig): OpenAPIDocument {
  const ctx: BuildContext = {
    version: config.openapiVersion,
    collector: new ComponentCollector(),
    problemDetails: config.problemDetails,
    usesProblemDetails: false,
    securitySchemes: new Map(),
    automaticResponses: config.automaticResponses ?? true,
    unsecured: [],
    sharedResponses: new Map(),
  };
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const method = route.method.toLowerCase();
    if (route.schema["x-ignore"] === true || !HTTP_METHODS.has(method)) continue;
    paths[route.path] ??= {};
    const item = paths[route.path]!;
    // Routers answer with the first matching registration, so that is the one to document.
    if (method in item) continue;
    const operation = isolated(config, `${route.method.toUpperCase()} ${route.path}`, () =>
      buildOperation(route.schema, ctx, true, route.negotiates),
    );
    if (operation) item[method] = operation;
    else if (Object.keys(item).length === 0) delete paths[route.path];
  }
  const registered = config.registered;
  for (const { method: given, path, ...schema } of registered?.paths ?? []) {
    const method = given.toLowerCase();
    if (!HTTP_METHODS.has(method)) throw new Error(`registerPath: "${given}" is not an HTTP method (${path})`);
    paths[path] ??= {};
    // A route served by the router wins over a registration of the same operation.
    paths[path][method] ??= buildOperation(schema, ctx, false);
  }
  const webhooks: Record<string, Json> = {};
  // OpenAPI 3.0 has no webhooks: a 3.0 document leaves them out.
  for (const { method, path: name, ...schema } of config.openapiVersion !== "3" ? (registered?.webhooks ?? []) : []) {
    webhooks[name] ??= {};
    webhooks[name][method.toLowerCase()] = buildOperation(schema, ctx, false);
  }

  const { info, components, openapi: _version, paths: _paths, ...rest } = config.schema;
  // Schemas the user registered, zod or plain, written for this document's version.
  const registeredSchemas: Json = {};
  for (const [name, schema] of Object.entries((components?.schemas as Json | undefined) ?? {})) {
    registeredSchemas[name] = describeSchema(schema, "output", ctx);
  }
  const parameters: Json = { ...(components?.parameters as Json | undefined) };
  for (const { name, schema } of registered?.parameters ?? []) parameters[name] = describeParameter(name, schema, ctx);
  const schemas: Record<string, unknown> = { ...registeredSchemas, ...ctx.collector.finish() };
  if (ctx.usesProblemDetails) schemas[PROBLEM_COMPONENT] = problemDetailsSchema();
  const allComponents: Json = { ...components };
  if (Object.keys(schemas).length > 0) allComponents.schemas = schemas;
  if (Object.keys(parameters).length > 0) allComponents.parameters = parameters;
  // A response of the same name in the router's `schema.components` replaces the built-in one everywhere.
  const responses = { ...Object.fromEntries(ctx.sharedResponses), ...(components?.responses as Json | undefined) };
  if (Object.keys(responses).length > 0) allComponents.responses = responses;
  // Schemes given in the router's `schema.components` win over the ones authenticators declare.
  const securitySchemes = { ...Object.fromEntries(ctx.securitySchemes), ...components?.securitySchemes };
  if (Object.keys(securitySchemes).length > 0) {
    allComponents.securitySchemes = securitySchemes;
  }
  // With schemes the framework enforces, a public operation says so. Schemes only the user declares
  // (or a document-level `security`) may be enforced by middleware the framework cannot see.
  if (ctx.securitySchemes.size > 0 && config.schema.security === undefined) {
    for (const operation of ctx.unsecured) operation.security = [];
  }

  const doc: OpenAPIDocument = {
    openapi: DOCUMENT_VERSIONS[config.openapiVersion],
    info: { ...info, title: info?.title ?? "OpenAPI", version: info?.version ?? "1.0.0" },
    ...rest,
    paths,
  };
  if (Object.keys(webhooks).length > 0) doc.webhooks = webhooks;
  if (Object.keys(allComponents).length > 0) doc.components = allComponents;
  return doc;
}

/**
 * One operation. A `served` one is a route specroute validates: the framework's own answers join its
 * responses, and it counts as public when nothing guards it. A registered one (`registerPath`) is
 * served by code specroute cannot see, so neither is claimed for it.
 */
function buildOperation(schema: OpenAPIRouteSchema, ctx: BuildContext, served = true, negotiates = false): Json {
  const operation: Json = {};
  copyDefined(schema, operation, ["tags", "summary", "description", "externalDocs", "operationId"]);
  // Parameter Objects written in the schema come first and pass as written, as zod-to-openapi has them.
  const given = (schema.parameters ?? []).map((parameter) => adaptParameter(parameter, ctx.version));
  const parameters = [...given, ...buildParameters(schema.request, ctx)];
  if (schema.idempotency && !parameters.some((p) => String(p.name).toLowerCase() === "idempotency-key")) {
    parameters.push(schema.idempotency.documentParameter());
  }
  if (parameters.length > 0) operation.parameters = parameters;
  if (schema.request?.body) operation.requestBody = buildRequestBody(schema.request.body, ctx);
  const { enforced, documented } = RouteSecurity.of(schema);
  for (const authenticator of enforced) declareScheme(authenticator, ctx);
  operation.responses = buildResponses(documentedResponses({ schema, enforced, negotiates, served }, ctx), ctx);
  copyDefined(schema, operation, ["deprecated"]);
  if (documented !== undefined) operation.security = documented;
  else if (enforced.length === 0 && served) ctx.unsecured.push(operation);
  copyDefined(schema, operation, ["servers"]);
  for (const key of Object.keys(schema)) {
    if (key.startsWith("x-") && key !== "x-ignore") operation[key] = schema[key as `x-${string}`];
  }
  return operation;
}

/**
 * One route's part of the document. Where the caller takes failures (`onRouteFailure`), a route whose
 * schema cannot be documented is left out and reported, so it never costs the other routes their document.
 */
function isolated(config: DocumentConfig, route: string, build: () => Json): Json | undefined {
  if (!config.onRouteFailure) return build();
  try {
    return build();
  } catch (err) {
    config.onRouteFailure(route, err);
    return undefined;
  }
}

/** A Parameter Object as written, its plain schema spelled for the document's version; a `$ref` as is. */
function adaptParameter(parameter: Json, version: OpenAPIVersion): Json {
  if (typeof parameter.schema !== "object" || parameter.schema === null || seam.isSchema(parameter.schema)) {
    return parameter;
  }
  return { ...parameter, schema: adaptPlainSchema(parameter.schema as Json, version) };
}

/** Lists an authenticator's scheme under `components.securitySchemes`; two different schemes may not share a name. */
function declareScheme(authenticator: Authenticator<unknown>, ctx: BuildContext): void {
  const known = ctx.securitySchemes.get(authenticator.schemeName);
  if (known === undefined) {
    ctx.securitySchemes.set(authenticator.schemeName, { ...authenticator.scheme });
  } else if (JSON.stringify(known) !== JSON.stringify(authenticator.scheme)) {
    throw new Error(
      `Two different security schemes are named "${authenticator.schemeName}": give one of them another schemeName`,
    );
  }
}

/** What decides an operation's responses: its schema, the schemes enforced on it, and how it is served. */
interface AnsweringRoute {
  schema: OpenAPIRouteSchema;
  enforced: readonly Authenticator<unknown>[];
  /** Whether its 200 offers several media types, chosen by `Accept`. */
  negotiates: boolean;
  /** A route specroute validates, whose own answers the framework adds (see `buildOperation`). */
  served: boolean;
}

/**
 * The responses an operation documents, as `[status, entry]` in the order of their record's keys. A record
 * keyed by status codes holds them as V8 array elements, several hundred holes each, which every copy and
 * every listing of its keys walks: one record is made only where a policy or `Vary` adds to the route's.
 */
function documentedResponses(route: AnsweringRoute, ctx: BuildContext): ResponseEntry[] {
  const { schema, negotiates } = route;
  const answered = answeredResponses(route, ctx);
  const limit = schema.rateLimit;
  if (!schema.idempotency && typeof limit !== "object" && !negotiates) return answered;
  // A route that declares no responses at all gets the policies' default 200.
  const declared = answered.length > 0 || schema.responses !== undefined ? Object.fromEntries(answered) : undefined;
  // A policy writes what it adds to the route's document, so its code comes only with the policy.
  const keyed = schema.idempotency ? schema.idempotency.documentResponses(declared) : declared;
  const responses = typeof limit === "object" ? limit.documentResponses(keyed) : keyed;
  return Object.entries((negotiates ? withVary(responses) : responses) ?? {});
}

/**
 * The route's `responses` with what the framework answers on its own added (the user's entry for a
 * status wins), or, with automatic responses off, without the entries the framework derived.
 */
function answeredResponses(
  { schema, enforced, negotiates, served }: AnsweringRoute,
  ctx: BuildContext,
): ResponseEntry[] {
  const declared = Object.entries(schema.responses ?? {});
  if (!served) return declared;
  if (!ctx.automaticResponses) return declared.filter(([, config]) => !isAutomatic(config));
  const automatic = frameworkResponses(schema, enforced, negotiates);
  if (automatic.length === 0) return declared;
  const entries = declared.length > 0 ? declared : Object.entries(DEFAULT_RESPONSES);
  const added = automatic.filter(([status]) => !entries.some(([key]) => key === status));
  return added.length === 0 ? entries : inKeyOrder(entries, added);
}

/**
 * `entries` (a record's, in its key order) with `added` (statuses not among them) where a record holding
 * both would list them: array-index keys first, ascending, then the other keys in the order they came.
 */
function inKeyOrder(entries: ResponseEntry[], added: readonly ResponseEntry[]): ResponseEntry[] {
  const indexed = [...entries.filter(([key]) => isArrayIndex(key)), ...added];
  indexed.sort(([a], [b]) => Number(a) - Number(b));
  return [...indexed, ...entries.filter(([key]) => !isArrayIndex(key))];
}

/** Whether a property key is an array index, which objects list before their other keys, ascending. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/** A negotiated 200 says `Vary: Accept`, as it is served, so caches keep one answer per format. */
function withVary(responses: Record<string, ResponseConfig> | undefined): Record<string, ResponseConfig> | undefined {
  const ok = responses?.["200"];
  // A zod headers object is the user's own description of every header; it is left as written.
  if (
    !ok ||
    seam.isSchema(ok.headers) ||
    (ok.headers && Object.keys(ok.headers).some((name) => /^vary$/i.test(name)))
  ) {
    return responses;
  }
  const vary = {
    description: "Accept: the body's media type follows the request's Accept header",
    schema: { type: "string" },
  };
  return { ...responses, "200": { ...ok, headers: { ...ok.headers, Vary: vary } } };
}

const DEFAULT_RESPONSES: Record<string, ResponseConfig> = { "200": { description: "Successful response" } };

/** One parameter per member of each request part's object schema. */
function buildParameters(request: RequestSchema | undefined, ctx: BuildContext): Json[] {
  const parameters: Json[] = [];
  if (!request) return parameters;
  for (const [part, location] of PARAMETER_LOCATIONS) {
    const partSchema = request[part] as z.ZodType | undefined;
    const shape = partSchema ? seam.objectShape(partSchema) : null;
    if (!shape) continue;
    for (const [name, member] of Object.entries(shape)) {
      const parameter: Json = { name, in: location, required: location === "path" || !mayBeAbsent(member) };
      Object.assign(parameter, describeMember(member, "input", ctx));
      parameters.push(parameter);
    }
  }
  return parameters;
}

/**
 * The parts of a Parameter or Header Object that come from one member: its schema, plus the
 * description/example/deprecated found in its metadata, lifted out of the schema onto the object.
 */
function describeMember(member: z.ZodType, io: SchemaIO, ctx: BuildContext): Json {
  const converted = ctx.collector.use(seam.toJsonSchema(member, ctx.version, io), io);
  const { description, deprecated, example, ...schema } = converted;
  // `.openapi({ param })` wins; name and location are fixed by the request part and key the router reads.
  const { name: _name, in: _in, ...param } = seam.parameterMetadata(member);
  const described: Json = { description, deprecated, example, ...param, schema };
  for (const key of Object.keys(described)) if (described[key] === undefined) delete described[key];
  return described;
}

/** A registered parameter component: name and location from its `param` metadata, then its schema. */
function describeParameter(refId: string, schema: z.ZodType, ctx: BuildContext): Json {
  const { name, in: location } = seam.parameterMetadata(schema) as { name?: string; in?: string };
  if (typeof name !== "string" || !["path", "query", "header", "cookie"].includes(String(location))) {
    throw new Error(
      `registerParameter("${refId}"): give the schema its name and location with .openapi({ param: { name, in } })`,
    );
  }
  const required = location === "path" || !seam.acceptsUndefined(schema);
  return { name, in: location, required, ...describeMember(schema, "input", ctx) };
}

function buildRequestBody(body: RequestBodyConfig, ctx: BuildContext): Json {
  const requestBody: Json = {};
  if (body.description !== undefined) requestBody.description = body.description;
  requestBody.content = buildContent(body.content, "input", ctx, "request.body.content");
  const first = Object.values(body.content).find((media) => media !== undefined);
  // A plain JSON Schema body is required unless it says otherwise (the runtime refuses its absence).
  requestBody.required = body.required ?? !(first && seam.isSchema(first.schema) && mayBeAbsent(first.schema));
  return requestBody;
}

function buildContent(content: ContentObject, io: SchemaIO, ctx: BuildContext, where: string): Json {
  const result: Json = {};
  for (const [mediaType, media] of Object.entries(content)) {
    if (!media) continue;
    if (ctx.problemDetails && io === "output" && isErrorEnvelopeSchema(media.schema)) {
      // With problem details on, error responses are RFC 9457 bodies, not the envelope.
      result[PROBLEM_MEDIA_TYPE] = { schema: { $ref: COMPONENT_REF_PREFIX + PROBLEM_COMPONENT } };
      ctx.usesProblemDetails = true;
      continue;
    }
    const at = `${where}[${JSON.stringify(mediaType)}]`;
    const entry: Json = {};
    if ("itemSchema" in media)
      Object.assign(entry, describeStream(mediaType, describeAt(media.itemSchema, io, ctx, `${at}.itemSchema`), ctx));
    else if (media.schema !== undefined) entry.schema = describeAt(media.schema, io, ctx, `${at}.schema`);
    if (media.example !== undefined) entry.example = media.example;
    if (media.examples !== undefined) entry.examples = media.examples;
    const files = isMultipart(mediaType) && seam.isSchema(media.schema) ? fileEncodings(media.schema) : {};
    const encoding = { ...files, ...media.encoding };
    if (Object.keys(encoding).length > 0) entry.encoding = encoding;
    result[mediaType] = entry;
  }
  return result;
}

/**
 * A streamed media type: OpenAPI 3.2 describes each item (`itemSchema`); 3.0 and 3.1 have no word for
 * that, so the body is a string and the item's schema (`item`, described) goes in the `x-itemSchema` extension.
 */
function describeStream(mediaType: string, item: Json, ctx: BuildContext): Json {
  if (ctx.version === "3.2") return { itemSchema: item };
  const framing = streamFormatOf(mediaType) === "sse" ? "Server-Sent Events" : "JSON Lines";
  return {
    schema: { type: "string", description: `${framing}; each item as x-itemSchema describes` },
    "x-itemSchema": item,
  };
}

/** `describeSchema`, its error saying where in the route's schema the schema sits. */
function describeAt(schema: unknown, io: SchemaIO, ctx: BuildContext, where: string): Json {
  try {
    return describeSchema(schema, io, ctx);
  } catch (err) {
    throw new Error(`${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** A media type's schema in the document: a zod schema converted, a plain JSON Schema object as written. */
function describeSchema(schema: unknown, io: SchemaIO, ctx: BuildContext): Json {
  if (!seam.isSchema(schema)) return adaptPlainSchema(schema as Json, ctx.version);
  return ctx.collector.use(seam.toJsonSchema(schema, ctx.version, io), io);
}

function buildResponses(responses: readonly ResponseEntry[], ctx: BuildContext): Json {
  if (responses.length === 0) return buildResponses(Object.entries(DEFAULT_RESPONSES), ctx);
  const result: Json = {};
  for (const [status, config] of responses) {
    const shared = sharedResponseName(config);
    if (shared === undefined) {
      result[status] = buildResponse(config, ctx, `responses[${JSON.stringify(status)}]`);
      continue;
    }
    if (!ctx.sharedResponses.has(shared)) ctx.sharedResponses.set(shared, buildResponse(config, ctx, shared));
    result[status] = { $ref: RESPONSE_REF_PREFIX + shared };
  }
  return result;
}

function buildResponse(config: ResponseConfig, ctx: BuildContext, where: string): Json {
  const response: Json = { description: config.description ?? "" };
  if (config.headers) response.headers = buildResponseHeaders(config.headers, ctx);
  if (config.content) response.content = buildContent(config.content, "output", ctx, `${where}.content`);
  if (config.links) response.links = config.links;
  return response;
}

/** A zod object becomes one Header Object per member; plain Header Objects pass through. */
function buildResponseHeaders(headers: z.ZodType | Record<string, unknown>, ctx: BuildContext): Json {
  if (!seam.isSchema(headers)) return { ...headers };
  const result: Json = {};
  for (const [name, member] of Object.entries(seam.objectShape(headers) ?? {})) {
    // A response header is present unless its output may be undefined.
    const required = !seam.mayOutputUndefined(member);
    result[name] = { required, ...describeMember(member, "output", ctx) };
  }
  return result;
}

function isMultipart(mediaType: string): boolean {
  return mediaType.split(";", 1)[0]!.trim().toLowerCase() === "multipart/form-data";
}

/** The accepted media types of each file member of a multipart body, as its part's `contentType`. */
function fileEncodings(schema: z.ZodType): Record<string, Json> {
  const encoding: Record<string, Json> = {};
  for (const [name, member] of Object.entries(seam.objectShape(schema) ?? {})) {
    const types = seam.fileConstraints(member)?.types;
    if (types && types.length > 0) encoding[name] = { contentType: types.join(", ") };
  }
  return encoding;
}

/** Whether a member may be left out: optional, or filled in by a default. */
function mayBeAbsent(schema: z.ZodType): boolean {
  return seam.acceptsUndefined(schema);
}

function copyDefined(from: object, to: Json, keys: string[]): void {
  for (const key of keys) {
    const value = (from as Json)[key];
    if (value !== undefined) to[key] = value;
  }
}
