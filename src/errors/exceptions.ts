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

const errorCode = z.number().int();
const errorPath = z.array(z.union([z.string(), z.number()]));

function envelopeOf<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(false), errors: z.array(item), result: z.object({}) });
}

/** Schema of the error envelope every ApiException renders to (`path` is there for field errors). */
export const errorEnvelopeSchema = envelopeOf(
  z.object({ code: errorCode, message: z.string(), path: errorPath.optional() }),
);
/** Schema of an RFC 9457 problem details body, what errors render to under `errorFormat: "problem"`. */
export const problemBodySchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ code: errorCode, message: z.string(), path: errorPath.optional() })),
});
// What `static schema()` documents for exceptions without `includesPath`: items without `path`.
const plainEnvelopeSchema = envelopeOf(z.object({ code: errorCode, message: z.string() }));
const ENVELOPES: ReadonlySet<z.ZodType> = new Set([errorEnvelopeSchema, plainEnvelopeSchema]);

/** Whether a response schema is one of the error envelopes (the document swaps them for problem details). */
export function isErrorEnvelopeSchema(schema: unknown): boolean {
  return ENVELOPES.has(schema as z.ZodType);
}

type ExceptionDefaults = Partial<
  Pick<ApiException, "code" | "status" | "isVisible" | "default_message" | "includesPath">
>;

/**
 * Puts a class's defaults on its prototype, so an instance reads them unless it has its own: a user
 * subclass's class fields (assigned after `super()`) and later assignments both win over them.
 */
function setDefaults(target: { prototype: object }, defaults: ExceptionDefaults & { name?: string }): void {
  for (const [key, value] of Object.entries(defaults)) {
    Object.defineProperty(target.prototype, key, { value, writable: true, configurable: true, enumerable: false });
  }
}

const BUILT_IN_NAME = Symbol("specroute.exceptionName");

// Built-in exceptions' `responses` entries, made once, and the component name each is documented under.
const sharedSchemas = new WeakMap<object, ErrorResponseConfig>();
const sharedNames = new WeakMap<object, string>();

/**
 * The name a built-in exception's `responses` entry is documented under once, in
 * `components.responses` (`NotFound`, `InputValidation`, …); undefined for any other entry.
 */
export function sharedResponseName(config: object): string | undefined {
  return sharedNames.get(config);
}

/** The defaults of a built-in class, from the one code table. */
function tableDefaults(target: { prototype: object }, name: ErrorName): void {
  const entry = ERROR_CODES[name];
  // Written out, not read from the class: a minified bundle renames classes.
  Object.defineProperty(target.prototype, BUILT_IN_NAME, { value: name });
  setDefaults(target, {
    code: entry.code,
    status: entry.status,
    isVisible: entry.visible,
    default_message: entry.message,
  });
}

/**
 * Base of every framework exception. Thrown from `handle`, it becomes the error envelope
 * `{"success":false,"errors":[{code,message}],"result":{}}` with its status. Subclass it and set
 * `status`, `code`, `default_message`, `isVisible` (and `includesPath`) as class fields.
 *
 * @example
 * class TeapotException extends ApiException {
 *   status = 418;
 *   code = 7418;
 *   default_message = "I am a teapot";
 * }
 * throw new ApiException("Upstream quota exhausted"); // 500, message shown
 */
export class ApiException extends Error {
  // Declared, not initialised: the values live on the prototypes so subclass fields can override them.
  declare code: number;
  declare status: number;
  /** Whether the message reaches the client; when false it reads "Internal Error". */
  declare isVisible: boolean;
  /** The message used when none is given. */
  declare default_message: string;
  /** Whether the response items carry the `path` of the offending field. */
  declare includesPath: boolean;
  /** Seconds for a `Retry-After` header, where the status uses one. */
  declare retryAfter?: number;
  /** Extra response headers set when the exception is rendered. */
  declare headers?: Record<string, string>;

  // Each static block names its class `this`: naming the class itself there makes esbuild rename it
  // (`class _NotFoundException`), which an app's `err.constructor.name` would show.
  static {
    tableDefaults(this, "ApiException");
    setDefaults(this, { includesPath: false });
    // A built-in class is named from the table; a subclass of yours by its own class name (`TeapotException`).
    Object.defineProperty(this.prototype, "name", {
      configurable: true,
      get(this: ApiException) {
        const prototype = Object.getPrototypeOf(this) as Record<symbol, string>;
        if (Object.hasOwn(prototype, BUILT_IN_NAME)) return prototype[BUILT_IN_NAME];
        return this.constructor.name || prototype[BUILT_IN_NAME];
      },
      set(this: ApiException, value: string) {
        Object.defineProperty(this, "name", { value, writable: true, configurable: true, enumerable: false });
      },
    });
    // Without a message of its own, an exception reads as its class's default message (also in logs).
    Object.defineProperty(this.prototype, "message", {
      configurable: true,
      get(this: ApiException) {
        return this.default_message;
      },
      set(this: ApiException, value: string) {
        Object.defineProperty(this, "message", { value, writable: true, configurable: true, enumerable: false });
      },
    });
  }

  // An empty message counts as none, so the default message shows (as in chanfana).
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message || undefined, options);
  }

  /** The `errors` entries this exception contributes to the response body. */
  buildResponse(): ErrorItem[] {
    const message = this.isVisible ? this.message || this.default_message : HIDDEN_MESSAGE;
    if (!this.includesPath) return [{ code: this.code, message }];
    return [{ code: this.code, message, path: (this as { path?: ErrorItem["path"] | null }).path ?? undefined }];
  }

  /**
   * A `responses` entry documenting this exception, to spread into `schema.responses`. A built-in
   * exception's entry is made once and shared, so documents write it once under `components.responses`.
   */
  static schema(): ErrorResponseConfig {
    return responseEntryOf(this);
  }
}

/** An exception class's `responses` entry: made once and shared for a built-in class, fresh for any other. */
function responseEntryOf(exception: typeof ApiException): ErrorResponseConfig {
  const prototype = exception.prototype as unknown as Record<symbol, string>;
  if (!Object.hasOwn(prototype, BUILT_IN_NAME)) return describeException(exception);
  let shared = sharedSchemas.get(exception);
  if (!shared) {
    shared = describeException(exception);
    const name = prototype[BUILT_IN_NAME]!.replace(/Exception$/, "");
    for (const config of Object.values(shared)) {
      // Every route shares the entry: frozen, so changing it in place fails loudly instead of changing them all.
      Object.freeze(config.content["application/json"]);
      Object.freeze(config.content);
      sharedNames.set(Object.freeze(config), name);
    }
    sharedSchemas.set(exception, shared);
  }
  // A record of its own each time (the caller may add to it); the entry inside is the shared one.
  return { ...shared };
}

function describeException(exception: typeof ApiException): ErrorResponseConfig {
  // An instance reads the defaults a subclass declares as class fields; the constructor has no side effects.
  // A document asks this for every route.
  const sample = withoutStackTrace(() => new (exception as unknown as new () => ApiException)());
  const schema = sample.includesPath ? errorEnvelopeSchema : plainEnvelopeSchema;
  return {
    [String(sample.status)]: { description: sample.default_message, content: { "application/json": { schema } } },
  };
}

/**
 * What `make` returns, with no stack trace captured for the errors it constructs: for errors whose
 * stack would name only specroute's own frames (one per invalid field of a request, a sample instance),
 * where capturing it is the costly part of `new`. Where `Error.stackTraceLimit` cannot be set, they
 * keep their stacks.
 */
export function withoutStackTrace<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    return make();
  }
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Exceptions about one field of the request: `path` names it, e.g. `["body", "email"]`. */
class FieldException extends ApiException {
  static {
    setDefaults(this, { includesPath: true });
  }
  path: Array<string | number> | null;

  constructor(message?: string, path?: Array<string | number> | null) {
    super(message);
    this.path = path ?? null;
  }
}

/** 400: a request part failed validation. `path` names the field, e.g. `["body", "email"]`. */
export class InputValidationException extends FieldException {
  static {
    tableDefaults(this, "InputValidationException");
  }
}

/**
 * The 400 for a request's invalid `path`, built without a stack trace: made where specroute reads and
 * validates a request, so its frames would all be specroute's own, and a request may make many.
 */
export function invalidField(message: string, path: Array<string | number>): InputValidationException {
  return withoutStackTrace(() => new InputValidationException(message, path));
}

/** 422: well-formed but semantically unacceptable; `path` optionally names the field. */
export class UnprocessableEntityException extends FieldException {
  static {
    tableDefaults(this, "UnprocessableEntityException");
  }
}

/**
 * Several exceptions answered at once: the response takes the highest status among them (at least
 * 400), and is hidden if any of them is.
 */
export class MultiException extends ApiException {
  errors: ApiException[];

  constructor(errors: ApiException[]) {
    super("Multiple Exceptions");
    this.errors = errors;
    this.status = Math.max(400, ...errors.map((err) => err.status));
    this.isVisible = errors.every((err) => err.isVisible);
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
  static {
    tableDefaults(this, "NotFoundException");
  }
}
/** 401: credentials are missing or invalid. */
export class UnauthorizedException extends ApiException {
  static {
    tableDefaults(this, "UnauthorizedException");
  }
}
/** 403: the caller may not do this. */
export class ForbiddenException extends ApiException {
  static {
    tableDefaults(this, "ForbiddenException");
  }
}
/** 405: the method is not allowed on this path. */
export class MethodNotAllowedException extends ApiException {
  static {
    tableDefaults(this, "MethodNotAllowedException");
  }
}
/** 409: the request conflicts with the stored state (e.g. a duplicate unique key). */
export class ConflictException extends ApiException {
  static {
    tableDefaults(this, "ConflictException");
  }
}
/** 429 with `Retry-After` when `retryAfter` (seconds) is given. */
export class TooManyRequestsException extends RetryableException {
  static {
    tableDefaults(this, "TooManyRequestsException");
  }
}
/** 500 whose message never reaches the client. */
export class InternalServerErrorException extends ApiException {
  static {
    tableDefaults(this, "InternalServerErrorException");
  }
}
/** 502: an upstream answered badly. */
export class BadGatewayException extends ApiException {
  static {
    tableDefaults(this, "BadGatewayException");
  }
}
/** 503 with `Retry-After` when `retryAfter` (seconds) is given. */
export class ServiceUnavailableException extends RetryableException {
  static {
    tableDefaults(this, "ServiceUnavailableException");
  }
}
/** 504: an upstream did not answer in time. */
export class GatewayTimeoutException extends ApiException {
  static {
    tableDefaults(this, "GatewayTimeoutException");
  }
}
/** 500: `handle` returned data that does not match its declared response (with `validateResponse`). */
export class ResponseValidationException extends ApiException {
  static {
    tableDefaults(this, "ResponseValidationException");
  }
}
/** 413: the request body is larger than the configured limit. */
export class PayloadTooLargeException extends ApiException {
  static {
    tableDefaults(this, "PayloadTooLargeException");
  }
}
/** 415: the request's `Content-Type` is not one the endpoint declares. */
export class UnsupportedMediaTypeException extends ApiException {
  static {
    tableDefaults(this, "UnsupportedMediaTypeException");
  }
}

/** 412: an `If-Match` precondition does not hold for the stored object (nothing was written). */
export class PreconditionFailedException extends ApiException {
  static {
    tableDefaults(this, "PreconditionFailedException");
  }
}
/** 428: the endpoint requires `If-Match` on writes and the request did not send it. */
export class PreconditionRequiredException extends ApiException {
  static {
    tableDefaults(this, "PreconditionRequiredException");
  }
}

/** 406: none of the media types the answer comes in is one the request's `Accept` takes. */
export class NotAcceptableException extends ApiException {
  static {
    tableDefaults(this, "NotAcceptableException");
  }
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

/**
 * A new exception like `template` (same class, message and fields), so concurrent requests never
 * throw, and mutate, the one instance a `constraintsMessages` map holds.
 *
 * @example
 * throw freshException(this.constraintsMessages["users.email"]);
 */
export function freshException<E extends Error>(template: E): E {
  // The template's own class, status and code (an app's subclass keeps its own), and its own copy of a path.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(template)), template) as E;
  if (copy instanceof FieldException && copy.path) copy.path = [...copy.path];
  Object.defineProperty(copy, "message", { value: template.message, writable: true, configurable: true });
  Object.defineProperty(copy, "stack", {
    value: new Error(template.message).stack,
    writable: true,
    configurable: true,
  });
  return copy;
}
