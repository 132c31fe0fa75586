import OpenAPIResponseValidator from "openapi-response-validator";
import { resolvedResponse } from "../openapi/helpers";

/*
 * The contract check's call generator and judge, for any document: every operation called validly and
 * invalidly, and every answer checked by an independent validator (openapi-response-validator)
 * against the document. Used on the tasks example and on its valibot and ArkType versions.
 */

export type Operation = {
  parameters?: Array<{ name: string; in: string; schema?: any }>;
  requestBody?: unknown;
  security?: unknown[];
  responses: Record<string, unknown>;
};
export type Doc = { paths: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

/** A valid body for each operation that takes one. */
export function validBody(method: string, path: string): { body: BodyInit; type: string } | undefined {
  const json = (value: unknown) => ({ body: JSON.stringify(value), type: "application/json" });
  if (method === "get" || method === "delete") return undefined;
  if (path.endsWith("/attachments")) {
    const form = new FormData();
    form.append("file", new File(["hello"], "hello.txt", { type: "text/plain" }));
    return { body: form, type: "" };
  }
  if (method === "post" && path === "/projects") return json({ name: "New" });
  if (method === "patch" && path === "/projects/{id}") return json({ description: "Changed" });
  if (method === "post") return json({ title: "Another" });
  if (method === "patch") return json({ status: "done" });
  return undefined;
}

/** A query value the operation's schema refuses, for its first parameter that can refuse one. */
function badQuery(operation: Operation): string | undefined {
  for (const parameter of operation.parameters ?? []) {
    const schema = parameter.schema ?? {};
    const refusable = ["integer", "number"].includes(schema.type) || schema.enum || schema.format || schema.pattern;
    if (parameter.in === "query" && refusable) return `${parameter.name}=not%20valid`;
  }
  return undefined;
}

export interface Call {
  name: string;
  path: string;
  init: RequestInit;
}

/** The calls made for one operation: valid, missing resource, no credentials, empty body, wrong type, bad query. */
export function callsFor(method: string, template: string, operation: Operation, key: string): Call[] {
  const fill = (id: string) => template.replace(/\{[^}]+\}/g, id);
  const secured = (operation.security ?? []).length > 0;
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...(secured ? { "x-api-key": key } : {}),
    ...extra,
  });
  const valid = validBody(method, template);
  const init = (extra: RequestInit = {}): RequestInit => ({
    method: method.toUpperCase(),
    headers: headers(valid?.type ? { "content-type": valid.type } : {}),
    body: valid?.body,
    ...extra,
  });
  const calls: Call[] = [{ name: "valid", path: fill("1"), init: init() }];
  if (template.includes("{")) calls.push({ name: "missing resource", path: fill("999"), init: init() });
  if (secured) {
    const { "x-api-key": _key, ...anonymous } = init().headers as Record<string, string>;
    calls.push({ name: "no credentials", path: fill("1"), init: init({ headers: anonymous }) });
    calls.push({ name: "wrong key", path: fill("1"), init: init({ headers: { ...anonymous, "x-api-key": "nope" } }) });
  }
  if (operation.requestBody) {
    const type = valid?.type || "multipart/form-data; boundary=x";
    calls.push({
      name: "empty body",
      path: fill("1"),
      init: init({ headers: headers({ "content-type": type }), body: "" }),
    });
    calls.push({
      name: "wrong content type",
      path: fill("1"),
      init: init({ headers: headers({ "content-type": "application/xml" }), body: "<hello/>" }),
    });
    calls.push({
      name: "oversize body",
      path: fill("1"),
      init: init({ headers: headers({ "content-type": "application/json" }), body: `"${"x".repeat(1024 * 1024)}"` }),
    });
  }
  const query = badQuery(operation);
  if (query) calls.push({ name: "bad query value", path: `${fill("1")}?${query}`, init: init() });
  return calls;
}

/** The violations of one answer against the document: an unlisted status, or a body its schema refuses. */
export async function violations(doc: Doc, method: string, template: string, response: Response): Promise<string[]> {
  const operation = doc.paths[template]![method]!;
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    // A stream that stays open: its answer is listed with this media type, and its items wait for changes.
    await response.body?.cancel();
    const declared = resolvedResponse(doc, operation.responses[String(response.status)]);
    return declared?.content?.["text/event-stream"] ? [] : [`${response.status} ${type} is not listed`];
  }
  const text = await response.text();
  const body = text === "" ? undefined : JSON.parse(text);
  // openapi-response-validator reads response objects inline: follow the document's `components.responses` refs.
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, entry]) => [status, resolvedResponse(doc, entry)]),
  );
  const validator = new OpenAPIResponseValidator({
    responses: responses as any,
    components: doc.components as any,
  });
  const result = validator.validateResponse(response.status, body);
  return result
    ? result.errors.map((error: { path?: string; message: string }) => `${error.path ?? ""} ${error.message}`.trim())
    : [];
}

/** Answer headers a document must list where they are sent: the rate limit's (draft-ietf-httpapi-ratelimit-headers). */
const LISTED_HEADERS = ["ratelimit", "ratelimit-policy", "retry-after"];

/** The headers of `LISTED_HEADERS` an answer carries that its documented response does not list. */
export function unlistedHeaders(doc: Doc, method: string, template: string, response: Response): string[] {
  const operation = doc.paths[template]![method]!;
  const declared = resolvedResponse(doc, operation.responses[String(response.status)]);
  const listed = new Set(Object.keys(declared?.headers ?? {}).map((name) => name.toLowerCase()));
  return LISTED_HEADERS.filter((name) => response.headers.has(name) && !listed.has(name)).map(
    (name) => `header ${name} is sent but not listed for ${response.status}`,
  );
}
