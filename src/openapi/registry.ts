import type { DocumentSchema } from "./types";

/** The kinds of entry an OpenAPI Components Object holds. */
export type ComponentType =
  | "schemas"
  | "responses"
  | "parameters"
  | "examples"
  | "requestBodies"
  | "headers"
  | "securitySchemes"
  | "links"
  | "callbacks"
  | "pathItems";

/** One component added with `registerComponent`. */
export interface ComponentDefinition {
  type: "component";
  componentType: ComponentType;
  name: string;
  component: unknown;
}

/**
 * A router's `registry` (chanfana's `OpenAPIRegistryMerger`): components registered here join the
 * router's document, chanfana's documented way to declare security schemes.
 *
 * @example
 * const router = fromHono(new Hono());
 * const bearer = router.registry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
 * // in an endpoint's schema: security: [{ [bearer.name]: [] }]
 */
export class OpenAPIRegistryMerger {
  /** Everything registered, in order (chanfana's name for it). */
  readonly _definitions: ComponentDefinition[] = [];
  private readonly changed: () => void;

  /** `onChange` runs after every registration (the router drops its cached document there). */
  constructor(onChange: () => void = () => {}) {
    this.changed = onChange;
  }

  /** Everything registered, in order. */
  get definitions(): readonly ComponentDefinition[] {
    return this._definitions;
  }

  /**
   * Adds `component` under `components.<type>.<name>` of the document and returns a reference to it.
   *
   * @example
   * registry.registerComponent("securitySchemes", "apiKey", { type: "apiKey", in: "header", name: "x-api-key" });
   * // → { name: "apiKey", ref: { $ref: "#/components/securitySchemes/apiKey" } }
   */
  registerComponent(
    type: ComponentType,
    name: string,
    component: unknown,
  ): { name: string; ref: { $ref: `#/components/${ComponentType}/${string}` } } {
    this._definitions.push({ type: "component", componentType: type, name, component });
    this.changed();
    return { name, ref: { $ref: `#/components/${type}/${name}` } };
  }

  /**
   * Registers the components of another registry here (chanfana merges a nested router's registry
   * into its parent's). Paths are not part of a specroute registry: mounted routers bring their routes.
   */
  merge(registry: Pick<OpenAPIRegistryMerger, "_definitions"> | null | undefined, _basePath?: string): void {
    if (!registry?._definitions) return;
    for (const definition of registry._definitions) {
      if (definition.type === "component") {
        this.registerComponent(definition.componentType, definition.name, definition.component);
      }
    }
  }

  /** `schema` with the registered components added to its `components` (a registration wins over `schema`'s own). */
  applyTo(schema: DocumentSchema): DocumentSchema {
    if (this._definitions.length === 0) return schema;
    const components: Record<string, unknown> = { ...schema.components };
    for (const { componentType, name, component } of this._definitions) {
      components[componentType] = { ...(components[componentType] as object | undefined), [name]: component };
    }
    return { ...schema, components };
  }
}
