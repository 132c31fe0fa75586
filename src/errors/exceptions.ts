import { z } from "zod";
import { ERROR_CODES, type ErrorName, HIDDEN_MESSAGE } from "./codes";

/** One entry of the `errors` array of an error response. */
export interface ErrorItem {
  code: number;
  message: string;
  path?: Array<string | number>;
}

/** A `responses` entry for one status, as spread into an endpoint schema. */
type ErrorResponseConfig = Record<
  string,
  { description: string; content: { "application/json": { schema: z.ZodType } } }
>;

const errorItemSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
});

/** Schema of the error envelope every ApiException renders to. */
export const errorEnvelopeSchema = z.object({
  success: z.literal(false),
  errors: z.array(errorItemSchema),
  result: z.object({}),
});

/**
 * Base of every framework exception. Thrown from `handle`, it becomes the error envelope
 * `{"success":false,"errors":[{code,message}],"result":{}}` with its status.
 *
 * @example
 * throw new ApiException("Upstream quota exhausted");
 */
export class ApiException extends Error {
  static readonly errorName: ErrorName = "ApiException";
  code: number;
  status: number;
  isVisible: boolean;
  default_message: string;
  includesPath = false;
  /** Seconds for a `Retry-After` header, where the status uses one. */
  retryAfter?: number;
  /** Extra response headers set when the exception is rendered. */
  headers?: Record<string, string>;

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    const entry = ERROR_CODES[(this.constructor as typeof ApiException).errorName];
    this.name = (this.constructor as typeof ApiException).errorName;
    this.code = entry.code;
    this.status = entry.status;
    this.isVisible = entry.visible;
    this.default_message = entry.message;
    this.message = message || entry.message;
  }

  /** The `errors` entries this exception contributes to the response body. */
  buildResponse(): ErrorItem[] {
    return [{ code: this.code, message: this.isVisible ? this.message : HIDDEN_MESSAGE }];
  }

  /** A `responses` entry documenting this exception, to spread into `schema.responses`. */
  static schema(): ErrorResponseConfig {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass schema() was called on.
    const entry = ERROR_CODES[this.errorName];
    return {
      [String(entry.status)]: {
        description: entry.message,
        content: { "application/json": { schema: errorEnvelopeSchema } },
      },
    };
  }
}

/** 400: a request part failed validation. `path` names the field, e.g. `["body", "email"]`. */
export class InputValidationException extends ApiException {
  static override readonly errorName: ErrorName = "InputValidationException";
  override includesPath = true;
  path: Array<string | number> | null;

  constructor(message?: string, path?: Array<string | number> | null) {
    super(message);
    this.path = path ?? null;
  }

  override buildResponse(): ErrorItem[] {
    return [{ code: this.code, message: this.message, path: this.path ?? [] }];
  }
}

/** Several exceptions answered at once; the response takes the highest status among them. */
export class MultiException extends ApiException {
  errors: ApiException[];

  constructor(errors: ApiException[]) {
    super("Multiple Exceptions");
    this.errors = errors;
    this.status = Math.max(...errors.map((err) => err.status), 400);
    this.isVisible = errors.every((err) => err.isVisible);
    this.code = errors[0]?.code ?? this.code;
  }

  override buildResponse(): ErrorItem[] {
    return this.errors.flatMap((err) => err.buildResponse());
  }
}

/** Exceptions whose status asks the client to wait: they carry `Retry-After`. */
class RetryableException extends ApiException {
  constructor(message?: string, retryAfter?: number) {
    super(message);
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/** 404: the resource does not exist. */
export class NotFoundException extends ApiException {
  static override readonly errorName: ErrorName = "NotFoundException";
}
/** 401: credentials are missing or invalid. */
export class UnauthorizedException extends ApiException {
  static override readonly errorName: ErrorName = "UnauthorizedException";
}
/** 403: the caller may not do this. */
export class ForbiddenException extends ApiException {
  static override readonly errorName: ErrorName = "ForbiddenException";
}
/** 405: the method is not allowed on this path. */
export class MethodNotAllowedException extends ApiException {
  static override readonly errorName: ErrorName = "MethodNotAllowedException";
}
/** 409: the request conflicts with the stored state (e.g. a duplicate unique key). */
export class ConflictException extends ApiException {
  static override readonly errorName: ErrorName = "ConflictException";
}
/** 422: well-formed but semantically unacceptable. */
export class UnprocessableEntityException extends ApiException {
  static override readonly errorName: ErrorName = "UnprocessableEntityException";
}
/** 429 with `Retry-After` when `retryAfter` (seconds) is given. */
export class TooManyRequestsException extends RetryableException {
  static override readonly errorName: ErrorName = "TooManyRequestsException";
}
/** 500 whose message never reaches the client. */
export class InternalServerErrorException extends ApiException {
  static override readonly errorName: ErrorName = "InternalServerErrorException";
}
/** 502: an upstream answered badly. */
export class BadGatewayException extends ApiException {
  static override readonly errorName: ErrorName = "BadGatewayException";
}
/** 503 with `Retry-After` when `retryAfter` (seconds) is given. */
export class ServiceUnavailableException extends RetryableException {
  static override readonly errorName: ErrorName = "ServiceUnavailableException";
}
/** 504: an upstream did not answer in time. */
export class GatewayTimeoutException extends ApiException {
  static override readonly errorName: ErrorName = "GatewayTimeoutException";
}
/** 500: `handle` returned data that does not match its declared response (with `validateResponse`). */
export class ResponseValidationException extends ApiException {
  static override readonly errorName: ErrorName = "ResponseValidationException";
}
/** 413: the request body is larger than the configured limit. */
export class PayloadTooLargeException extends ApiException {
  static override readonly errorName: ErrorName = "PayloadTooLargeException";
}
/** 415: the request's `Content-Type` is not one the endpoint declares. */
export class UnsupportedMediaTypeException extends ApiException {
  static override readonly errorName: ErrorName = "UnsupportedMediaTypeException";
}

/** Whether a thrown value is a framework exception, by shape, so two loaded copies still agree. */
export function isApiException(err: unknown): err is ApiException {
  return (
    typeof err === "object" &&
    err !== null &&
    typeof (err as ApiException).buildResponse === "function" &&
    typeof (err as ApiException).status === "number"
  );
}
