import { isApiException, MultiException, ResponseValidationException } from "../../errors/exceptions";
import { renderException, toApiException } from "../../errors/render";
import { needsRequestId, requestIdFor } from "../../errors/request-id";
import type { IncomingRequest } from "../request/incoming";
import type { CompiledRoute } from "./compile";
import { answerFailure, type Failure } from "./failure";
import { callHandleError, type RequestContext, type ServedEndpoint } from "./open-api-route";
import { isResponse } from "./respond";
import type { ValidationResult } from "./route-plan";
import { enterSpan, type RouteTrace, type TraceAttributes, type TraceSpan } from "./tracing";

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
 * something is awaited, one step per wait. A traced route runs the same steps in its request's span.
 */
export function runEndpoint(
  route: CompiledRoute,
  served: ServedEndpoint,
  incoming: IncomingRequest,
): Response | Promise<Response> {
  if (route.trace) return runTraced(route, served, incoming, route.trace);
  return new Exchange(route, served, incoming, UNTRACED).run();
}

/** No attributes, for a span that has none when it starts. */
const NO_ATTRIBUTES: TraceAttributes = Object.freeze({});

/** The span of a request its router does not trace: every call does nothing, and `child()` is itself. */
const UNTRACED: TraceSpan = Object.freeze({
  child: () => UNTRACED,
  event() {},
  run: <T>(work: () => T): T => work(),
  set() {},
  end() {},
});

/** Which step failed: validation's failures are delivered as such to the router (see `Failure`). */
type FailedStep = "validation" | "handler";

/**
 * One request on its way through its route, and each step it takes: the compiled route, what the
 * router handed in, the request's own endpoint object (`this` in `handle()`), what validation gave, and
 * the span the request is traced in (`UNTRACED` on a router without tracing).
 */
class Exchange {
  readonly ctx: RequestContext;
  /** What validation gave, filled as it reads: a failure held for `handle()` still hands it what was read. */
  readonly result: ValidationResult = { validated: {}, unvalidated: {}, principal: undefined };
  /** Set when the route itself rejected under an idempotency key: its failure goes to the router as it is. */
  private routeRejected = false;

  constructor(
    readonly route: CompiledRoute,
    served: ServedEndpoint,
    readonly incoming: IncomingRequest,
    readonly span: TraceSpan,
  ) {
    this.ctx = route.newRequestState(incoming.args, served);
  }

  /**
   * Validates, then handles. A limited route's successful answers carry its RateLimit headers (a 429
   * carries them on its exception). Other errors do not, on either router: on Hono they are answered by
   * the app's error hook, and the document lists the headers on the route's own answers and the 429.
   */
  run(): Response | Promise<Response> {
    const policy = this.route.plan.rateLimit;
    const answer = this.validateRequest();
    if (policy === null) return answer;
    const withHeaders = (response: Response) =>
      response.status < 400 ? policy.withHeaders(response, this.result.rateLimit) : response;
    return answer instanceof Promise ? answer.then(withHeaders) : withHeaders(answer);
  }

  private validateRequest(): Response | Promise<Response> {
    const validating = this.span.child("validate", "internal", NO_ATTRIBUTES);
    let validation: ValidationResult | Promise<ValidationResult>;
    try {
      validation = this.route.plan.validateRequest(this.incoming, this.result);
    } catch (thrown) {
      return this.failValidation(thrown, validating);
    }
    if (validation instanceof Promise) {
      return validation.then(
        () => this.handleValidated(validating),
        (thrown) => this.failValidation(thrown, validating),
      );
    }
    return this.handleValidated(validating);
  }

  private handleValidated(validating: TraceSpan): Response | Promise<Response> {
    validating.end();
    const policy = this.route.plan.idempotency;
    if (policy === null) return this.handle();
    // After validation, so a request refused with a 400 never claims its key.
    const { incoming, result } = this;
    const request = {
      key: incoming.header("idempotency-key"),
      request: incoming.request,
      bodyBytes: result.bodyBytes,
      principal: result.principal,
      authenticatedBy: result.authenticatedBy,
      env: this.route.plan.bindingsOf(incoming.args),
      args: incoming.args,
    };
    // The route's own failure was answered already; the key's (400, 409, 422) and the store's are answered here.
    return policy
      .run(request, () => this.handleRecordingRejection())
      .catch((thrown) => (this.routeRejected ? Promise.reject(thrown) : this.fail(thrown, "handler")));
  }

  private handleRecordingRejection(): Response | Promise<Response> {
    const answer = this.handle();
    if (!(answer instanceof Promise)) return answer;
    return answer.catch((thrown) => {
      this.routeRejected = true;
      throw thrown;
    });
  }

  /**
   * A request that failed validation: answered now, or, on a route raising it when asked, handed to
   * `handle()` with the failure held for its `getValidatedData()` (see `answerHandled`). Only 400s are
   * held: a refused authentication, a body too large or of the wrong type is answered before the handler.
   */
  private failValidation(thrown: unknown, validating: TraceSpan): Response | Promise<Response> {
    endValidationSpan(validating, thrown);
    if (!this.route.plan.raisesWhenAsked || !(thrown instanceof MultiException) || thrown.status !== 400) {
      return this.fail(thrown, "validation");
    }
    this.ctx.heldFailure = thrown;
    return this.handle();
  }

  /** Calls `handle()` (in a span of its own when traced) with what validation gave. */
  private handle(): Response | Promise<Response> {
    const { ctx, span } = this;
    this.enterValidated();
    const handling =
      span === UNTRACED
        ? UNTRACED
        : span.child("handle", "internal", { "code.function.name": this.route.endpoint.constructor.name });
    if (handling !== UNTRACED) enterSpan(ctx, handling);
    let result: unknown;
    try {
      // The untraced call makes no closure.
      result = handling === UNTRACED ? ctx.handle(...ctx.args) : handling.run(() => ctx.handle(...ctx.args));
    } catch (thrown) {
      handling.end(handlerErrorType(thrown));
      return this.failHandled(thrown);
    }
    // As with validation: a promise only where `handle` returned one, so a synchronous handler stays synchronous.
    if (!isThenable(result)) return this.answerHandled(result, handling);
    return Promise.resolve(result).then(
      (value) => this.answerHandled(value, handling),
      (thrown) => {
        handling.end(handlerErrorType(thrown));
        return this.failHandled(thrown);
      },
    );
  }

  private enterValidated(): void {
    const { ctx, result } = this;
    ctx.unvalidatedData = result.unvalidated;
    // What parsed of a request that failed is no validated data: the handler gets the failure instead.
    if (ctx.heldFailure === undefined) ctx.validatedData = result.validated;
    ctx.authPrincipal = result.principal;
    // Reading the body may have given the handler new arguments (itty-router: the request that reads it again).
    ctx.args = this.incoming.args;
  }

  /**
   * What `handle()` returned, answered. On a request whose validation failure is held: a handler that
   * never asked for its data, or asked and caught the 400, answers the 400 all the same, unless it answered
   * an error of its own (a Response of status 400 or more), since the document promises the 400 for input
   * the schema refuses.
   */
  private answerHandled(result: unknown, handling: TraceSpan): Response | Promise<Response> {
    handling.end();
    const held = this.ctx.heldFailure;
    if (held === undefined || (isResponse(result) && result.status >= 400)) return this.respond(result);
    setAside(result);
    return this.fail(held, "validation");
  }

  /**
   * What `handle()` threw, failed: the held validation failure it was raised (counts as validation's). On a
   * request whose failure is held, anything else thrown answers for itself only as an error: a thrown
   * `Response` of status below 400, or one `handleError()` made of the error, gives way to the 400.
   */
  private failHandled(thrown: unknown): Promise<Response> {
    const held = this.ctx.heldFailure;
    if (held === undefined) return this.fail(thrown, "handler");
    if (thrown === held) return this.fail(thrown, "validation");
    return this.fail(thrown, "handler").then((response) => {
      if (response.status >= 400) return response;
      setAside(response);
      return this.fail(held, "validation");
    });
  }

  /** `handle()`'s result as a Response; with the router's `validateResponse`, checked (and stripped) first. */
  private respond(result: unknown): Response | Promise<Response> {
    if (this.route.responses.validates) return this.validateAndRespond(result);
    return this.toResponse(result);
  }

  private toResponse(result: unknown): Response | Promise<Response> {
    const { responses } = this.route;
    try {
      // Only a route that offers several formats reads Accept.
      const accept = responses.readsAccept ? this.incoming.header("accept") : null;
      return responses.toResponse(result, accept, this.incoming.request);
    } catch (thrown) {
      return this.fail(thrown, "handler");
    }
  }

  private async validateAndRespond(result: unknown): Promise<Response> {
    const { route } = this;
    let checked: unknown;
    try {
      checked = await (route.validatesResponseItself
        ? this.ctx.validateResponse(result)
        : route.responses.validateResponse(result));
    } catch (cause) {
      // The cause (the ZodError) reaches the log with the request id; the client sees "Internal Error".
      const thrown = new ResponseValidationException("Response body does not match schema", { cause });
      return this.fail(thrown, "handler");
    }
    return this.toResponse(checked);
  }

  /** `handleError` sees what was thrown; its Response, or the error rendered and delivered, is the answer. */
  private async fail(thrown: unknown, step: FailedStep): Promise<Response> {
    const { route } = this;
    let error: unknown = thrown;
    if (!route.passthroughErrors) {
      try {
        error = await callHandleError(this.ctx, thrown);
      } catch (rethrown) {
        error = rethrown;
      }
    }
    if (isResponse(error)) return error;
    const exception = toApiException(error, route.handlerZodErrors);
    const requestId = needsRequestId(exception) ? requestIdFor(this.incoming.request) : undefined;
    const response = renderException(exception, route.errorFormat, requestId);
    const duringValidation = step === "validation";
    const failure: Failure = { error, thrown, exception, response, duringValidation, requestId, label: route.label };
    return answerFailure(failure, route.passthroughErrors, route.failureAs);
  }
}

/** Each field that failed validation is an event of the validation span: its path and message, never its value. */
function endValidationSpan(validating: TraceSpan, thrown: unknown): void {
  if (validating !== UNTRACED && isApiException(thrown) && thrown.isVisible) {
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

/** An answer the held 400 replaces: its body cancelled, so a stream it started (a timer, a subscription) ends. */
function setAside(answer: unknown): void {
  if (!isResponse(answer) || answer.body === null || answer.bodyUsed) return;
  answer.body.cancel().catch(() => {});
}

/** Whether `handle` returned something to wait for (a promise, or any thenable, as `await` would take it). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function")
  );
}

// Tracing. A route whose router has a `tracing` option runs the same steps in its request's span (kind
// SERVER, named by the route), validation and the handler call in spans under it.

/** Runs one request in its span, ended with the answer's status. */
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
    answer = span.run(() => new Exchange(route, served, incoming, span).run());
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
