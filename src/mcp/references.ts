import type { OpenAPIDocument } from "../openapi/types";

/** A JSON value as the document holds it. */
export type Json = Record<string, unknown>;

const COMPONENT_SCHEMAS = "#/components/schemas/";
/** How deep a chain of `$ref`s to `$ref`s is followed before the document is taken to be circular. */
const MAX_REF_CHAIN = 16;

/**
 * The object a `#/components/...` `$ref` points to in `doc` (a parameter, a request body, a response, a
 * schema), chains followed; anything else as it is.
 */
export function resolve(doc: OpenAPIDocument, value: unknown): unknown {
  let current = value;
  for (let depth = 0; depth < MAX_REF_CHAIN; depth++) {
    const ref = refOf(current);
    if (ref === undefined || !ref.startsWith("#/components/")) return current;
    current = pointerTarget(doc, ref);
  }
  throw new Error(`A chain of more than ${MAX_REF_CHAIN} $refs in the document, through ${refOf(current)}`);
}

/**
 * JSON Schemas that must stand on their own, outside the document (an MCP tool's input or output schema):
 * each `#/components/schemas/...` they reach, directly or through another, is copied under `$defs` and
 * pointed there. Recursive schemas stay recursive; nothing is inlined.
 */
export class StandaloneSchemas {
  private readonly defs: Json = {};
  private readonly pending: string[] = [];

  constructor(private readonly doc: OpenAPIDocument) {}

  /** `schema` copied, its component references pointing into this set's `$defs`. */
  add(schema: unknown): unknown {
    return this.relocate(schema);
  }

  /** `root` with the `$defs` its schemas use (none when they use none). */
  withDefs(root: Json): Json {
    while (this.pending.length > 0) {
      const name = this.pending.pop()!;
      this.defs[name] = this.relocate(pointerTarget(this.doc, COMPONENT_SCHEMAS + name));
    }
    return Object.keys(this.defs).length > 0 ? { ...root, $defs: this.defs } : root;
  }

  private relocate(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.relocate(item));
    if (typeof value !== "object" || value === null) return value;
    const copy: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith(COMPONENT_SCHEMAS)) {
        const name = inner.slice(COMPONENT_SCHEMAS.length);
        // Component names are plain (`[A-Za-z0-9._-]+`), so the name is a `$defs` key as it stands.
        if (!(name in this.defs)) {
          this.defs[name] = true; // a placeholder until its schema is copied: a schema met again is queued once
          this.pending.push(name);
        }
        copy.$ref = `#/$defs/${name}`;
      } else copy[key] = this.relocate(inner);
    }
    return copy;
  }
}

function refOf(value: unknown): string | undefined {
  const ref = (value as { $ref?: unknown } | null)?.$ref;
  return typeof ref === "string" ? ref : undefined;
}

/** What a local JSON Pointer (`#/a/b~1c`) names in `doc`; an error naming it when nothing is there. */
function pointerTarget(doc: OpenAPIDocument, ref: string): unknown {
  let current: unknown = doc;
  for (const segment of ref.slice(2).split("/")) {
    const key = decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
    current = typeof current === "object" && current !== null ? (current as Json)[key] : undefined;
  }
  if (current === undefined) throw new Error(`The document has nothing at ${ref}`);
  return current;
}
