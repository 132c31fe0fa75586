import type { DocumentContext, EnvPredicate } from "../core/schema-types";
import { buildDocument } from "../openapi/document";
import { OpenAPIRegistryMerger, type RegisteredDocumentParts } from "../openapi/registry";
import type { DocumentRoute, DocumentSchema, OpenAPIDocument, OpenAPIVersion } from "../openapi/types";
import { toYaml } from "../openapi/yaml";
import type { ResolvedRouterOptions } from "./options";
import { ALWAYS, type ServedRoute, toOpenAPIPath } from "./served-route";

/** What a served document is built from: a router's route table and options. */
export interface DocumentedRouter {
  readonly options: ResolvedRouterOptions;
  readonly routes: readonly ServedRoute[];
  invalidateDocument(): void;
}

/** Most documents kept for `schema` functions and hidden predicates: one per distinct environment seen. */
const MAX_CACHED_DOCUMENTS = 32;

/** One built document: the object, its JSON, and its YAML once asked for. */
export interface CachedDocument {
  doc: OpenAPIDocument;
  json: string;
  yaml?: string;
  /** Routes left out because their schema could not be compiled or documented, each with its error. */
  failures: readonly RouteFailure[];
}

/** A route the document leaves out, and why. */
export interface RouteFailure {
  route: string;
  error: unknown;
}

/**
 * A router's document as it is served: built from the route table when first asked for (which
 * compiles every route), then kept, per version and per distinct environment when `schema` is a
 * function or routes are hidden by predicate. Any change to the route table drops it.
 */
export class ServedDocument {
  /** How many documents were built (what the environment tests count). */
  builds = 0;
  private readonly documents = new Map<string, CachedDocument>();
  /** Whether the document depends on the environment; undefined until the route table is read again. */
  private dependsOnEnv: boolean | undefined;

  constructor(private readonly core: DocumentedRouter) {}

  /** Drops every kept document: the route table or the registry changed. */
  invalidate(): void {
    this.documents.clear();
    this.dependsOnEnv = undefined;
  }

  /**
   * The document `contextOf()` sees. Without `schema` functions or hidden predicates it is keyed by
   * version alone (serving it costs no per-request work); otherwise by the function's result and the
   * predicates' answers, so equal environments share one.
   */
  get(version: OpenAPIVersion, contextOf: () => DocumentContext): CachedDocument {
    const { routes, options } = this.core;
    this.dependsOnEnv ??=
      options.schemaFor !== undefined || routes.some((entry) => hiddenWhen(entry).some((when) => when !== ALWAYS));
    if (!this.dependsOnEnv) {
      return (
        this.documents.get(version) ??
        this.build(version, version, options.schema, (index) => isAlwaysHidden(index, this.core))
      );
    }
    const { schemaFor } = options;
    const ctx = contextOf();
    const schema = schemaFor ? registryOf(this.core).applyTo(schemaFor(ctx)) : options.schema;
    const hidden = routes.map((entry) => hiddenWhen(entry).some((when) => when(ctx)));
    const key = `${version}\n${hidden.map(Number).join("")}\n${schemaFor ? stableJson(schema) : ""}`;
    return this.build(key, version, schema, (index) => hidden[index]!);
  }

  /** The YAML of the document `contextOf()` sees, written once per kept document. */
  yaml(version: OpenAPIVersion, contextOf: () => DocumentContext): string {
    const cached = this.get(version, contextOf);
    cached.yaml ??= toYaml(cached.doc);
    return cached.yaml;
  }

  private build(
    key: string,
    version: OpenAPIVersion,
    schema: DocumentSchema,
    isHidden: (index: number) => boolean,
  ): CachedDocument {
    let cached = this.documents.get(key);
    if (!cached) {
      this.builds++;
      const { options } = this.core;
      const failures: RouteFailure[] = [];
      const onRouteFailure = (route: string, error: unknown) => failures.push({ route, error });
      const doc = buildDocument(this.documentRoutes(isHidden, onRouteFailure), {
        openapiVersion: version,
        schema,
        problemDetails: options.errorFormat === "problem",
        automaticResponses: options.automaticResponses,
        registered: this.registeredParts(),
        onRouteFailure,
      });
      // A broken route costs only itself: the rest of the API keeps its document, and the log says why.
      for (const { route, error } of failures) {
        console.error(`specroute: ${route} is left out of the OpenAPI document: ${messageOf(error)}`);
      }
      cached = { doc, json: JSON.stringify(doc), failures };
      // Bounded: an environment-derived key could otherwise grow the cache without end.
      if (this.documents.size >= MAX_CACHED_DOCUMENTS) this.documents.delete(this.documents.keys().next().value!);
      this.documents.set(key, cached);
    }
    return cached;
  }

  /** What the router's registry adds, its paths in OpenAPI form (`/users/:id` → `/users/{id}`). */
  private registeredParts(): RegisteredDocumentParts {
    const parts = registryOf(this.core).documentParts();
    return { ...parts, paths: parts.paths.map((route) => ({ ...route, path: toOpenAPIPath(route.path) })) };
  }

  /** The route table in the document builder's terms: OpenAPI paths, unique operationIds, hidden ones left out. */
  private documentRoutes(
    isHidden: (index: number) => boolean,
    onRouteFailure: (route: string, error: unknown) => void,
  ): DocumentRoute[] {
    const used = new Map<string, number>();
    const { base } = this.core.options;
    return this.core.routes.flatMap((entry, index) => {
      if (isHidden(index)) return [];
      let schema: DocumentRoute["schema"];
      try {
        schema = entry.schema;
      } catch (error) {
        // The error already names the route (`GET /tasks (ListTasks): ...`).
        onRouteFailure(`${entry.method.toUpperCase()} ${toOpenAPIPath(base + entry.path)}`, error);
        return [];
      }
      let operationId = schema.operationId;
      if (operationId) {
        const seen = (used.get(operationId) ?? 0) + 1;
        used.set(operationId, seen);
        // The same endpoint class on two paths would repeat its id; OpenAPI requires them unique.
        if (seen > 1) operationId = `${operationId}_${seen}`;
      }
      const route = entry.compiledRoute();
      const security = route.plan.security.asLayer();
      return [
        {
          method: entry.method,
          path: toOpenAPIPath(base + entry.path),
          schema: { ...schema, operationId, ...security, rateLimit: route.plan.rateLimit ?? false },
          negotiates: route.responses.readsAccept,
        },
      ];
    });
  }
}

function isAlwaysHidden(index: number, core: DocumentedRouter): boolean {
  return hiddenWhen(core.routes[index]!).includes(ALWAYS);
}

/** A route's hiding predicates; none for a route that cannot compile, so the document reports it. */
function hiddenWhen(entry: ServedRoute): readonly EnvPredicate[] {
  try {
    return entry.hiddenWhen;
  } catch {
    return [];
  }
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** JSON with object keys sorted, so equal `schema` results share one cached document. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

// One registry per router: Hono's basePath() gives the same router several wrappers.
const registries = new WeakMap<DocumentedRouter, OpenAPIRegistryMerger>();

/** The router's registry; each registration adds its components to the document schema and drops the cached document. */
export function registryOf(core: DocumentedRouter): OpenAPIRegistryMerger {
  const known = registries.get(core);
  if (known) return known;
  const declared = core.options.schema;
  const registry = new OpenAPIRegistryMerger(() => {
    core.options.schema = registry.applyTo(declared);
    core.invalidateDocument();
  });
  registries.set(core, registry);
  return registry;
}
