import { stringify } from "yaml";
import type { OpenAPIDocument } from "./types";

/**
 * Serialises a document as YAML: no anchors/aliases (many OpenAPI tools reject them) and no line folding.
 *
 * @example
 * toYaml(buildDocument(routes, config)); // "openapi: 3.1.0\ninfo:\n  title: OpenAPI\n..."
 */
export function toYaml(doc: OpenAPIDocument): string {
  return stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0, minContentWidth: 0 });
}
