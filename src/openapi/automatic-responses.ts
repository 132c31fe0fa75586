import type { OpenAPIRouteSchema, ResponseConfig } from "../core/schema-types";
import type { Authenticator } from "../core/security/auth";
import {
  ForbiddenException,
  InputValidationException,
  NotAcceptableException,
  PayloadTooLargeException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from "../errors/exceptions";

type Responses = Record<string, ResponseConfig>;

// Entries the framework derived rather than the user wrote; `automaticResponses: false` leaves them out.
const derived = new WeakSet<ResponseConfig>();

/**
 * Marks `responses` as answers the framework gives on its own (e.g. an auto endpoint's 404), so the
 * router option `automaticResponses: false` can leave them out of the document; returns them.
 *
 * @example
 * responses: { "200": ok, ...automatic(NotFoundException.schema()) }
 */
export function automatic(responses: Responses): Responses {
  for (const config of Object.values(responses)) derived.add(config);
  return responses;
}

/** Whether a `responses` entry was marked by {@link automatic}. */
export function isAutomatic(config: ResponseConfig): boolean {
  return derived.has(config);
}

/**
 * What the framework itself answers for a route, before its handler runs: 400 when a request part is
 * declared, 413 and 415 when a body is, 401 and 403 when an authenticator guards it, 406 when its 200
 * comes in the media type the request's `Accept` chooses.
 */
export function frameworkResponses(
  schema: OpenAPIRouteSchema,
  enforced: readonly Authenticator<unknown>[],
  negotiates = false,
): Responses {
  const request = schema.request ?? {};
  const declaresInput = Object.values(request).some((part) => part !== undefined);
  return {
    ...(declaresInput ? builtIn(InputValidationException) : {}),
    ...(enforced.length > 0 ? { "401": unauthorizedResponse(enforced) } : {}),
    ...(enforced.length > 0 ? builtIn(ForbiddenException) : {}),
    ...(request.body ? builtIn(PayloadTooLargeException) : {}),
    ...(request.body ? builtIn(UnsupportedMediaTypeException) : {}),
    ...(negotiates ? builtIn(NotAcceptableException) : {}),
  };
}

const builtInResponses = new Map<{ schema(): Responses }, Responses>();

/** A built-in exception's entry, made once: a document asks for it on every route. Read only. */
function builtIn(exception: { schema(): Responses }): Responses {
  let responses = builtInResponses.get(exception);
  if (!responses) {
    responses = exception.schema();
    builtInResponses.set(exception, responses);
  }
  return responses;
}

/** The 401 with the `WWW-Authenticate` challenges the route's authenticators send. */
function unauthorizedResponse(enforced: readonly Authenticator<unknown>[]): ResponseConfig {
  const [entry] = Object.values(UnauthorizedException.schema());
  const challenges = enforced.map((one) => `\`${one.challenge}\``).join(" or ");
  return {
    ...entry,
    description: `Missing or invalid credentials: send ${enforced.map((one) => one.expects).join(", or ")}`,
    headers: {
      "WWW-Authenticate": {
        description: `One challenge per accepted scheme: ${challenges}`,
        schema: { type: "string" },
      },
    },
  };
}
