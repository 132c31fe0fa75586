import type { OpenAPIDocument } from "../openapi/types";

// The keys of a Path Item that hold operations (the others are shared parameters, servers, summary...).
const OPERATION_KEYS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/**
 * A copy of `doc` without the operations carrying any of `tags`, for documents that differ per environment
 * (say, a public build without the `internal` routes). Path items left with no operation go too, and so
 * do the hidden tags' entries in the top-level `tags` list. The given document is not changed.
 *
 * @example
 * hideTags(router.getGeneratedSchema(), ["internal"]); // same document, minus every operation tagged "internal"
 */
export function hideTags(doc: OpenAPIDocument, tags: readonly string[]): OpenAPIDocument {
  if (tags.length === 0) return doc;
  const hidden = new Set(tags);
  const isHidden = (operation: unknown) => {
    const opTags = (operation as { tags?: unknown } | null)?.tags;
    return Array.isArray(opTags) && opTags.some((tag) => hidden.has(tag));
  };

  const paths: OpenAPIDocument["paths"] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    const kept: Record<string, unknown> = {};
    let removed = false;
    for (const [key, value] of Object.entries(item)) {
      if (OPERATION_KEYS.has(key) && isHidden(value)) removed = true;
      else kept[key] = value;
    }
    const hasOperation = Object.keys(kept).some((key) => OPERATION_KEYS.has(key));
    if (!removed) paths[path] = item;
    else if (hasOperation) paths[path] = kept;
  }

  const result: OpenAPIDocument = { ...doc, paths };
  if (Array.isArray(doc.tags)) {
    const kept = doc.tags.filter((tag) => !hidden.has((tag as { name?: unknown } | null)?.name as string));
    if (kept.length > 0) result.tags = kept;
    else if (doc.tags.length > 0) delete result.tags;
  }
  return result;
}
