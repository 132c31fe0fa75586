import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { OpenAPIDocument } from "../../src/openapi/types";

/** Validates a document against the official OpenAPI JSON schemas; returns the errors for a readable failure. */
export async function validateDocument(doc: OpenAPIDocument): Promise<{ valid: boolean; errors?: unknown }> {
  // The validator keeps the object it is given; hand it a copy so assertions see the document as built.
  return new Validator().validate(structuredClone(doc));
}

/** Every `$ref` string in a document. */
export function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, found);
  } else if (typeof node === "object" && node !== null) {
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === "string") found.push(ref);
    for (const value of Object.values(node)) collectRefs(value, found);
  }
  return found;
}

/** The `$ref`s of a document that point nowhere (local references, `#/components/...`, resolved as JSON pointers). */
export function danglingRefs(doc: OpenAPIDocument): string[] {
  return collectRefs(doc).filter((ref) => !ref.startsWith("#/") || pointerTarget(doc, ref) === undefined);
}

function pointerTarget(doc: unknown, ref: string): unknown {
  let current: any = doc;
  for (const key of ref.slice(2).split("/")) current = current?.[key.replace(/~1/g, "/").replace(/~0/g, "~")];
  return current;
}

/** A response as a reader sees it: a `$ref` to `components.responses` followed to the response it names. */
export function resolvedResponse(doc: unknown, response: any): any {
  return typeof response?.$ref === "string" ? pointerTarget(doc, response.$ref) : response;
}

/** Loose accessor for deep document paths in assertions. */
export function at(node: unknown, ...path: Array<string | number>): any {
  let current: any = node;
  for (const key of path) current = current?.[key];
  return current;
}

/**
 * redocly's `recommended` rules' errors on a document (a server URL added; summaries and security
 * are each fixture's own business), as `rule: message` lines.
 */
export async function redoclyErrors(doc: unknown): Promise<string[]> {
  const problems = await lintFromString({
    source: JSON.stringify({ ...(doc as object), servers: [{ url: "https://example.com" }] }),
    absoluteRef: "/openapi.json",
    config: await createConfig({ extends: ["recommended"] }),
  });
  return problems
    .filter(
      (problem) => problem.severity === "error" && !["operation-summary", "security-defined"].includes(problem.ruleId),
    )
    .map((problem) => `${problem.ruleId}: ${problem.message}`);
}
