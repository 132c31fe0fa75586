import { ResponseValidationException } from "../../errors/exceptions";
import { renderException, toApiException } from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import { runIdempotent } from "../ops/idempotency";
import { withRateLimitHeaders } from "../ops/rate-limit";
import type { IncomingRequest } from "../request/incoming";
import type { CompiledRoute } from "./compile";
import { answerFailure, Failure } from "./failure";
import { callHandleError, type RequestContext, type ServedEndpoint } from "./open-api-route";

import type { RoutePlan, ValidationResult } from "./route-plan";

/**
 * The handler a router registers for a route: the route is compiled on its first request (a route that
 * cannot compile throws to the router), then every call is read by `incomingOf` and run.
 */
export function routeHandler(
  compile: () => CompiledRoute,
  served: ServedEndpoint,
  incomingOf: (args: unknown[]) => IncomingRequest,
): (...args: unknown[]) => Response | Promise<Response> {
  let route: CompiledRoute | undefined;
  return (...args) => {
    route ??= compile();
    return runEndpoint(route, served, incomingOf(args));
  };
}

/**
 * Runs one request: a per-request object inheriting from the route's instance, validation, `handle`,
 * and the conversion of its result; a failure is rendered and answered, or thrown to the router (see
 * `answerFailure`). Synchronous when validation and `handle` are: a promise is made only where
 * something is awaited, one step per wait.
 */
export function runEndpoint(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
): Response | Promise<Response> {
  if (route.plan.rateLimit === null) return run(route, served, incoming, undefined);
  // A limited route's answers carry its RateLimit headers (a 429 carries them on its exception).
  const state: ValidationResult = { validated: {}, unvalidated: {}, principal: undefined };
  const answer = run(route, served, incoming, state);
  const withHeaders = (response: Response) => withRateLimitHeaders(response, state.rateLimit);
  return answer instanceof Promise ? answer.then(withHeaders) : withHeaders(answer);
}

function run(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
  state: ValidationResult | undefined,
): Response | Promise<Response> {
  const ctx = route.newRequestState(incoming.args, served);
  let validation: ReturnType<RoutePlan["validate"]>;
  try {
    validation = route.plan.validate(incoming, state);
  } catch (thrown) {
    return fail(route, ctx, incoming, thrown, true);
  }
  if (validation instanceof Promise) {
    return validation.then(
      (result) => handleValidated(route, ctx, incoming, result),
      (thrown) => fail(route, ctx, incoming, thrown, true),
    );
  }
  return handleValidated(route, ctx, incoming, validation);
}

function handleValidated(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: ValidationResult,
): Response | Promise<Response> {
  const policy = route.plan.idempotency;
  if (policy === null) return handleRequest(route, ctx, incoming, result);
  // After validation, so a request refused with a 400 never claims its key.
  let fromRoute = false;
  const execute = () => {
    const answer = handleRequest(route, ctx, incoming, result);
    if (!(answer instanceof Promise)) return answer;
    return answer.catch((thrown) => {
      fromRoute = true;
      throw thrown;
    });
  };
  const request = {
    key: incoming.header("idempotency-key"),
    request: incoming.request,
    bodyBytes: result.bodyBytes,
    env: route.plan.bindingsOf(incoming.args),
  };
  // The route's own failure was answered already; the key's (400, 409, 422) and the store's are answered here.
  return runIdempotent(policy, request, execute).catch((thrown) =>
    fromRoute ? Promise.reject(thrown) : fail(route, ctx, incoming, thrown, false),
  );
}

function handleRequest(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  { validated, unvalidated, principal }: ValidationResult,
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
    return fail(route, ctx, incoming, thrown, false);
  }
  // As with validation: a promise only where `handle` returned one, so a synchronous handler stays synchronous.
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => respond(route, ctx, incoming, value),
      (thrown) => fail(route, ctx, incoming, thrown, false),
    );
  }
  return respond(route, ctx, incoming, result);
}

function respond(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
  validate = route.responder.validates,
): Response | Promise<Response> {
  // With the router's `validateResponse`, the result is checked (and stripped) first.
  if (validate) return validateAndRespond(route, ctx, incoming, result);
  try {
    // Only a route that offers several formats reads Accept.
    const accept = route.responder.readsAccept ? incoming.header("accept") : null;
    return route.responder.toResponse(result, accept, incoming.request);
  } catch (thrown) {
    return fail(route, ctx, incoming, thrown, false);
  }
}

async function validateAndRespond(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
): Promise<Response> {
  let checked: unknown;
  try {
    checked = await (route.validatesResponseItself ? ctx.validateResponse(result) : route.responder.validate(result));
  } catch (cause) {
    // The cause (the ZodError) reaches the log with the request id; the client sees "Internal Error".
    const thrown = new ResponseValidationException("Response body does not match schema", { cause });
    return fail(route, ctx, incoming, thrown, false);
  }
  return respond(route, ctx, incoming, checked, false);
}

/** `handleError` sees what was thrown; its Response, or the error rendered and delivered, is the answer. */
async function fail(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  thrown: unknown,
  duringValidation: boolean,
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
  return answerFailure(failure, route.passthroughErrors, route.failureAs);
}

/** Whether `handle` returned something to wait for (a promise, or any thenable, as `await` would take it). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function")
  );
}
