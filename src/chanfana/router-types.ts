import type { fromIttyRouter, IttyOpenAPIRouterType } from "../adapters/itty-router";
import type { ResolvedRouterOptions } from "../adapters/options";
import { type DOCUMENTED_METHODS, RouterCore } from "../adapters/router-core";
import type { EndpointHost } from "../core/route/host";
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

/**
 * chanfana's router base class: `HonoOpenAPIHandler` and `IttyRouterOpenAPIHandler` extend it, so
 * `instanceof OpenAPIHandler` holds for every router. As a type it is what an endpoint's
 * `this.params.router` is (see `EndpointHost`), so `const router: OpenAPIHandler = this.params.router`
 * compiles as it did in chanfana.
 *
 * @example
 * if (this.params.router instanceof OpenAPIHandler) console.log(this.params.router.getBindings(this.args));
 */
export const OpenAPIHandler = RouterCore;
export type OpenAPIHandler = EndpointHost;
