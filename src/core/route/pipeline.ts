import { type ApiException, ResponseValidationException } from "../../errors/exceptions";
import { renderException, toApiException } from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import type { IncomingRequest } from "../request/incoming";
import type { CompiledRoute } from "./compile";
import { callHandleError, type ServedEndpoint } from "./open-api-route";
import type { RequestContext } from "./request-state";
import type { RoutePlan, ValidationResult } from "./route-plan";

/** How a request ended when it did not produce a Response normally. */
export class Failure {
  constructor(
    /** The thrown value, as `handleError` left it. */
    readonly error: unknown,
    /** The thrown value before `handleError` saw it (what `passthroughErrors` hands to the router). */
    readonly thrown: unknown,
    /** The framework exception it maps to. */
    readonly exception: ApiException,
    /** That exception rendered. */
    readonly response: Response,
    /** Whether the error came from request validation rather than from `handle`. */
    readonly duringValidation: boolean,
    /** Set for failures the client is not told about: the id the response names and the log must show. */
    readonly requestId: string | undefined,
    /** The route that failed, as logs name it. */
    readonly label: string,
  ) {}
}

/** How the adapter answers a failure: the router's way (return a Response, or throw for its error hook). */
export type Deliver = (failure: Failure, args: unknown[]) => Response | Promise<Response>;

/**
 * Runs one request: a per-request object inheriting from the route's instance, validation, `handle`,
 * and the conversion of its result; failures are rendered and handed to `deliver`. Synchronous when
 * validation and `handle` are: a promise is made only where something is awaited, one step per wait.
 */
export function runEndpoint(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
  deliver: Deliver,
): Response | Promise<Response> {
  const ctx = route.newRequestState(incoming.args, served);
  let validation: ReturnType<RoutePlan["validate"]>;
  try {
    validation = route.plan.validate(incoming);
  } catch (thrown) {
    return fail(route, ctx, incoming, thrown, true, deliver);
  }
  if (validation instanceof Promise) {
    return validation.then(
      (result) => handleValidated(route, ctx, incoming, result, deliver),
      (thrown) => fail(route, ctx, incoming, thrown, true, deliver),
    );
  }
  return handleValidated(route, ctx, incoming, validation, deliver);
}

function handleValidated(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  { validated, unvalidated, principal }: ValidationResult,
  deliver: Deliver,
): Response | Promise<Response> {
  ctx.unvalidatedData = unvalidated;
  ctx.validatedData = validated;
  ctx.authPrincipal = principal;
  // Reading the body may have given the handler new arguments (itty-router: the request that reads it again).
  ctx.args = incoming.args;
  let result: unknown;
  try {
    result = ctx.handle(...ctx.args);
  } catch (thrown) {
    return fail(route, ctx, incoming, thrown, false, deliver);
  }
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => respond(route, ctx, incoming, value, deliver),
      (thrown) => fail(route, ctx, incoming, thrown, false, deliver),
    );
  }
  return respond(route, ctx, incoming, result, deliver);
}

function respond(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
  deliver: Deliver,
  validate = route.responder.validates,
): Response | Promise<Response> {
  // With the router's `validateResponse`, the result is checked (and stripped) first.
  if (validate) return validateAndRespond(route, ctx, incoming, result, deliver);
  try {
    // Only a route that offers several formats reads Accept.
    const accept = route.responder.readsAccept ? incoming.header("accept") : null;
    return route.responder.toResponse(result, accept, incoming.request);
  } catch (thrown) {
    return fail(route, ctx, incoming, thrown, false, deliver);
  }
}

async function validateAndRespond(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
  deliver: Deliver,
): Promise<Response> {
  let checked: unknown;
  try {
    checked = await ctx.validateResponse(result);
  } catch (cause) {
    // The cause (the ZodError) reaches the log with the request id; the client sees "Internal Error".
    const thrown = new ResponseValidationException("Response body does not match schema", { cause });
    return fail(route, ctx, incoming, thrown, false, deliver);
  }
  return respond(route, ctx, incoming, checked, deliver, false);
}

/** `handleError` sees what was thrown; its Response, or the error rendered and delivered, is the answer. */
async function fail(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  thrown: unknown,
  duringValidation: boolean,
  deliver: Deliver,
): Promise<Response> {
  let error: unknown = thrown;
  if (!route.passthroughErrors) {
    try {
      error = await callHandleError(ctx, thrown);
    } catch (rethrown) {
      error = rethrown;
    }
  }
  if (error instanceof Response) return error;
  const exception = toApiException(error, route.handlerZodErrors);
  const requestId = needsRequestId(exception) ? requestIdFor(incoming.request) : undefined;
  const response = renderException(exception, route.errorFormat, requestId);
  const failure = new Failure(error, thrown, exception, response, duringValidation, requestId, route.label);
  return deliver(failure, incoming.args);
}

/** Whether `handle` returned something to wait for (a promise, or any thenable, as `await` would take it). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function")
  );
}
