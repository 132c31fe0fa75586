import { COMPONENT_REF_PREFIX, type ConvertedSchema, type SchemaIO, type SchemaObject } from "../schema";

/**
 * Gathers the named schemas one document uses. A component can look different as a request
 * (defaults optional) and as a response (defaults present); when it does, the request variant is
 * published as `<Name>Input`, the way FastAPI splits `-Input`/`-Output` models.
 */
export class ComponentCollector {
  private readonly seen: Record<SchemaIO, Map<string, SchemaObject>> = { input: new Map(), output: new Map() };
  /** `$ref` holders inside request-side copies; their final name is known only once all routes are seen. */
  private readonly inputRefs: Array<{ holder: SchemaObject; name: string }> = [];

  /** Records a conversion's components and returns a private, mutable copy of its schema. */
  use(converted: ConvertedSchema, io: SchemaIO): SchemaObject {
    const seen = this.seen[io];
    for (const [name, schema] of Object.entries(converted.components)) {
      // Two different zod schemas given the same id: the first one seen names the component.
      if (!seen.has(name)) seen.set(name, schema);
    }
    return this.copy(converted.schema, io) as SchemaObject;
  }

  /** The `components.schemas` map, after settling the names request-side `$ref`s point at. */
  finish(): Record<string, SchemaObject> {
    const inputNames = this.inputNames();
    const schemas: Record<string, SchemaObject> = {};
    for (const [name, schema] of this.seen.output) schemas[name] = this.copy(schema, "output") as SchemaObject;
    for (const [name, schema] of this.seen.input) {
      const finalName = inputNames.get(name) ?? name;
      if (!(finalName in schemas)) schemas[finalName] = this.copy(schema, "input") as SchemaObject;
    }
    for (const { holder, name } of this.inputRefs) holder.$ref = COMPONENT_REF_PREFIX + (inputNames.get(name) ?? name);
    return schemas;
  }

  /** Request-side components that differ from their response-side namesake, with their new names. */
  private inputNames(): Map<string, string> {
    const { input, output } = this.seen;
    const differs = new Set<string>();
    for (const [name, schema] of input) {
      const other = output.get(name);
      if (other && stableJson(other) !== stableJson(schema)) differs.add(name);
    }
    // A component pointing at a renamed one must be renamed too, or its response twin would point wrong.
    let grew = differs.size > 0;
    while (grew) {
      grew = false;
      for (const [name, schema] of input) {
        if (differs.has(name) || !output.has(name)) continue;
        if (referencedNames(schema).some((ref) => differs.has(ref))) {
          differs.add(name);
          grew = true;
        }
      }
    }
    const taken = new Set([...input.keys(), ...output.keys()]);
    const names = new Map<string, string>();
    for (const name of differs) {
      let candidate = `${name}Input`;
      for (let n = 2; taken.has(candidate); n++) candidate = `${name}Input${n}`;
      taken.add(candidate);
      names.set(name, candidate);
    }
    return names;
  }

  private copy(node: unknown, io: SchemaIO): unknown {
    return copyJson(node, io === "input" ? this.inputRefs : null);
  }
}

/** A mutable copy of a (frozen, shared) schema; with `holders`, its component `$ref`s are listed there. */
function copyJson(node: unknown, holders: Array<{ holder: SchemaObject; name: string }> | null): unknown {
  if (typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) {
    const items = new Array(node.length);
    for (let i = 0; i < node.length; i++) items[i] = copyJson(node[i], holders);
    return items;
  }
  const copy: SchemaObject = {};
  for (const key in node) {
    const value = copyJson((node as SchemaObject)[key], holders);
    // A member named "__proto__" is data, not the copy's prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value, writable: true, enumerable: true, configurable: true });
    else copy[key] = value;
  }
  const ref = copy.$ref;
  if (holders && typeof ref === "string" && ref.startsWith(COMPONENT_REF_PREFIX)) {
    holders.push({ holder: copy, name: ref.slice(COMPONENT_REF_PREFIX.length) });
  }
  return copy;
}

function referencedNames(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) referencedNames(item, found);
  } else if (typeof node === "object" && node !== null) {
    const ref = (node as SchemaObject).$ref;
    if (typeof ref === "string" && ref.startsWith(COMPONENT_REF_PREFIX))
      found.push(ref.slice(COMPONENT_REF_PREFIX.length));
    for (const value of Object.values(node)) referencedNames(value, found);
  }
  return found;
}

/** JSON with sorted keys, so two equal schemas compare equal whatever order zod wrote them in. */
function stableJson(node: unknown): string {
  return JSON.stringify(node, (_key, value) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
