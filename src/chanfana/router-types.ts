import type { fromIttyRouter, IttyOpenAPIRouterType } from "../adapters/itty-router";
import type { ResolvedRouterOptions } from "../adapters/options";
import type { DOCUMENTED_METHODS } from "../adapters/router-core";
import type { OpenAPIRegistryMerger } from "../openapi/registry";
import type { OpenAPIDocument } from "../openapi/types";

/**
 * The methods that register a documented operation.
 *
 * @example
 * const method: HttpMethod = "patch";
 */
export type HttpMethod = (typeof DOCUMENTED_METHODS)[number];

/**
 * What every router wrapper adds to the router `M` it wraps (chanfana's `OpenAPIRouterType`).
 *
 * @example
 * function describe<M>(router: OpenAPIRouterType<M>) {
 *   return Object.keys(router.schema.paths);
 * }
 */
export type OpenAPIRouterType<M> = {
  /** The wrapped router. */
  original: M;
  options: ResolvedRouterOptions;
  registry: OpenAPIRegistryMerger;
  /** The generated document (cached). */
  readonly schema: OpenAPIDocument;
};

/**
 * chanfana's name for the wrapper `fromIttyRouter` returns.
 *
 * @example
 * const router: IttyRouterOpenAPIRouterType<ReturnType<typeof AutoRouter>> = fromIttyRouter(AutoRouter());
 */
export type IttyRouterOpenAPIRouterType<M = IttyOpenAPIRouterTypeDefault> = IttyOpenAPIRouterType<M>;

type IttyOpenAPIRouterTypeDefault = Parameters<typeof fromIttyRouter>[0];
