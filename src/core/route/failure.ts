import { type ApiException, isApiException, MultiException } from "../../errors/exceptions";
import { isZodError } from "../../errors/render";

/** How a request ended when it did not produce a Response normally. */
export interface Failure {
  /** The thrown value, as `handleError` left it. */
  readonly error: unknown;
  /** The thrown value before `handleError` saw it (what `passthroughErrors` hands to the router). */
  readonly thrown: unknown;
  /** The framework exception it maps to. */
  readonly exception: ApiException;
  /** That exception rendered. */
  readonly response: Response;
  /** Whether the error came from request validation rather than from `handle`. */
  readonly duringValidation: boolean;
  /** Set for failures the client is not told about: the id the response names and the log must show. */
  readonly requestId: string | undefined;
  /** The route that failed, as logs name it. */
  readonly label: string;
}

/**
 * What a router's error hook is thrown for a rendered failure (Hono: an HTTPException whose response is
 * the rendered one). A router without one (itty-router) answers with the rendered response itself.
 */
export type FailureAs = (failure: Failure) => unknown;

/**
 * The answer to a failure, or what is thrown to the router: with `passthroughErrors` what was thrown;
 * an Error of the app's own as it is, for the router's error hook (Hono's onError, itty-router's catch),
 * as in chanfana; the framework's errors rendered, thrown as the router's error hook takes them (see
 * `FailureAs`) or answered. A thrown non-Error (a string, null) is answered, as Hono would not hand it to onError.
 */
export async function answerFailure(
  failure: Failure,
  passthroughErrors: boolean,
  failureAs: FailureAs | undefined,
): Promise<Response> {
  if (passthroughErrors) throw passedThrough(failure);
  if (failure.error instanceof Error && !isFrameworkError(failure.error)) throw failure.error;
  if (failure.requestId !== undefined) {
    console.error(
      `[specroute] ${failure.exception.status} in ${failure.label}, request id ${failure.requestId}:`,
      failure.error,
    );
  }
  if (failureAs === undefined) return failure.response;
  throw await failureAs(failure);
}

/** Whether specroute formats an error itself: its exceptions (by shape) and ZodErrors. */
function isFrameworkError(error: unknown): boolean {
  return isApiException(error) || isZodError(error);
}

/**
 * What `passthroughErrors` throws: what was thrown, before `handleError`; a validation failure always as
 * a MultiException, as chanfana throws it (an authentication failure stays as it is).
 */
function passedThrough(failure: Failure): unknown {
  const { thrown } = failure;
  const isMulti = Array.isArray((thrown as { errors?: unknown } | null)?.errors);
  if (!failure.duringValidation || !isApiException(thrown) || isMulti) return thrown;
  if (thrown.status === 401 || thrown.status === 403) return thrown;
  return new MultiException([thrown]);
}
