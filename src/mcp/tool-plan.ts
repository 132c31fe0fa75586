import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { essenceOf, isJsonEssence } from "../core/media-type";
import { streamFormatOf } from "../core/route/respond";
import type { OpenAPIDocument } from "../openapi/types";
import { argumentMaySet } from "./headers";
import { type Json, resolve, StandaloneSchemas } from "./references";

/** One documented operation, as `expose` sees it when it decides whether the operation is a tool. */
export interface McpOperation {
  /** The HTTP method, lower-case. */
  readonly method: string;
  /** The path as documented, the router's base included (`/projects/{id}`). */
  readonly path: string;
  readonly operationId: string | undefined;
  readonly tags: readonly string[];
  /** The OpenAPI Operation Object as the router's 3.1 document has it. */
  readonly operation: Readonly<Json>;
}

/**
 * Which operations are tools besides those whose schema says `"x-mcp": true`: the operations with one of
 * `tags`, or those the predicate accepts. `"x-mcp": false` keeps an operation out either way.
 */
export type McpExpose = { tags: readonly string[] } | ((operation: McpOperation) => boolean);

/** A tool: what clients are told, and how a call becomes the route's HTTP request. */
export interface ToolPlan {
  readonly tool: Tool;
  /** The HTTP method, upper-case. */
  readonly method: string;
  /** The documented path, `{name}` for each path parameter. */
  readonly path: string;
  /**
   * The header parameters its arguments may set, by lower-case name (as documented): those the route
   * declares, but for the ones a call sets itself or that frame a message.
   */
  readonly headers: ReadonlyMap<string, string>;
  /** The JSON media type a body is sent as; undefined when the operation takes no body. */
  readonly bodyType: string | undefined;
  /** Whether every 2xx answer is a JSON object, so the result carries it as `structuredContent`. */
  readonly structured: boolean;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Each kind of parameter's member of a tool's arguments; cookies come with the MCP request itself. */
const ARGUMENT_OF: Record<string, ArgumentGroup | undefined> = { path: "path", query: "query", header: "headers" };
type ArgumentGroup = "path" | "query" | "headers";
const GROUPS: readonly ArgumentGroup[] = ["path", "query", "headers"];

/** What MCP allows in a tool name (2025-11-25). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The tools of a document (the router's OpenAPI 3.1 document, whose schemas are JSON Schema 2020-12 as
 * MCP's are), by name: each operation marked `"x-mcp": true` or selected by `expose`. Hidden routes are
 * not in the document, so they are never tools.
 */
export function toolPlans(doc: OpenAPIDocument, expose: McpExpose | undefined): Map<string, ToolPlan> {
  const plans = new Map<string, ToolPlan>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const pathItem = resolve(doc, item) as Json;
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      if (!operation) continue;
      const described: McpOperation = {
        method,
        path,
        operationId: operation.operationId as string | undefined,
        tags: (operation.tags as string[] | undefined) ?? [],
        operation,
      };
      const exposed = exposure(described, expose);
      if (exposed === undefined) continue;
      const unfit = unfitness(doc, operation);
      if (unfit !== undefined) {
        // Selected by tag or predicate, it is left out; marked on its route, it is the route's mistake.
        if (exposed === "selected") continue;
        throw new Error(`MCP: ${label(described)} is marked "x-mcp": true but ${unfit}`);
      }
      const plan = planOf(doc, described, pathItem);
      if (plans.has(plan.tool.name)) {
        throw new Error(`MCP: two operations are named ${plan.tool.name} (operationId); tool names must be unique`);
      }
      plans.set(plan.tool.name, plan);
    }
  }
  return plans;
}

/** How an operation is a tool: marked `"x-mcp": true` on its route, selected by the router's `expose`, or not at all. */
type Exposure = "marked" | "selected" | undefined;

function exposure(described: McpOperation, expose: McpExpose | undefined): Exposure {
  const flag = described.operation["x-mcp"];
  if (flag !== undefined && typeof flag !== "boolean") {
    throw new Error(`MCP: "x-mcp" of ${label(described)} is ${JSON.stringify(flag)}; it takes true or false`);
  }
  if (flag !== undefined) return flag ? "marked" : undefined;
  if (expose === undefined) return undefined;
  const selected =
    typeof expose === "function" ? expose(described) : described.tags.some((tag) => expose.tags.includes(tag));
  return selected ? "selected" : undefined;
}

/**
 * Why an operation cannot be a tool, if it cannot: a body only in another media type than JSON (a
 * multipart upload) cannot come from JSON arguments, and a stream (SSE, JSON Lines) is not one answer.
 */
function unfitness(doc: OpenAPIDocument, operation: Json): string | undefined {
  const requestBody = resolve(doc, operation.requestBody) as Json | undefined;
  if (requestBody && !jsonMediaOf(requestBody.content)) {
    const types = Object.keys((requestBody.content as Json | undefined) ?? {}).join(", ");
    return `takes its body as ${types || "nothing declared"}, and a tool's arguments are JSON`;
  }
  for (const [status, raw] of Object.entries((operation.responses as Json | undefined) ?? {})) {
    const types = Object.keys(((resolve(doc, raw) as Json).content as Json | undefined) ?? {});
    if (/^2/.test(status) && types.length > 0 && types.every((type) => streamFormatOf(type) !== undefined)) {
      return `answers a stream (${types.join(", ")}), and a tool call has one answer`;
    }
  }
  return undefined;
}

function planOf(doc: OpenAPIDocument, described: McpOperation, pathItem: Json): ToolPlan {
  const { method, path, operationId, operation } = described;
  if (!operationId || !TOOL_NAME.test(operationId)) {
    throw new Error(
      `MCP: ${label(described)} has operationId ${JSON.stringify(operationId)}; a tool is named by its ` +
        "operationId, 1 to 128 of A-Z a-z 0-9 _ . -",
    );
  }
  const body = bodyOf(doc, operation);
  const input = new StandaloneSchemas(doc);
  const output = outputSchemaOf(doc, operation);
  const summary = operation.summary as string | undefined;
  const description = [summary, operation.description as string | undefined].filter(Boolean).join("\n\n");
  const readOnly = method === "get" || method === "head";
  const parameters = parametersOf(doc, pathItem, operation).filter(
    (parameter) => parameter.in !== "header" || argumentMaySet(String(parameter.name).toLowerCase()),
  );
  const headers = new Map(
    parameters
      .filter((parameter) => parameter.in === "header")
      .map(({ name }) => [String(name).toLowerCase(), String(name)]),
  );
  const tool: Tool = {
    name: operationId,
    ...(summary ? { title: summary } : {}),
    description: description || `${method.toUpperCase()} ${path}`,
    inputSchema: inputSchemaOf(input, parameters, body) as Tool["inputSchema"],
    ...(output ? { outputSchema: output as Tool["outputSchema"] } : {}),
    annotations: readOnly
      ? { readOnlyHint: true }
      : {
          readOnlyHint: false,
          destructiveHint: method === "delete",
          idempotentHint: method === "put" || method === "delete",
        },
  };
  return {
    tool,
    method: method.toUpperCase(),
    path,
    headers,
    bodyType: body?.type,
    structured: output !== undefined,
  };
}

/** The operation's parameters, its path item's included (the operation's own win), `$ref`s followed. */
function parametersOf(doc: OpenAPIDocument, pathItem: Json, operation: Json): Json[] {
  const byKey = new Map<string, Json>();
  for (const raw of [...asArray(pathItem.parameters), ...asArray(operation.parameters)]) {
    const parameter = resolve(doc, raw) as Json;
    byKey.set(`${parameter.in}\n${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

interface BodyPlan {
  type: string;
  schema: unknown;
  required: boolean;
  description: string | undefined;
}

/** The request body, sent as JSON (`unfitness` left out operations without a JSON one); undefined when there is none. */
function bodyOf(doc: OpenAPIDocument, operation: Json): BodyPlan | undefined {
  const requestBody = resolve(doc, operation.requestBody) as Json | undefined;
  const media = requestBody && jsonMediaOf(requestBody.content);
  if (!requestBody || !media) return undefined;
  return {
    type: media[0],
    schema: media[1].schema ?? {},
    required: requestBody.required === true,
    description: requestBody.description as string | undefined,
  };
}

/**
 * `{ path, query, headers, body }`: each kind of parameter in a member of its own, so names never collide
 * (a query `id` beside a path `id`, a body field named like a header).
 */
function inputSchemaOf(schemas: StandaloneSchemas, parameters: Json[], body: BodyPlan | undefined): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const group of GROUPS) {
    const members: Json = {};
    const needed: string[] = [];
    for (const parameter of parameters) {
      if (ARGUMENT_OF[parameter.in as string] !== group) continue;
      const name = parameter.name as string;
      members[name] = parameterSchema(schemas, parameter);
      if (parameter.required === true || group === "path") needed.push(name);
    }
    if (Object.keys(members).length === 0) continue;
    properties[group] = {
      type: "object",
      properties: members,
      ...(needed.length > 0 ? { required: needed } : {}),
      additionalProperties: false,
    };
    if (needed.length > 0) required.push(group);
  }
  if (body) {
    const schema = schemas.add(body.schema) as Json;
    properties.body = body.description && !schema.description ? { ...schema, description: body.description } : schema;
    if (body.required) required.push("body");
  }
  return schemas.withDefs({
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  });
}

function parameterSchema(schemas: StandaloneSchemas, parameter: Json): unknown {
  const schema = (parameter.schema ?? firstMedia(parameter.content)?.schema ?? {}) as Json;
  const copy = schemas.add(schema) as Json;
  const { description } = parameter;
  return typeof description === "string" && copy.description === undefined ? { ...copy, description } : copy;
}

/**
 * The schema of the operation's answers when every 2xx answer is a JSON object (MCP's `outputSchema` is an
 * object schema), several joined by `anyOf`; undefined when one is not (an array, no body, only CSV).
 */
function outputSchemaOf(doc: OpenAPIDocument, operation: Json): Json | undefined {
  const objects: Json[] = [];
  for (const [status, raw] of Object.entries((operation.responses as Json | undefined) ?? {})) {
    if (!/^2(\d\d|XX)$/i.test(status)) continue;
    const media = jsonMediaOf((resolve(doc, raw) as Json).content);
    const schema = media && (resolve(doc, media[1].schema) as Json | undefined);
    if (schema?.type !== "object") return undefined;
    objects.push(schema);
  }
  if (objects.length === 0) return undefined;
  const schemas = new StandaloneSchemas(doc);
  const copies = objects.map((schema) => schemas.add(schema) as Json);
  return schemas.withDefs(copies.length === 1 ? copies[0]! : { type: "object", anyOf: copies });
}

/** The first JSON media type of a content map and its Media Type Object. */
function jsonMediaOf(content: unknown): [string, Json] | undefined {
  if (typeof content !== "object" || content === null) return undefined;
  const entry = Object.entries(content).find(([type]) => isJsonEssence(essenceOf(type)));
  return entry as [string, Json] | undefined;
}

function firstMedia(content: unknown): Json | undefined {
  return typeof content === "object" && content !== null ? (Object.values(content)[0] as Json) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function label({ method, path }: McpOperation): string {
  return `${method.toUpperCase()} ${path}`;
}
