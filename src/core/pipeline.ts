import { type ApiException, ResponseValidationException } from "../errors/exceptions";
import { type ErrorFormat, renderException, toApiException } from "../errors/render";
import { needsRequestId, requestIdFor } from "../errors/request-id";
import type { ResponsePlan } from "./respond";
import { callHandleError, type OpenAPIRoute, type PerRequestField, type RequestState } from "./route";
import type { RequestInput, RoutePlan } from "./route-plan";
import type { OpenAPIRouteSchema } from "./schema-types";

/** A registered endpoint: its single instance and the plans compiled from its schema. */
export interface CompiledRoute {
  endpoint: OpenAPIRoute;
  /** The schema as `getSchema()` gave it at registration. */
  schema: OpenAPIRouteSchema;
  method: string;
  plan: RoutePlan;
  responder: ResponsePlan;
  /** The instance's mutable class fields, each copied for every request (worked out at registration). */
  perRequestFields: readonly PerRequestField[];
  errorFormat: ErrorFormat;
  /** Errors go to the router as thrown, without `handleError` (chanfana's `passthroughErrors`). */
  passthroughErrors: boolean;
  /** Name used when an unexpected error is logged. */
  label: string;
}

/** How a request ended when it did not produce a Response normally. */
export interface Failure {
  /** The thrown value, as `handleError` left it. */
  error: unknown;
  /** The thrown value before `handleError` saw it (what `passthroughErrors` hands to the router). */
  thrown: unknown;
  /** The framework exception it maps to. */
  exception: ApiException;
  /** That exception rendered. */
  response: Response;
  /** Whether the error came from request validation rather than from `handle`. */
  duringValidation: boolean;
  /** Set for failures the client is not told about: the id the response names and the log must show. */
  requestId?: string;
}

/** What the pipeline gives back to the adapter: a response, or a failure for the adapter to route. */
type Outcome = { response: Response; failure?: undefined } | { response?: undefined; failure: Failure };

/**
 * Runs one request: a per-request object inheriting from the route's instance, validation, `handle`,
 * and the conversion of its result. Errors are returned, rendered, for the adapter to deliver.
 */
export async function runEndpoint(route: CompiledRoute, args: unknown[], input: RequestInput): Promise<Outcome> {
  const ctx = Object.create(route.endpoint) as OpenAPIRoute & RequestState & Record<string, unknown>;
  for (const [name, copy] of route.perRequestFields) ctx[name] = copy(ctx[name]);
  ctx.args = args;
  let validating = true;
  try {
    const { validated, unvalidated, principal } = await route.plan.validate(input, args);
    ctx.unvalidatedData = unvalidated;
    ctx.validatedData = validated;
    ctx.authPrincipal = principal;
    validating = false;
    let result = await ctx.handle(...args);
    if (route.responder.validates) {
      try {
        result = await ctx.validateResponse(result);
      } catch (cause) {
        // The cause (the ZodError) reaches the log with the request id; the client sees "Internal Error".
        throw new ResponseValidationException("Response body does not match schema", { cause });
      }
    }
    return { response: route.responder.toResponse(result) };
  } catch (thrown) {
    let error: unknown = thrown;
    if (!route.passthroughErrors) {
      try {
        error = await callHandleError(ctx, thrown);
      } catch (rethrown) {
        error = rethrown;
      }
    }
    if (error instanceof Response) return { response: error };
    const exception = toApiException(error);
    const requestId = needsRequestId(exception) ? requestIdFor(input.request) : undefined;
    return {
      failure: {
        error,
        thrown,
        exception,
        response: renderException(exception, route.errorFormat, requestId),
        duringValidation: validating,
        requestId,
      },
    };
  }
}
