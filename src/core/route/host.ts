import type { ErrorFormat } from "../../errors/render";

/**
 * What an endpoint may ask of the router serving it: an endpoint's `this.params.router` (chanfana's
 * name). Typed here, in core, so endpoints reach their router through this and nothing else.
 *
 * @example
 * class ListTasks extends OpenAPIRoute {
 *   async handle() {
 *     const env = this.params.router.getBindings(this.args);
 *     return { tasks: await env.DB.prepare("SELECT * FROM tasks").all() };
 *   }
 * }
 */
export interface EndpointHost {
  /**
   * The router's options; endpoints read `db`, the database SQL-backed endpoints use when they name none,
   * and `errorFormat`, what a stream's error event carries.
   */
  readonly options: { readonly db?: unknown; readonly errorFormat?: ErrorFormat };
  /** The fetch Request among a request's handler arguments (`this.args`). */
  getRequest(args: unknown[]): Request;
  /** The path parameters the router matched for a request's handler arguments. */
  getUrlParams(args: unknown[]): Record<string, string | undefined>;
  /**
   * The environment bindings (a Worker's `env`) of a request's handler arguments. `any`: the router
   * does not know the app's bindings, and chanfana apps read them as `getBindings(this.args).DB`.
   */
  getBindings(args: unknown[]): any;
  /**
   * The client's address as the runtime gives it for a request's handler arguments (the socket's under
   * `@hono/node-server`, Bun's `requestIP`, Deno's `remoteAddr`, `CF-Connecting-IP` on Workers), unparsed;
   * `null` where the runtime serves the request but names no address for it (the client is gone), undefined
   * where no runtime value that gives one is at hand (see `IncomingRequest.clientAddress`).
   */
  clientAddress(args: unknown[]): string | null | undefined;
  /**
   * Anything else a chanfana app reads of its router (`routes`, `registry`, `getGeneratedSchema()`), as
   * chanfana typed `params.router` as `any`; specroute's own endpoints read only the members above.
   */
  readonly [member: string]: any;
}
