import type { z } from "zod";
import type { DocumentSchema, RegisteredDocumentParts, RegisteredRoute } from "./types";

export type { RegisteredDocumentParts, RegisteredRoute } from "./types";

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

/** A named schema added with `register`: a component, referenced by `$ref` wherever it is used. */
export interface SchemaDefinition {
  type: "schema";
  schema: z.ZodType;
}

/** A parameter added with `registerParameter`, under `components.parameters`. */
export interface ParameterDefinition {
  type: "parameter";
  name: string;
  schema: z.ZodType;
}

/** An operation added with `registerPath`. */
export interface RouteRegistration {
  type: "route";
  route: RegisteredRoute;
}

/** A webhook added with `registerWebhook` (documented in OpenAPI 3.1, which has `webhooks`); `path` is its name. */
export interface WebhookRegistration {
  type: "webhook";
  webhook: RegisteredRoute;
}

/** Everything a registry holds, with zod-to-openapi's `OpenAPIRegistry` definition shapes. */
export type RegistryDefinition =
  | ComponentDefinition
  | SchemaDefinition
  | ParameterDefinition
  | RouteRegistration
  | WebhookRegistration;

/**
 * A router's `registry` (chanfana's `OpenAPIRegistryMerger`, zod-to-openapi's `OpenAPIRegistry`):
 * components, named schemas, parameters, paths and webhooks registered here join the router's
 * document; chanfana's documented way to declare security schemes, and the way to document what
 * plain handlers serve.
 *
 * @example
 * const router = fromHono(new Hono());
 * const bearer = router.registry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
 * // in an endpoint's schema: security: [{ [bearer.name]: [] }]
 */
export class OpenAPIRegistryMerger {
  /** Everything registered, in order (chanfana's name for it). */
  readonly _definitions: RegistryDefinition[] = [];
  private readonly changed: () => void;

  /** `onChange` runs after every registration (the router drops its cached document there). */
  constructor(onChange: () => void = () => {}) {
    this.changed = onChange;
  }

  /** Everything registered, in order. */
  get definitions(): readonly RegistryDefinition[] {
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
    this.add({ type: "component", componentType: type, name, component });
    return { name, ref: { $ref: `#/components/${type}/${name}` } };
  }

  /**
   * Makes `schema` a named component (`#/components/schemas/<refId>`) listed in the document even where
   * no route uses it; returns the named schema, to use in routes.
   *
   * @example
   * const User = router.registry.register("User", z.object({ id: z.number(), name: z.string() }));
   */
  register<T extends z.ZodType>(refId: string, schema: T): T {
    const named = schema.meta({ ...schema.meta(), id: refId }) as T;
    this.add({ type: "schema", schema: named });
    return named;
  }

  /**
   * Adds a parameter under `components.parameters.<refId>`; its name and location come from
   * `.openapi({ param: { name, in } })` (or `.meta({ param })`) on the schema. Returns the schema.
   *
   * @example
   * router.registry.registerParameter("TenantHeader", z.string().openapi({ param: { name: "x-tenant", in: "header" } }));
   */
  registerParameter<T extends z.ZodType>(refId: string, schema: T): T {
    this.add({ type: "parameter", name: refId, schema });
    return schema;
  }

  /**
   * Documents an operation specroute does not serve itself (a plain Hono handler, a proxied path).
   * Nothing is validated: the framework's own answers (400, 413, …) are not added to it.
   *
   * @example
   * router.registry.registerPath({ method: "get", path: "/health", responses: { "200": { description: "Up" } } });
   */
  registerPath(route: RegisteredRoute): void {
    this.add({ type: "route", route });
  }

  /**
   * Documents a webhook: a request the API sends to its users (OpenAPI 3.1's `webhooks`; a 3.0 document
   * has no place for it and leaves it out). `path` is the webhook's name.
   *
   * @example
   * router.registry.registerWebhook({ method: "post", path: "taskDone", request: { body: contentJson(Task) }, responses: { "200": { description: "Received" } } });
   */
  registerWebhook(webhook: RegisteredRoute): void {
    this.add({ type: "webhook", webhook });
  }

  /**
   * Registers everything of another registry here (chanfana merges a nested router's registry into
   * its parent's); its paths get `basePath` in front.
   */
  merge(registry: Pick<OpenAPIRegistryMerger, "_definitions"> | null | undefined, basePath = ""): void {
    if (!registry?._definitions) return;
    for (const definition of registry._definitions) {
      if (definition.type === "route") {
        this.add({ type: "route", route: { ...definition.route, path: basePath + definition.route.path } });
      } else this.add(definition);
    }
  }

  /** `schema` with the registered components and named schemas added to its `components` (a registration wins over `schema`'s own). */
  applyTo(schema: DocumentSchema): DocumentSchema {
    const components: Record<string, unknown> = { ...schema.components };
    let added = false;
    for (const definition of this._definitions) {
      const [type, name, component] =
        definition.type === "component"
          ? [definition.componentType, definition.name, definition.component]
          : definition.type === "schema"
            ? ["schemas", String(definition.schema.meta()?.id), definition.schema]
            : [];
      if (type === undefined) continue;
      components[type] = { ...(components[type] as object | undefined), [name!]: component };
      added = true;
    }
    return added ? { ...schema, components } : schema;
  }

  /** The parameters, paths and webhooks registered, for the document builder. */
  documentParts(): RegisteredDocumentParts {
    const parts: RegisteredDocumentParts = { parameters: [], paths: [], webhooks: [] };
    for (const definition of this._definitions) {
      if (definition.type === "parameter") parts.parameters.push({ name: definition.name, schema: definition.schema });
      else if (definition.type === "route") parts.paths.push(definition.route);
      else if (definition.type === "webhook") parts.webhooks.push(definition.webhook);
    }
    return parts;
  }

  private add(definition: RegistryDefinition): void {
    this._definitions.push(definition);
    this.changed();
  }
}
