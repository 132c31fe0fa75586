import { isApiException, MultiException, ResponseValidationException } from "../../errors/exceptions";
import { renderException, toApiException } from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import type { IncomingRequest } from "../request/incoming";
import type { CompiledRoute } from "./compile";
import { answerFailure, Failure } from "./failure";
import { callHandleError, type RequestContext, type ServedEndpoint } from "./open-api-route";
import { isResponse } from "./respond";

import type { RoutePlan, ValidationResult } from "./route-plan";
import { enterSpan, type RouteTrace, type TraceSpan } from "./tracing";

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
  if (route.trace) return runTraced(route, served, incoming, route.trace);
  return runLimited(route, served, incoming, undefined);
}

/**
 * A limited route's successful answers carry its RateLimit headers (a 429 carries them on its exception).
 * Other errors do not, on either router: on Hono they are answered by the app's error hook, and the
 * document lists the headers on the route's own answers and the 429.
 */
function runLimited(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
  span: TraceSpan | undefined,
): Response | Promise<Response> {
  const policy = route.plan.rateLimit;
  if (policy === null) return run(route, served, incoming, undefined, span);
  const state: ValidationResult = { validated: {}, unvalidated: {}, principal: undefined };
  const answer = run(route, served, incoming, state, span);
  const withHeaders = (response: Response) =>
    response.status < 400 ? policy.withHeaders(response, state.rateLimit) : response;
  return answer instanceof Promise ? answer.then(withHeaders) : withHeaders(answer);
}

function run(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
  state: ValidationResult | undefined,
  span: TraceSpan | undefined,
): Response | Promise<Response> {
  const ctx = route.newRequestState(incoming.args, served);
  const validating = span?.child("validate", "internal", {});
  // Kept here, so a failure held for handle() still hands it what was read (and who was authenticated).
  const result = state ?? { validated: {}, unvalidated: {}, principal: undefined };
  let validation: ReturnType<RoutePlan["validate"]>;
  try {
    validation = route.plan.validate(incoming, result);
  } catch (thrown) {
    return failValidation(route, ctx, incoming, result, thrown, span, validating);
  }
  if (validation instanceof Promise) {
    return validation.then(
      (validated) => handleValidated(route, ctx, incoming, validated, span, validating),
      (thrown) => failValidation(route, ctx, incoming, result, thrown, span, validating),
    );
  }
  return handleValidated(route, ctx, incoming, validation, span, validating);
}

function handleValidated(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: ValidationResult,
  span: TraceSpan | undefined,
  validating: TraceSpan | undefined,
): Response | Promise<Response> {
  validating?.end();
  const policy = route.plan.idempotency;
  // The common route (untraced, no idempotency keys) makes no closure.
  if (policy === null && span === undefined) return handleRequest(route, ctx, incoming, result);
  const handle = () =>
    span ? handleInSpan(route, ctx, incoming, result, span) : handleRequest(route, ctx, incoming, result);
  if (policy === null) return handle();
  // After validation, so a request refused with a 400 never claims its key.
  let fromRoute = false;
  const execute = () => {
    const answer = handle();
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
    principal: result.principal,
    authenticatedBy: result.authenticatedBy,
    env: route.plan.bindingsOf(incoming.args),
    args: incoming.args,
  };
  // The route's own failure was answered already; the key's (400, 409, 422) and the store's are answered here.
  return policy
    .run(request, execute)
    .catch((thrown) => (fromRoute ? Promise.reject(thrown) : fail(route, ctx, incoming, thrown, false)));
}

function handleRequest(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  validation: ValidationResult,
): Response | Promise<Response> {
  enterValidated(ctx, incoming, validation);
  let result: unknown;
  try {
    result = ctx.handle(...ctx.args);
  } catch (thrown) {
    return failHandled(route, ctx, incoming, thrown);
  }
  // As with validation: a promise only where `handle` returned one, so a synchronous handler stays synchronous.
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => answerHandled(route, ctx, incoming, value),
      (thrown) => failHandled(route, ctx, incoming, thrown),
    );
  }
  return answerHandled(route, ctx, incoming, result);
}

/**
 * A request that failed validation: answered now, or, on a route raising it when asked, handed to
 * `handle()` with the failure held for its `getValidatedData()` (see `answerHandled`). Only 400s are
 * held: a refused authentication, a body too large or of the wrong type is answered before the handler.
 */
function failValidation(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: ValidationResult,
  thrown: unknown,
  span: TraceSpan | undefined,
  validating: TraceSpan | undefined,
): Response | Promise<Response> {
  if (validating) endValidationSpan(validating, thrown);
  if (!route.plan.raisesWhenAsked || !(thrown instanceof MultiException) || thrown.status !== 400) {
    return fail(route, ctx, incoming, thrown, true);
  }
  ctx.heldFailure = thrown;
  return span ? handleInSpan(route, ctx, incoming, result, span) : handleRequest(route, ctx, incoming, result);
}

/** Each field that failed validation is an event of the validation span: its path and message, never its value. */
function endValidationSpan(validating: TraceSpan, thrown: unknown): void {
  if (isApiException(thrown) && thrown.isVisible) {
    for (const { path, message } of thrown.buildResponse()) {
      if (!path) continue;
      validating.event("specroute.validation.failed", {
        "specroute.validation.path": path.join("."),
        "specroute.validation.message": message,
      });
    }
  }
  validating.end();
}

/**
 * What `handle()` returned, answered. On a request whose validation failure is held: a handler that
 * never asked for its data, or asked and caught the 400, answers the 400 all the same, unless it answered
 * an error of its own (a Response of status 400 or more), since the document promises the 400 for input
 * the schema refuses.
 */
function answerHandled(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
): Response | Promise<Response> {
  const held = ctx.heldFailure;
  if (held === undefined || (isResponse(result) && result.status >= 400)) {
    return respond(route, ctx, incoming, result);
  }
  setAside(result);
  return fail(route, ctx, incoming, held, true);
}

/** An answer the held 400 replaces: its body cancelled, so a stream it started (a timer, a subscription) ends. */
function setAside(answer: unknown): void {
  if (!isResponse(answer) || answer.body === null || answer.bodyUsed) return;
  answer.body.cancel().catch(() => {});
}

/**
 * What `handle()` threw, failed: the held validation failure it was raised (counts as validation's). On a
 * request whose failure is held, anything else thrown answers for itself only as an error: a thrown
 * `Response` of status below 400, or one `handleError()` made of the error, gives way to the 400.
 */
function failHandled(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  thrown: unknown,
): Promise<Response> {
  const held = ctx.heldFailure;
  if (held === undefined) return fail(route, ctx, incoming, thrown, false);
  if (thrown === held) return fail(route, ctx, incoming, thrown, true);
  return fail(route, ctx, incoming, thrown, false).then((response) => {
    if (response.status >= 400) return response;
    setAside(response);
    return fail(route, ctx, incoming, held, true);
  });
}

function enterValidated(
  ctx: RequestContext,
  incoming: IncomingRequest,
  { validated, unvalidated, principal }: ValidationResult,
): void {
  ctx.unvalidatedData = unvalidated;
  // What parsed of a request that failed is no validated data: the handler gets the failure instead.
  if (ctx.heldFailure === undefined) ctx.validatedData = validated;
  ctx.authPrincipal = principal;
  // Reading the body may have given the handler new arguments (itty-router: the request that reads it again).
  ctx.args = incoming.args;
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
  if (isResponse(error)) return error;
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

// Tracing. A route whose router has a `tracing` option runs the same steps as above (its validation in a
// span of its own, see `run`), the handler call in a span under the request's; a route without one never
// reaches this code.

/** Runs one request in its span (kind SERVER, named by the route), ended with the answer's status. */
function runTraced(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
  trace: RouteTrace,
): Response | Promise<Response> {
  const attributes = requestAttributes(trace, incoming);
  const name = trace.name ?? `${attributes["http.request.method"]} ${trace.route}`;
  const span = trace.tracing.request(name, attributes, (header) => incoming.header(header));
  let answer: Response | Promise<Response>;
  try {
    answer = span.run(() => runLimited(route, served, incoming, span));
  } catch (thrown) {
    endThrown(span, thrown);
    throw thrown;
  }
  if (!(answer instanceof Promise)) return endAnswered(span, answer);
  return answer.then(
    (response) => endAnswered(span, response),
    (thrown) => {
      endThrown(span, thrown);
      throw thrown;
    },
  );
}

function requestAttributes(trace: RouteTrace, incoming: IncomingRequest) {
  const { url, method } = incoming.request;
  // The path alone: the query may carry what the app would not log.
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split(/[?#]/, 1)[0] || "/";
  return { "http.request.method": method.toUpperCase(), "http.route": trace.route, "url.path": path };
}

function handleInSpan(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  validation: ValidationResult,
  span: TraceSpan,
): Response | Promise<Response> {
  enterValidated(ctx, incoming, validation);
  const handling = span.child("handle", "internal", { "code.function.name": route.endpoint.constructor.name });
  enterSpan(ctx, handling);
  let result: unknown;
  try {
    result = handling.run(() => ctx.handle(...ctx.args));
  } catch (thrown) {
    handling.end(handlerErrorType(thrown));
    return failHandled(route, ctx, incoming, thrown);
  }
  if (!isThenable(result)) return handledInSpan(route, ctx, incoming, result, handling);
  return Promise.resolve(result).then(
    (value) => handledInSpan(route, ctx, incoming, value, handling),
    (thrown) => {
      handling.end(handlerErrorType(thrown));
      return failHandled(route, ctx, incoming, thrown);
    },
  );
}

function handledInSpan(
  route: CompiledRoute,
  ctx: RequestContext,
  incoming: IncomingRequest,
  result: unknown,
  handling: TraceSpan,
): Response | Promise<Response> {
  handling.end();
  return answerHandled(route, ctx, incoming, result);
}

/** What `handle` threw, as `error.type`: none for a framework error the client is to blame for (a 404, a 409). */
function handlerErrorType(thrown: unknown): string | undefined {
  if (isApiException(thrown) && thrown.status < 500) return undefined;
  return errorTypeOf(thrown);
}

/** The request span ended with the response: a 5xx is an error, typed by its status code. */
function endAnswered(span: TraceSpan, response: Response): Response {
  span.set({ "http.response.status_code": response.status });
  span.end(response.status >= 500 ? String(response.status) : undefined);
  return response;
}

/**
 * The request span ended with what went to the router's error hook: a framework error carries its
 * status (Hono's HTTPException); what the app threw is answered by the router, a 500 unless an error
 * hook of the app's answers otherwise, which the span cannot see (the hook runs after it ends).
 */
function endThrown(span: TraceSpan, thrown: unknown): void {
  const status = (thrown as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 100 && status < 600) {
    span.set({ "http.response.status_code": status });
    span.end(status >= 500 ? String(status) : undefined);
    return;
  }
  span.set({ "http.response.status_code": 500 });
  span.end(errorTypeOf(thrown));
}

/** A thrown value's class name (`TypeError`), as `error.type`; `_OTHER` when it has none. */
function errorTypeOf(thrown: unknown): string {
  const name = (thrown as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? name : "_OTHER";
}
